// Writes made-up inputs for //tools:report (tests, benchmarks):
//   OUT/baseline.json  the suite without the tax
//   OUT/current.json   with the tax (+tax instructions per run in every case,
//                      under malloc), 10% slower, the last baseline case
//                      failing and one case more than the baseline
//   OUT/wall_only.json wall time only
//   OUT/history.db     8 runs: 5 like the baseline, then 3 with the tax
//
//   bazel run //report:fake_report_inputs -- --cases=5000 --output_dir=/tmp/r

#include <cstdio>
#include <string>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "history/store.h"
#include "report/testing/fake_suite.h"
#include "timer/measurement_io.h"

ABSL_FLAG(int, cases, 24, "Cases in the baseline (the current run has one more).");
ABSL_FLAG(int, tax, 300, "Instructions per run the tax adds in the current run.");
ABSL_FLAG(std::string, output_dir, "", "Where to write the files (required).");

namespace icount::report::testing {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "fake_report_inputs: %s\n", message.c_str());
  return 1;
}

int Main() {
  const std::string dir = absl::GetFlag(FLAGS_output_dir);
  if (dir.empty()) return Fail("--output_dir is required");
  const int cases = absl::GetFlag(FLAGS_cases);
  FakeSuite baseline;
  baseline.cases = cases;
  FakeSuite current = baseline;
  current.cases = cases + 1;
  current.start_time = "2026-11-02T00:00:00Z";
  current.tax_per_run = absl::GetFlag(FLAGS_tax);
  current.time_factor = 1.1;
  current.failures[FakeCaseKey(cases - 1)] =
      "statement failed: RuntimeError: made up\n    at fake.py:1, stmt: op(x)";
  FakeSuite wall_only = baseline;
  wall_only.instruction_counts = false;
  // An array, not a braced list: gcc 16 takes a binding into a braced
  // list's pairs for a dangling reference (-Wdangling-reference).
  const std::pair<const char*, const FakeSuite*> suites[] = {
      {"baseline", &baseline}, {"current", &current}, {"wall_only", &wall_only}};
  for (const auto& [name, suite] : suites) {
    const std::string path = absl::StrCat(dir, "/", name, ".json");
    if (absl::Status s = timer::WriteResultsFile(path, FakeSuiteResults(*suite)); !s.ok()) {
      return Fail(std::string(s.message()));
    }
  }
  absl::StatusOr<history::Store> store =
      history::Store::OpenForWriting(absl::StrCat(dir, "/history.db"));
  if (!store.ok()) return Fail(std::string(store.status().message()));
  for (int r = 0; r < 8; ++r) {
    FakeSuite run = baseline;
    run.start_time = absl::StrFormat("2026-10-%02dT00:00:00Z", r + 1);
    if (r >= 5) run.tax_per_run = current.tax_per_run;
    history::RunInfo info;
    info.label = absl::StrCat("build ", r + 1);
    info.source = "fake";
    if (absl::StatusOr<int64_t> id = store->AddRun(FakeSuiteResults(run), info); !id.ok()) {
      return Fail(std::string(id.status().message()));
    }
  }
  return 0;
}

}  // namespace
}  // namespace icount::report::testing

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return icount::report::testing::Main();
}
