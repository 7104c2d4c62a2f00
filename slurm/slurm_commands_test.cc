#include "slurm/slurm_commands.h"

#include <sys/stat.h>

#include <cstdlib>

#include "base/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::slurm {
namespace {

using ::testing::HasSubstr;

TEST(ArrayIndexListTest, RangesAndSingles) {
  EXPECT_EQ(ArrayIndexList({0, 1, 2, 3}), "0-3");
  EXPECT_EQ(ArrayIndexList({5, 0, 2, 1, 7, 8}), "0-2,5,7-8");
  EXPECT_EQ(ArrayIndexList({4}), "4");
  EXPECT_EQ(ArrayIndexList({3, 3}), "3");
}

TEST(ParseSqueueTest, OneTaskALineAndPendingRangesExpanded) {
  // squeue -h -r -o '%F|%K|%T|%N|%r' as Slurm 22.05 prints it.
  const auto tasks = ParseSqueue(
      "5|1|PENDING||Resources\n"
      "5|0|RUNNING|vm|None\n"
      "9|[2-4%2]|PENDING||JobArrayTaskLimit\n");
  ASSERT_EQ(tasks.size(), 5);
  EXPECT_EQ(tasks[0].job_id, "5");
  EXPECT_EQ(tasks[0].index, 1);
  EXPECT_EQ(tasks[0].state, "PENDING");
  EXPECT_EQ(tasks[0].reason, "Resources");
  EXPECT_EQ(tasks[1].node, "vm");
  EXPECT_EQ(tasks[1].state, "RUNNING");
  EXPECT_EQ(tasks[2].index, 2);
  EXPECT_EQ(tasks[4].index, 4);
  EXPECT_EQ(tasks[4].job_id, "9");
}

TEST(ParseScontrolJobTest, StateExitCodeNodeOfAnArrayTask) {
  const TaskState task = ParseScontrolJob(
      "JobId=7 ArrayJobId=5 ArrayTaskId=2 JobName=icount UserId=root(0) JobState=FAILED "
      "Reason=NonZeroExitCode Dependency=(null) ExitCode=1:0 RunTime=00:00:02 NodeList=vm "
      "BatchHost=vm");
  EXPECT_EQ(task.job_id, "5");
  EXPECT_EQ(task.index, 2);
  EXPECT_EQ(task.state, "FAILED");
  EXPECT_EQ(task.reason, "NonZeroExitCode");
  EXPECT_EQ(task.exit_code, "1:0");
  EXPECT_EQ(task.node, "vm");
  EXPECT_EQ(ParseScontrolJob("ArrayTaskId=0 JobState=PENDING NodeList=(null)").node, "");
}

// Stand-in Slurm commands on PATH, each a shell script.
class FakeSlurmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = *base::MakeTemporaryDirectory("fake-slurm");
    old_path_ = std::getenv("PATH");
    setenv("PATH", (dir_ + ":/usr/bin:/bin").c_str(), 1);
  }
  void TearDown() override {
    setenv("PATH", old_path_.c_str(), 1);
    base::RemoveDirectoryTree(dir_);
  }
  void Fake(const std::string& name, const std::string& body) {
    const std::string path = dir_ + "/" + name;
    ASSERT_TRUE(base::WriteFileAtomically(path, "#!/bin/sh\n" + body + "\n").ok());
    chmod(path.c_str(), 0755);
  }
  std::string dir_;
  std::string old_path_;
};

TEST_F(FakeSlurmTest, MissingCommandsAreNamedWithTheirPackage) {
  setenv("PATH", dir_.c_str(), 1);
  Fake("sbatch", "exit 0");
  const absl::Status status = CheckSlurmCommands();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("squeue, scontrol, scancel, sinfo"));
  EXPECT_THAT(status.message(), HasSubstr("slurm-client"));
  EXPECT_THAT(std::string(status.message()), ::testing::Not(HasSubstr("sbatch")));
}

TEST_F(FakeSlurmTest, SubmitPassesTheOptionsAndReturnsTheJobId) {
  Fake("sbatch", "echo \"$@\" > " + dir_ + "/args; echo 'sbatch: warning: x'; echo '41;cluster'");
  SubmitRequest request;
  request.script = "/run/task.sh";
  request.script_args = {"/bin/shard_task", "/run"};
  request.indices = {0, 1, 3};
  request.output = "/run/shard_%a.log";
  request.partition = "bench";
  request.constraint = "epyc";
  absl::StatusOr<std::string> job = SubmitArray(request);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(*job, "41");
  EXPECT_EQ(*base::ReadFileToString(dir_ + "/args"),
            "--parsable --job-name=icount --array=0-1,3 --output=/run/shard_%a.log "
            "--open-mode=append --partition=bench --constraint=epyc --exclusive /run/task.sh "
            "/bin/shard_task /run\n");
}

TEST_F(FakeSlurmTest, RefusedSubmissionCarriesSlurmsMessage) {
  Fake("sbatch",
       "echo 'sbatch: error: Batch job submission failed: Invalid partition name specified' >&2; "
       "exit 1");
  SubmitRequest request;
  request.script = "task.sh";
  request.indices = {0};
  const absl::StatusOr<std::string> job = SubmitArray(request);
  EXPECT_EQ(job.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(job.status().message(), HasSubstr("Invalid partition name specified"));
  EXPECT_THAT(job.status().message(), HasSubstr("nothing was submitted"));
}

TEST_F(FakeSlurmTest, ForgottenJobsAreNotActiveButOtherSqueueErrorsAreErrors) {
  Fake("squeue", "echo 'slurm_load_jobs error: Invalid job id specified' >&2; exit 1");
  absl::StatusOr<std::vector<TaskState>> active = ActiveTasks({"12"});
  ASSERT_TRUE(active.ok()) << active.status();
  EXPECT_TRUE(active->empty());
  Fake("squeue", "echo 'squeue: error: Unable to contact slurm controller' >&2; exit 1");
  active = ActiveTasks({"12"});
  EXPECT_EQ(active.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(active.status().message(), HasSubstr("Unable to contact slurm controller"));
}

TEST_F(FakeSlurmTest, PartitionNodeCountSumsSinfoLines) {
  Fake("sinfo", "echo 3; echo 2");
  EXPECT_EQ(*PartitionNodeCount(""), 5);
  Fake("sinfo", "true");
  EXPECT_THAT(PartitionNodeCount("gpu").status().message(), HasSubstr("partition gpu"));
}

}  // namespace
}  // namespace icount::slurm
