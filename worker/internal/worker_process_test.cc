#include "worker/internal/worker_process.h"

#include <string>
#include <vector>

#include "base/files.h"
#include "base/subprocess_testutil.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::worker::internal {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// An A/B side's prefix, as environment::EnvironmentPrefix writes it.
std::vector<std::string> SidePrefix(const std::string& command) {
  return {"/bin/bash", "-c", command + " && exec \"$@\"", "icount-env"};
}

std::string ScratchFile() {
  absl::StatusOr<std::string> directory = base::MakeTemporaryDirectory("worker-process-test");
  EXPECT_TRUE(directory.ok()) << directory.status();
  return *directory + "/env";
}

TEST(EnvironmentAfterTest, KeepsTheEnvironmentAndAddsWhatTheCommandExports) {
  absl::StatusOr<std::vector<std::string>> env =
      EnvironmentAfter(SidePrefix("echo noise on stdout; export ICOUNT_SIDE=b"),
                       {"KEPT=a", "PATH=/usr/bin:/bin"}, ScratchFile());
  ASSERT_TRUE(env.ok()) << env.status();
  EXPECT_THAT(*env, Contains("KEPT=a"));
  EXPECT_THAT(*env, Contains("ICOUNT_SIDE=b"));
  EXPECT_THAT(*env, Contains("PATH=/usr/bin:/bin"));
  // The shell's "_" (the program it ran last) is not the side's.
  EXPECT_THAT(*env, Not(Contains(StartsWith("_="))));
}

TEST(EnvironmentAfterTest, AFailingCommandIsAnErrorWithItsExitAndOutput) {
  absl::StatusOr<std::vector<std::string>> env = EnvironmentAfter(
      SidePrefix("echo no such venv >&2; exit 7"), {"PATH=/usr/bin:/bin"}, ScratchFile());
  ASSERT_FALSE(env.ok());
  EXPECT_THAT(env.status().message(), HasSubstr("exit code 7"));
  EXPECT_THAT(env.status().message(), HasSubstr("no such venv"));
}

// A runner killed outright (SIGKILL: no handler stops its workers) takes its
// workers with it, rather than leaving them to measure on.
TEST(SpawnWorkerTest, AWorkerEndsWithTheProcessThatStartedItEvenKilled) {
  const std::string log = ScratchFile() + ".log";
  absl::StatusOr<std::string> ended = base::HowAStartedProcessEndsWhenItsStarterIsKilled([&] {
    // Ends by itself after 40 s, inside the test's limit of 60.
    absl::StatusOr<WorkerProcess> worker =
        SpawnWorker({"sleep", "40"}, {"PATH=/usr/bin:/bin"}, log, false);
    return worker.ok() ? worker->pid : -1;
  });
  ASSERT_TRUE(ended.ok()) << ended.status();
  EXPECT_EQ(*ended, "killed by signal 9 (Killed)");
}

}  // namespace
}  // namespace icount::worker::internal
