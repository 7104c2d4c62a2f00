// Writes a made-up history: --runs results files of --cases cases each,
// with steps injected at known runs, for //tools:history_test and for
// measuring the store (docs/history.md):
//
//   fake_history --runs=12 --cases=6 --output_dir=DIR     # DIR/run_01.json ...
//   fake_history --runs=1000 --cases=201 --db=big.db      # recorded directly
//
// Every 5th case (0, 5, ...) gets a count step of +3% (in function "grows")
// at run --runs/3 (0-based), every 5th case from 1 (1, 6, ...) a
// wall-time step of +25% at run 2*--runs/3, and every 5th case from 2 (2,
// 7, ...) one heap allocation per run more (3 -> 4) at run --runs/2. Times
// have 2% log-normal noise and a slow run (+30%) now and then. Seeded: the
// same files every time.
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "history/store.h"
#include "history/testing/fake_results.h"

ABSL_FLAG(int, runs, 12, "Runs to make.");
ABSL_FLAG(int, cases, 6, "Cases per run.");
ABSL_FLAG(int, functions, 40, "Functions per case.");
ABSL_FLAG(int, blocks, 5, "Wall-time samples per case and run.");
ABSL_FLAG(std::string, output_dir, "", "Write run_NN.json files here...");
ABSL_FLAG(std::string, db, "", "...or record the runs into this store.");

namespace icount::history::testing {
namespace {

int Main() {
  const int runs = absl::GetFlag(FLAGS_runs);
  const int count_step_at = runs / 3;
  const int time_step_at = 2 * runs / 3;
  std::mt19937_64 random(18);
  std::normal_distribution<double> noise(0, 0.02);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::optional<Store> store;
  if (!absl::GetFlag(FLAGS_db).empty()) {
    absl::StatusOr<Store> opened = Store::OpenForWriting(absl::GetFlag(FLAGS_db));
    if (!opened.ok()) {
      std::fprintf(stderr, "fake_history: %s\n", std::string(opened.status().message()).c_str());
      return 1;
    }
    store = *std::move(opened);
  }
  for (int r = 0; r < runs; ++r) {
    FakeRun run;
    run.start_time = absl::StrFormat("2026-01-01T00:%02d:%02dZ", r / 60, r % 60);
    if (runs > 3600)
      run.start_time = absl::StrFormat("2026-01-01T%02d:%02d:%02dZ", r / 3600, r / 60 % 60, r % 60);
    run.cases = absl::GetFlag(FLAGS_cases);
    run.functions = absl::GetFlag(FLAGS_functions);
    run.blocks = absl::GetFlag(FLAGS_blocks);
    run.count = [&](int k) {
      return 1000.0 * (k + 2) * (k % 5 == 0 && r >= count_step_at ? 1.03 : 1.0);
    };
    run.allocations = [&](int k) { return k % 5 == 2 && r >= runs / 2 ? 4.0 : 3.0; };
    std::vector<double> times;
    for (int k = 0; k < run.cases; ++k) {
      double t =
          1e-6 * (k + 1) * std::exp(noise(random)) * (k % 5 == 1 && r >= time_step_at ? 1.25 : 1.0);
      if (uniform(random) < 0.03) t *= 1.3;
      times.push_back(t);
    }
    run.time = [times](int k) { return times[k]; };
    const timer::ResultsFile results = FakeResults(run);
    if (store.has_value()) {
      RunInfo info;
      info.label = absl::StrFormat("r%02d", r);
      info.source = "fake_history";
      absl::StatusOr<int64_t> id = store->AddRun(results, info);
      if (!id.ok()) {
        std::fprintf(stderr, "fake_history: %s\n", std::string(id.status().message()).c_str());
        return 1;
      }
    } else {
      const std::string path =
          absl::StrFormat("%s/run_%02d.json", absl::GetFlag(FLAGS_output_dir), r);
      if (absl::Status s = timer::WriteResultsFile(path, results); !s.ok()) {
        std::fprintf(stderr, "fake_history: %s\n", std::string(s.message()).c_str());
        return 1;
      }
    }
  }
  return 0;
}

}  // namespace
}  // namespace icount::history::testing

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return icount::history::testing::Main();
}
