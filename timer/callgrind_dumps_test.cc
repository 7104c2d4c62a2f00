#include "timer/callgrind_dumps.h"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/runfiles_testutil.h"
#include "gtest/gtest.h"

namespace icount::timer {
namespace {

// Totals of the checked-in dumps ("summary:" lines): torch::add and
// torch.add, 100 runs each, as the worker's repeats leave them.
constexpr int64_t kCppAddTotal = 1510317;
constexpr int64_t kPythonAddTotal = 1879850;

// A copy of a checked-in dump in the test's scratch directory, since
// CallgrindStatsFromDumps removes what it reads.
std::string ScratchCopy(const std::string& name, const std::string& as) {
  absl::StatusOr<std::string> bytes = base::ReadFileToString(
      base::TestRunfile(absl::StrCat("icount/timer/testdata/", name)));
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", as);
  EXPECT_TRUE(base::WriteFileAtomically(path, bytes.ok() ? *bytes : "").ok());
  return path;
}

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

TaskSpec AddSpec() {
  TaskSpec spec;
  spec.stmt = "auto z = torch::add(x, y);";
  spec.setup = "auto x = torch::ones({4, 4}); auto y = torch::ones({4, 4});";
  spec.language = Language::kCpp;
  return spec;
}

TEST(CallgrindStatsFromDumpsTest, OneStatsPerDumpWithTheBaselineAndRemovesTheFiles) {
  CallgrindDumpFiles dumps;
  dumps.stmt_dumps = {ScratchCopy("add_python.callgrind.out", "repeat-1"),
                      ScratchCopy("add_python.callgrind.out", "repeat-2")};
  dumps.baseline_dump = ScratchCopy("add_cpp.callgrind.out", "baseline");
  absl::StatusOr<std::vector<CallgrindStats>> stats =
      CallgrindStatsFromDumps(AddSpec(), 100, dumps, /*keep_files=*/false);
  ASSERT_TRUE(stats.ok()) << stats.status();
  ASSERT_EQ(stats->size(), 2u);
  for (const CallgrindStats& repeat : *stats) {
    EXPECT_EQ(repeat.Counts(), kPythonAddTotal);
    EXPECT_EQ(repeat.BaselineCounts(), kCppAddTotal);
    EXPECT_EQ(repeat.task_spec().stmt, "auto z = torch::add(x, y);");
    EXPECT_FALSE(repeat.stmt_callgrind_out().has_value());
  }
  EXPECT_DOUBLE_EQ((*stats)[0].CountsPerRun(), (kPythonAddTotal - kCppAddTotal) / 100.0);
  // Heap calls come from the same dumps' call counts. These dumps were
  // written when call counts still included the 10 warm-up runs: 880 = 8 x
  // 110 in both (operator new and posix_memalign; operator delete and free,
  // each called from outside the allocator), so none per run is left once
  // the baseline is subtracted.
  ASSERT_TRUE((*stats)[0].heap_calls().has_value());
  EXPECT_EQ((*stats)[0].heap_calls()->allocations, 880);
  EXPECT_EQ((*stats)[0].heap_calls()->frees, 880);
  ASSERT_TRUE((*stats)[0].baseline_heap_calls().has_value());
  EXPECT_EQ((*stats)[0].baseline_heap_calls()->allocations, 880);
  EXPECT_EQ((*stats)[0].baseline_heap_calls()->frees, 880);
  EXPECT_EQ((*stats)[0].AllocationsPerRun(), 0.0);
  EXPECT_EQ((*stats)[0].FreesPerRun(), 0.0);
  // Reports draw one tree: the first repeat's.
  EXPECT_TRUE((*stats)[0].call_tree().has_value());
  EXPECT_FALSE((*stats)[1].call_tree().has_value());
  EXPECT_FALSE(Exists(dumps.stmt_dumps[0]));
  EXPECT_FALSE(Exists(dumps.stmt_dumps[1]));
  EXPECT_FALSE(Exists(dumps.baseline_dump));
}

TEST(CallgrindStatsFromDumpsTest, KeepsFilesWhenAsked) {
  CallgrindDumpFiles dumps;
  dumps.stmt_dumps = {ScratchCopy("add_cpp.callgrind.out", "kept")};
  absl::StatusOr<std::vector<CallgrindStats>> stats =
      CallgrindStatsFromDumps(AddSpec(), 100, dumps, /*keep_files=*/true);
  ASSERT_TRUE(stats.ok()) << stats.status();
  ASSERT_EQ(stats->size(), 1u);
  EXPECT_EQ((*stats)[0].Counts(), kCppAddTotal);
  EXPECT_EQ((*stats)[0].stmt_callgrind_out(), dumps.stmt_dumps[0]);
  EXPECT_TRUE(Exists(dumps.stmt_dumps[0]));
}

TEST(CallgrindStatsFromDumpsTest, AMissingDumpIsDataLossNamingIt) {
  CallgrindDumpFiles dumps;
  dumps.stmt_dumps = {absl::StrCat(std::getenv("TEST_TMPDIR"), "/callgrind.out.404.1")};
  absl::StatusOr<std::vector<CallgrindStats>> stats =
      CallgrindStatsFromDumps(AddSpec(), 100, dumps, /*keep_files=*/false);
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(stats.status().message().find("callgrind.out.404.1"), std::string::npos)
      << stats.status();
}

}  // namespace
}  // namespace icount::timer
