// The suite as a sharded Bazel test, so remote execution can spread it over
// machines:
//
//   bazel test //tools:suite_shard_test --test_output=errors
//   unzip each bazel-testlogs/tools/suite_shard_test/shard_K_of_4/test.outputs/outputs.zip
//   bazel run //tools:merge_results -- --output=$PWD/all.json $PWD/results_shard_*.json
//
// Shard K of N (TEST_SHARD_INDEX / TEST_TOTAL_SHARDS) measures every N-th
// case from K: instruction counts (ICOUNT_SHARD_REPEATS repeats, default 1)
// and wall time, and writes its results file to TEST_UNDECLARED_OUTPUTS_DIR.
// Tagged manual: `bazel test //...` does not run the whole suite.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tools/suite.h"

namespace icount::tools {
namespace {

int EnvInt(const char* name, int fallback) {
  const char* value = std::getenv(name);
  int parsed = 0;
  return value != nullptr && absl::SimpleAtoi(value, &parsed) ? parsed : fallback;
}

// A plain main, not a gtest: gtest would shard its one test case itself.
int Run() {
  const int index = EnvInt("TEST_SHARD_INDEX", 0);
  const int total = EnvInt("TEST_TOTAL_SHARDS", 1);
  if (const char* status_file = std::getenv("TEST_SHARD_STATUS_FILE")) {
    std::ofstream touch(status_file);  // tells Bazel this test understands sharding
  }
  absl::StatusOr<Suite> suite = LoadSuite("definitions", "full_suite");
  absl::StatusOr<std::vector<expand::SuiteCaseProto>> all =
      suite.ok() ? SelectCases(*suite, {}) : suite.status();
  if (!all.ok()) {
    std::fprintf(stderr, "suite_shard_test: %s\n", std::string(all.status().message()).c_str());
    return 1;
  }
  std::vector<expand::SuiteCaseProto> cases;
  for (size_t i = index; i < all->size(); i += total) cases.push_back((*all)[i]);
  MeasureOptions measure;
  measure.callgrind_repeats = EnvInt("ICOUNT_SHARD_REPEATS", 1);
  const std::vector<worker::WorkOrderProto> orders = MakeOrders(*suite, cases, measure);
  const char* outputs = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  const std::string directory = outputs != nullptr ? outputs : std::getenv("TEST_TMPDIR");
  worker::RunnerOptions options;
  options.worker_path = suite->worker_path;
  options.journal_path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/shard.journal");
  absl::StatusOr<worker::RunnerReport> report = worker::RunOrders(orders, options);
  if (!report.ok()) {
    std::fprintf(stderr, "suite_shard_test: %s\n", std::string(report.status().message()).c_str());
    return 1;
  }
  SuiteResults results = CollectResults(cases, orders, report->results);
  results.file.end_time = NowRfc3339();
  results.file.suite_checksum = SuiteChecksum(*all);
  results.file.shard.emplace();
  results.file.shard->set_index(index + 1);
  results.file.shard->set_total(total);
  const std::string path =
      absl::StrCat(directory, "/results_shard_", index, "_of_", total, ".json");
  if (absl::Status status = timer::WriteResultsFile(path, results.file); !status.ok()) {
    std::fprintf(stderr, "suite_shard_test: %s\n", std::string(status.message()).c_str());
    return 1;
  }
  for (const auto& [key, reason] : results.file.failures) {
    std::fprintf(stderr, "FAILED %s: %s\n", key.c_str(), reason.c_str());
  }
  std::printf("shard %d of %d: %zu cases, %zu failed, results in %s\n", index + 1, total,
              cases.size(), results.file.failures.size(), path.c_str());
  return results.file.failures.empty() ? 0 : 1;
}

}  // namespace
}  // namespace icount::tools

int main() { return icount::tools::Run(); }
