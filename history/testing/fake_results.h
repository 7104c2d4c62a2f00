#ifndef ICOUNT_HISTORY_TESTING_FAKE_RESULTS_H_
#define ICOUNT_HISTORY_TESTING_FAKE_RESULTS_H_

// Results files made up for tests and benchmarks of //history: cases
// "Group / case K [C++ Eager, 1T]" with the counts and times asked for.
//
//   FakeRun run;
//   run.start_time = "2026-11-01T00:00:00Z";
//   run.count = [](int k) { return 1000.0 + k; };
//   ResultsFile results = FakeResults(run);

#include <cstdint>
#include <functional>
#include <string>

#include "timer/measurement_io.h"
#include "timer/node_testutil.h"

namespace icount::history::testing {

struct FakeRun {
  std::string start_time = "2026-11-01T00:00:00Z";
  timer::NodeProto machine = timer::TestMachine("testhost", 2, "Test CPU @ 1 GHz");
  int cases = 3;
  // Instructions per run of case k; nullptr: no counts.
  std::function<double(int)> count = [](int k) { return 1000.0 * (k + 1); };
  // Heap allocations per run of case k (with counts); nullptr: not counted,
  // as in results written before icount counted them.
  std::function<double(int)> allocations = nullptr;
  // Seconds per run of case k; nullptr: no times. Each case gets `blocks`
  // samples spread +-1% around it.
  std::function<double(int)> time = [](int k) { return 1e-6 * (k + 1); };
  int blocks = 5;
  // Exclusive functions per case: "fn_J" with count (J + 1) * 100 * number,
  // plus "grows" with the case's count above 1000 per run (so a count step
  // shows in "grows").
  int functions = 3;
};

timer::ResultsFile FakeResults(const FakeRun& run);

}  // namespace icount::history::testing

#endif  // ICOUNT_HISTORY_TESTING_FAKE_RESULTS_H_
