#include "worker/case_dumps.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/runfiles_testutil.h"
#include "gtest/gtest.h"

namespace icount::worker {
namespace {

constexpr int64_t kCppAddTotal = 1510317;  // the checked-in dump's "summary:"

int64_t Sum(const timer::FunctionCountsProto& counts) {
  int64_t total = 0;
  for (const auto& row : counts.rows()) total += row.count();
  return total;
}

// A case's result as the worker sends it: two repeats' dumps (copies of a
// checked-in one), its spec and the worker's shared baseline.
WorkerResultProto ResultWithDumps(const std::string& name) {
  absl::StatusOr<std::string> bytes = base::ReadFileToString(
      base::TestRunfile("icount/timer/testdata/add_cpp.callgrind.out"));
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  WorkerResultProto result;
  result.set_id(name);
  result.set_seconds(1.5);
  result.mutable_node()->set_host("node-1");
  CallgrindDumpsProto& dumps = *result.mutable_output()->mutable_callgrind_dumps();
  for (int repeat = 1; repeat <= 2; ++repeat) {
    const std::string path =
        absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name, ".callgrind.out.", repeat);
    EXPECT_TRUE(base::WriteFileAtomically(path, bytes.ok() ? *bytes : "").ok());
    dumps.add_stmt_dumps(path);
  }
  dumps.mutable_task_spec()->set_stmt("auto z = torch::add(x, y);");
  dumps.mutable_task_spec()->set_label("add");
  dumps.mutable_task_spec()->set_num_threads(2);
  dumps.mutable_task_spec()->set_language(timer::CPP);
  dumps.set_number_per_run(100);
  timer::CallgrindStatsProto& empty = *dumps.mutable_shared_baseline();
  auto* row = empty.mutable_stmt_exclusive()->add_rows();
  row->set_count(500);
  row->set_function("loop");
  *empty.mutable_stmt_inclusive() = empty.stmt_exclusive();
  return result;
}

TEST(ParseCaseDumpsTest, TurnsDumpsIntoCountsWithTheSharedBaseline) {
  WorkerResultProto result = ResultWithDumps("parsed");
  const std::string first = result.output().callgrind_dumps().stmt_dumps(0);
  ParseCaseDumps(result);
  ASSERT_TRUE(result.has_output());
  EXPECT_FALSE(result.output().has_callgrind_dumps());
  ASSERT_EQ(result.output().callgrind_size(), 2);
  for (const timer::CallgrindStatsProto& stats : result.output().callgrind()) {
    EXPECT_EQ(Sum(stats.stmt_exclusive()), kCppAddTotal);
    EXPECT_EQ(stats.number_per_run(), 100);
    EXPECT_TRUE(stats.has_baseline());
    EXPECT_EQ(Sum(stats.baseline_exclusive()), 500);
    EXPECT_EQ(stats.task_spec().label(), "add");
    EXPECT_EQ(stats.task_spec().num_threads(), 2);
    EXPECT_EQ(stats.task_spec().stmt(), "auto z = torch::add(x, y);");
  }
  EXPECT_EQ(access(first.c_str(), F_OK), -1) << "the dump is removed once parsed";
  EXPECT_EQ(result.id(), "parsed");
}

TEST(ParseCaseDumpsTest, AnUnreadableDumpFailsTheCaseNamingTheFile) {
  WorkerResultProto result = ResultWithDumps("lost");
  const std::string second = result.output().callgrind_dumps().stmt_dumps(1);
  std::remove(second.c_str());
  ParseCaseDumps(result);
  ASSERT_TRUE(result.has_failure());
  EXPECT_EQ(result.failure().kind(), FAILURE_MEASURE);
  EXPECT_NE(result.failure().reason().find(second), std::string::npos) << result.failure().reason();
  EXPECT_EQ(result.id(), "lost");
  EXPECT_EQ(result.node().host(), "node-1");
  EXPECT_DOUBLE_EQ(result.seconds(), 1.5);
}

TEST(ParseCaseDumpsTest, LeavesResultsWithoutDumpsAlone) {
  WorkerResultProto result;
  result.mutable_output()->add_callgrind()->set_number_per_run(7);
  const std::string before = result.SerializeAsString();
  ParseCaseDumps(result);
  EXPECT_EQ(result.SerializeAsString(), before);
}

}  // namespace
}  // namespace icount::worker
