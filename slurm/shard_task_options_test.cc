#include "slurm/shard_task_options.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "worker/runner.h"
#include "worker/worker.pb.h"

namespace icount::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

// A root side's options: every setting differs from RunnerOptions' default.
worker::RunnerOptions RootSideRunner() {
  worker::RunnerOptions runner;
  runner.worker_path = "/root-builds/sid/bazel-bin/worker/worker";
  runner.command_prefix = {"/bin/bash", "-c", "source env.sh && exec \"$@\"", "icount-env"};
  runner.launcher = {"/icount/enter_root", "--root=/roots/sid", "--"};
  runner.valgrind_version = "valgrind-3.27.1";
  runner.retries = 3;
  runner.timeout_seconds = 42.5;
  runner.python = false;
  runner.cache_sim = true;
  runner.uncompiled_cases = {{"InferenceMode/View|Eager|Forward|C++|1", "error: explicit"}};
  runner.journal_path = "out.json.S1.counts.journal";
  return runner;
}

TEST(ShardTaskTest, ANodeRunsWithTheSubmittingSidesOptions) {
  ShardTaskProto task;
  WriteRunnerOptions(RootSideRunner(), task);
  task.set_journal_path("/shared/icount-run-1/shard_0.journal");
  const worker::RunnerOptions node = RunnerOptionsOf(task);
  const worker::RunnerOptions side = RootSideRunner();
  EXPECT_EQ(node.worker_path, side.worker_path);
  EXPECT_EQ(node.command_prefix, side.command_prefix);
  EXPECT_EQ(node.launcher, side.launcher);
  EXPECT_EQ(node.valgrind_version, "valgrind-3.27.1");
  EXPECT_EQ(node.retries, 3);
  EXPECT_DOUBLE_EQ(node.timeout_seconds, 42.5);
  EXPECT_FALSE(node.python);
  EXPECT_TRUE(node.cache_sim);
  EXPECT_THAT(node.uncompiled_cases,
              ElementsAre(Pair("InferenceMode/View|Eager|Forward|C++|1", "error: explicit")));
  EXPECT_EQ(node.journal_path, "/shared/icount-run-1/shard_0.journal");
  EXPECT_TRUE(node.resume);
}

TEST(ShardTaskTest, DefaultsSurviveTheTrip) {
  ShardTaskProto task;
  WriteRunnerOptions(worker::RunnerOptions(), task);
  const worker::RunnerOptions node = RunnerOptionsOf(task);
  const worker::RunnerOptions defaults;
  EXPECT_EQ(node.python, defaults.python);
  EXPECT_EQ(node.cache_sim, defaults.cache_sim);
  EXPECT_EQ(node.retries, defaults.retries);
  EXPECT_DOUBLE_EQ(node.timeout_seconds, defaults.timeout_seconds);
  EXPECT_TRUE(node.launcher.empty());
  EXPECT_TRUE(node.uncompiled_cases.empty());
}

// On a node, a case its side's worker was built without fails with the
// compiler's error and never reaches a worker (this one would do nothing).
TEST(ShardTaskTest, ANodeJournalsAnUncompiledCaseWithoutAWorker) {
  worker::RunnerOptions side = RootSideRunner();
  side.worker_path = "/bin/true";
  ShardTaskProto task;
  WriteRunnerOptions(side, task);
  task.set_journal_path(std::string(std::getenv("TEST_TMPDIR")) + "/shard_0.journal");
  worker::WorkOrderProto order;
  order.set_id("InferenceMode / View, C++ Eager Forward");
  order.set_callgrind(true);
  order.mutable_task_spec()->set_language(timer::CPP);
  order.set_compiled_case("InferenceMode/View|Eager|Forward|C++|1");
  absl::StatusOr<worker::RunnerReport> report = worker::RunOrders({order}, RunnerOptionsOf(task));
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->results.size(), 1u);
  EXPECT_EQ(report->results[0].failure().kind(), worker::FAILURE_COMPILE);
  EXPECT_EQ(report->results[0].failure().reason(),
            "does not compile against this side's LibTorch: error: explicit");
}

}  // namespace
}  // namespace icount::slurm
