#include "slurm/executor.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "worker/runner.h"
#include "worker/worker.pb.h"

namespace icount {
namespace {

std::vector<worker::WorkOrderProto> Orders(const std::string& id) {
  worker::WorkOrderProto order;
  order.set_id(id);
  order.set_callgrind(true);
  return {order};
}

TEST(SlurmRunDirectoryTest, TheSameRunFindsItsDirectoryAgain) {
  SlurmOptions slurm;
  slurm.shared_dir = "/shared";
  RunnerOptions runner;
  runner.worker_path = "/w/worker";
  runner.command_prefix = {"/bin/bash", "-c", "true; exec \"$@\"", "side"};
  runner.journal_path = "out.json.S0.counts.journal";
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
  RunnerOptions one;
  one.worker_path = "/w/worker";
  one.command_prefix = {"/bin/bash", "-c", "true; exec \"$@\"", "side"};
  RunnerOptions two = one;
  one.journal_path = "out.json.S0.counts.journal";
  two.journal_path = "out.json.S1.counts.journal";
  EXPECT_NE(SlurmRunDirectory(Orders("a"), one, slurm), SlurmRunDirectory(Orders("a"), two, slurm));
}

}  // namespace
}  // namespace icount
