#include "slurm/executor.h"

#include <string>
#include <vector>

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

}  // namespace
}  // namespace icount::slurm
