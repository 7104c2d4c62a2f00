#include "base/subprocess.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/files.h"
#include "base/subprocess_testutil.h"
#include "gtest/gtest.h"

namespace icount::base {
namespace {

TEST(RunCommandTest, CapturesOutputAndExitCode) {
  absl::StatusOr<CommandResult> result = RunCommand({"sh", "-c", "echo out; echo err >&2; exit 3"});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_code, 3);
  EXPECT_EQ(result->signal, 0);
  EXPECT_EQ(result->output, "out\nerr\n");
  EXPECT_EQ(DescribeExit(*result), "exit code 3");
}

TEST(RunCommandTest, HandsOverEachLineAsItArrives) {
  // The second line is printed only after the first has been handed over
  // (the command waits for the file the callback writes): lines are not
  // held back until the command ends.
  const std::string marker = std::string(std::getenv("TEST_TMPDIR")) + "/first_line_seen";
  CommandOptions options;
  std::vector<std::string> lines;
  options.on_line = [&](const std::string& line) {
    lines.push_back(line);
    if (line == "first") {
      ASSERT_TRUE(WriteFileAtomically(marker, "").ok());
    }
  };
  absl::StatusOr<CommandResult> result = RunCommand(
      {"sh", "-c", "echo first; while [ ! -e \"$1\" ]; do sleep 0.01; done; printf 'second\\nlast'",
       "sh", marker},
      options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(lines, (std::vector<std::string>{"first", "second", "last"}));
  EXPECT_EQ(result->output, "first\nsecond\nlast");
}

TEST(RunCommandTest, ReportsTheSignal) {
  absl::StatusOr<CommandResult> result = RunCommand({"sh", "-c", "kill -SEGV $$"});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->signal, SIGSEGV);
  EXPECT_EQ(DescribeExit(*result), "killed by signal 11 (Segmentation fault)");
}

// Whether process `pid` has ended (gone, or a zombie nobody reaped yet).
bool Ended(pid_t pid) {
  absl::StatusOr<std::string> stat = ReadFileToString("/proc/" + std::to_string(pid) + "/stat");
  if (!stat.ok()) return true;
  const size_t name_end = stat->rfind(')');
  return name_end != std::string::npos && stat->compare(name_end, 4, ") Z ") == 0;
}

// At the timeout the command and what it started are killed, and the
// output so far is kept.
TEST(RunCommandTest, ATimeoutKillsTheCommandsProcessGroup) {
  const std::string pid_file = std::string(std::getenv("TEST_TMPDIR")) + "/sleeper.pid";
  CommandOptions options;
  options.timeout_seconds = 2;
  absl::StatusOr<CommandResult> result = RunCommand(
      {"sh", "-c", "echo started; sleep 600 & echo $! > " + pid_file + "; wait"}, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->timed_out);
  EXPECT_EQ(result->signal, SIGKILL);
  EXPECT_EQ(result->output, "started\n");
  EXPECT_EQ(DescribeExit(*result, 2), "killed at its timeout of 2 s");
  absl::StatusOr<std::string> sleeper = ReadFileToString(pid_file);
  ASSERT_TRUE(sleeper.ok()) << sleeper.status();
  const pid_t sleeper_pid = std::atoi(sleeper->c_str());
  ASSERT_GT(sleeper_pid, 0);
  // SIGKILL was sent to the group before RunCommand returned; the kernel
  // ends the process soon after.
  for (int i = 0; i < 1000 && !Ended(sleeper_pid); ++i) usleep(10000);
  EXPECT_TRUE(Ended(sleeper_pid)) << "the command's background sleep outlived its timeout";

  // A command that ends in time is not marked.
  absl::StatusOr<CommandResult> quick = RunCommand({"true"}, options);
  ASSERT_TRUE(quick.ok()) << quick.status();
  EXPECT_FALSE(quick->timed_out);
  EXPECT_EQ(quick->exit_code, 0);
}

TEST(RunCommandTest, ReplacesTheEnvironmentAndReadsDevNull) {
  CommandOptions options;
  options.env = std::vector<std::string>{"ONLY=this", "PATH=/usr/bin:/bin"};
  absl::StatusOr<CommandResult> result =
      RunCommand({"sh", "-c", "echo $ONLY ${HOME:-nohome}; cat"}, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->output, "this nohome\n");
}

TEST(RunCommandTest, ReproducibleLayoutTurnsAslrOffInTheChild) {
  CommandOptions options;
  options.reproducible_layout = true;
  // setarch's personality flag ADDR_NO_RANDOMIZE is 0x0040000.
  absl::StatusOr<CommandResult> result = RunCommand({"cat", "/proc/self/personality"}, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(std::stoul(result->output, nullptr, 16) & 0x0040000, 0x0040000u) << result->output;
}

// The pid `sh -c 'echo $$'` gets when run by the first process of a fresh
// PID namespace, as in a container; -1 when this machine does not let the
// test make one (it needs root).
int PidInAFreshPidNamespace(bool reproducible_layout) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return -1;
  const pid_t outer = fork();
  if (outer == 0) {
    close(pipe_fds[0]);
    if (unshare(CLONE_NEWPID) != 0) _exit(2);
    const pid_t first = fork();  // pid 1 in the new namespace
    if (first == 0) {
      CommandOptions options;
      options.reproducible_layout = reproducible_layout;
      absl::StatusOr<CommandResult> result = RunCommand({"sh", "-c", "echo $$"}, options);
      if (!result.ok()) _exit(3);
      _exit(write(pipe_fds[1], result->output.data(), result->output.size()) > 0 ? 0 : 4);
    }
    int status = 0;
    waitpid(first, &status, 0);
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 5);
  }
  close(pipe_fds[1]);
  char text[32] = {};
  const ssize_t n = read(pipe_fds[0], text, sizeof(text) - 1);
  close(pipe_fds[0]);
  int status = 0;
  waitpid(outer, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) == 2) return -1;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  return n > 0 ? std::atoi(text) : 0;
}

TEST(RunCommandTest, ReproducibleLayoutStartsAboveTheFirstPidsOfANamespace) {
  const int plain = PidInAFreshPidNamespace(false);
  if (plain < 0) GTEST_SKIP() << "cannot make a PID namespace here (needs root)";
  // The namespace's second process: a pid Python keeps preallocated.
  EXPECT_EQ(plain, 2);
  EXPECT_GE(PidInAFreshPidNamespace(true), 300);
}

TEST(RunCommandTest, NamesACommandThatCannotStart) {
  absl::StatusOr<CommandResult> result = RunCommand({"/nonexistent/tool", "--x"});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("cannot run `/nonexistent/tool --x`"), std::string::npos)
      << result.status();
}

// Spawn's two ways of starting: posix_spawn, and fork for die_with_parent.
class SpawnTest : public ::testing::TestWithParam<bool> {};

TEST_P(SpawnTest, WiresDescriptorsOutputAndProcessGroup) {
  absl::StatusOr<std::string> directory = MakeTemporaryDirectory("subprocess_test");
  ASSERT_TRUE(directory.ok());
  int channel[2];
  ASSERT_EQ(pipe2(channel, O_CLOEXEC), 0);
  SpawnOptions options;
  options.die_with_parent = GetParam();
  options.fds = {{channel[1], 3}};
  options.output_path = *directory + "/log";
  options.new_process_group = true;
  absl::StatusOr<pid_t> pid =
      Spawn({"sh", "-c", "echo to-fd-3 >&3; echo to-log; echo err >&2; echo $(ps -o pgid= -p $$)"},
            options);
  ASSERT_TRUE(pid.ok()) << pid.status();
  close(channel[1]);
  char buffer[64] = {};
  EXPECT_EQ(read(channel[0], buffer, sizeof(buffer) - 1), 8);
  EXPECT_STREQ(buffer, "to-fd-3\n");
  close(channel[0]);
  int status = 0;
  ASSERT_EQ(waitpid(*pid, &status, 0), *pid);
  EXPECT_EQ(CommandResult::FromWaitStatus(status).exit_code, 0);
  absl::StatusOr<std::string> log = ReadFileToString(options.output_path);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(*log, "to-log\nerr\n" + std::to_string(*pid) + "\n") << "pid " << *pid;
  RemoveDirectoryTree(*directory);
}

TEST_P(SpawnTest, NamesWhatStopsTheStart) {
  SpawnOptions options;
  options.die_with_parent = GetParam();
  absl::StatusOr<pid_t> missing = Spawn({"/nonexistent/tool", "--x"}, options);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "cannot run `/nonexistent/tool --x`: No such file or directory");
  options.working_directory = "/nonexistent/directory";
  absl::StatusOr<pid_t> nowhere = Spawn({"true"}, options);
  ASSERT_FALSE(nowhere.ok());
  EXPECT_EQ(nowhere.status().message(), "cannot run `true`: No such file or directory");
  options.working_directory.clear();
  options.stdin_path = "/nonexistent/input";
  EXPECT_FALSE(Spawn({"true"}, options).ok());
}

INSTANTIATE_TEST_SUITE_P(PosixSpawnAndFork, SpawnTest, ::testing::Bool());

// The child dies with the process that spawned it however that ends, here
// by SIGKILL, which no handler sees.
TEST(SpawnTest, DieWithParentEndsTheChildWhenItsStarterIsKilled) {
  absl::StatusOr<std::string> ended = HowAStartedProcessEndsWhenItsStarterIsKilled([] {
    SpawnOptions options;
    options.die_with_parent = true;
    // Ends by itself after 40 s, inside the test's limit of 60.
    absl::StatusOr<pid_t> child = Spawn({"sleep", "40"}, options);
    return child.ok() ? *child : -1;
  });
  ASSERT_TRUE(ended.ok()) << ended.status();
  EXPECT_EQ(*ended, "killed by signal 9 (Killed)");
}

TEST(RunInChildTest, ReturnedValueIsTheExitCode) {
  absl::StatusOr<ChildOutcome> outcome = RunInChild([] { return 7; }, 0);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_TRUE(outcome->returned);
  EXPECT_EQ(outcome->exit.exit_code, 7);
}

TEST(RunInChildTest, ACrashEndsTheChildNotTheCaller) {
  absl::StatusOr<ChildOutcome> outcome = RunInChild(
      [] {
        raise(SIGSEGV);
        return 0;
      },
      0);
  ASSERT_TRUE(outcome.ok());
  EXPECT_FALSE(outcome->returned);
  EXPECT_EQ(outcome->exit.signal, SIGSEGV);
}

TEST(RunInChildTest, ExitInsideTheBodyIsNotAReturn) {
  absl::StatusOr<ChildOutcome> outcome = RunInChild(
      [] {
        std::exit(0);
        return 0;
      },
      0);
  ASSERT_TRUE(outcome.ok());
  EXPECT_FALSE(outcome->returned);
  EXPECT_EQ(outcome->exit.exit_code, 0);
}

TEST(RunInChildTest, AHangIsKilledAtTheTimeout) {
  absl::StatusOr<ChildOutcome> outcome = RunInChild(
      [] {
        while (true) pause();
        return 0;
      },
      0.2);
  ASSERT_TRUE(outcome.ok());
  EXPECT_TRUE(outcome->timed_out);
  EXPECT_FALSE(outcome->returned);
  EXPECT_EQ(outcome->exit.signal, SIGKILL);
}

}  // namespace
}  // namespace icount::base
