#ifndef ICOUNT_REPORT_TESTING_FAKE_SUITE_H_
#define ICOUNT_REPORT_TESTING_FAKE_SUITE_H_

// Made-up results for tests and benchmarks of //report: a suite of any
// size with what a real one has (groups, Python / C++ and Eager /
// TorchScript variants, forward and backward, thread counts, wall time in
// rounds, call trees), and an optional "tax": every case's malloc calls
// icount_test_allocation_tax, like //tests:libslow_malloc.so in the A/B
// test, so a comparison shows where instructions grew.
//
//   FakeSuite suite;
//   suite.cases = 5000;
//   ResultsFile before = FakeSuiteResults(suite);
//   suite.tax_per_run = 300;
//   ResultsFile after = FakeSuiteResults(suite);

#include <cstdint>
#include <string>

#include "timer/measurement_io.h"

namespace icount::report::testing {

struct FakeSuite {
  int cases = 24;
  std::string start_time = "2026-11-01T00:00:00Z";
  // Instructions per run that icount_test_allocation_tax adds (0: none);
  // with a tax every case allocates (and frees) once more per run: 4, not 3.
  int64_t tax_per_run = 0;
  // Every case's wall time is multiplied by this.
  double time_factor = 1.0;
  bool instruction_counts = true;
  bool call_trees = true;
  bool wall_time = true;
  int time_rounds = 3;
  // Case keys listed here are failures instead ("kind: reason").
  std::map<std::string, std::string> failures;
};

// The case key of case k (expand::CaseKey), as FakeSuiteResults files it.
std::string FakeCaseKey(int k);

timer::ResultsFile FakeSuiteResults(const FakeSuite& suite);

}  // namespace icount::report::testing

#endif  // ICOUNT_REPORT_TESTING_FAKE_SUITE_H_
