#include "slurm/executor.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "worker/runner.h"
#include "worker/worker.pb.h"

namespace icount::slurm {
namespace {

std::vector<worker::WorkOrderProto> Orders(const std::string& id) {
  worker::WorkOrderProto order;
  order.set_id(id);
  order.set_callgrind(true);
  return {order};
}

// A side's runner options: a worker run through the side's command.
worker::RunnerOptions SideRunner(const std::string& journal_path) {
  worker::RunnerOptions runner;
  runner.worker_path = "/w/worker";
  runner.command_prefix = {"/bin/bash", "-c", "true; exec \"$@\"", "side"};
  runner.journal_path = journal_path;
  return runner;
}

TEST(SlurmRunDirectoryTest, TheSameRunFindsItsDirectoryAgain) {
  SlurmOptions slurm;
  slurm.shared_dir = "/shared";
  const worker::RunnerOptions runner = SideRunner("out.json.S0.counts.journal");
  const std::string dir = SlurmRunDirectory(Orders("a"), runner, slurm);
  EXPECT_THAT(dir, ::testing::StartsWith("/shared/icount-run-"));
  EXPECT_EQ(SlurmRunDirectory(Orders("a"), runner, slurm), dir);  // how --resume finds it
  EXPECT_NE(SlurmRunDirectory(Orders("b"), runner, slurm), dir);
}

TEST(SlurmRunDirectoryTest, IdenticalSidesRunningAtOnceKeepApart) {
  // ab_test --sides with two sides of the same command: the same orders,
  // worker and environment, told apart by their journals.
  SlurmOptions slurm;
  slurm.shared_dir = "/shared";
  const worker::RunnerOptions one = SideRunner("out.json.S0.counts.journal");
  const worker::RunnerOptions two = SideRunner("out.json.S1.counts.journal");
  EXPECT_NE(SlurmRunDirectory(Orders("a"), one, slurm), SlurmRunDirectory(Orders("a"), two, slurm));
}

// Slurm's commands as a cluster whose controller does not answer: sbatch
// takes the array, squeue fails every time.
std::string UnreachableController() {
  const std::string bin = base::MakeTemporaryDirectory("slurm-bin").value();
  const std::pair<const char*, const char*> commands[] = {
      {"sbatch", "echo 4242"},
      {"squeue",
       "echo asked >> \"$0.calls\"; "
       "echo 'slurm_load_jobs error: Unable to contact slurm controller (connect failure)' >&2; "
       "exit 1"},
      {"scontrol", "exit 0"},
      {"scancel", "exit 0"},
      {"sinfo", "exit 0"},
      {"shard_task", "exit 0"}};
  for (const auto& [name, body] : commands) {
    const std::string path = absl::StrCat(bin, "/", name);
    EXPECT_TRUE(base::WriteFileAtomically(path, absl::StrCat("#!/bin/sh\n", body, "\n")).ok());
    chmod(path.c_str(), 0755);
  }
  return bin;
}

// squeue failing is waited out for query_patience_seconds (a controller
// restarting), then the driver stops and leaves the tasks to --resume.
TEST(RunOnSlurmTest, AControllerThatDoesNotAnswerIsWaitedForThenLeftToResume) {
  const std::string bin = UnreachableController();
  const std::string path = std::getenv("PATH");
  setenv("PATH", absl::StrCat(bin, ":", path).c_str(), 1);
  SlurmOptions slurm;
  slurm.shared_dir = base::MakeTemporaryDirectory("shared").value();
  slurm.shards = 1;
  slurm.shard_task_path = bin + "/shard_task";
  slurm.poll_seconds = 0.05;
  slurm.query_patience_seconds = 0.5;
  const worker::RunnerOptions runner =
      SideRunner(base::MakeTemporaryDirectory("out").value() + "/out.json.journal");
  const absl::StatusOr<worker::RunnerReport> report = RunOnSlurm(Orders("a"), runner, slurm);
  setenv("PATH", path.c_str(), 1);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(report.status().message()),
              ::testing::HasSubstr("Unable to contact slurm controller (connect failure) (every "
                                   "time for 0.5 s); the tasks of jobs 4242 go on: run the same "
                                   "command with --resume to wait for them again"));
  // Asked again after the first failure, not given up at once.
  const std::string calls = base::ReadFileToString(bin + "/squeue.calls").value_or("");
  EXPECT_GE(std::count(calls.begin(), calls.end(), '\n'), 2) << calls;
}

}  // namespace
}  // namespace icount::slurm
