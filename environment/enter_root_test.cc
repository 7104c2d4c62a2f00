// enter_root, run on the machine's own root filesystem as the root: what a
// command writes outside the bound directories never reaches the root, the
// bound ones are the host's, and no mount outlives the command, however it
// ends, and the command ends with the process that started it.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/runfiles.h"
#include "base/subprocess.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::environment {
namespace {

using ::testing::HasSubstr;

class EnterRootTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "mount namespaces as root; user namespaces otherwise";
    enter_root_ = base::FindRunfile("icount/environment/enter_root").value();
    scratch_ = base::MakeTemporaryDirectory("enter-root").value();
    ASSERT_TRUE(base::MakeDirectories(scratch_ + "/mnt").ok());
    ready_ = scratch_ + "/ready";
  }
  std::vector<std::string> Command(const std::string& shell) const {
    return {enter_root_, "--root=/", "--bind=" + scratch_, "--mount_directory=" + scratch_ + "/mnt",
            "--", "/bin/sh", "-c", shell};
  }
  // Starts enter_root with a command that writes its pid to ready_ once it
  // runs inside, then sleeps until killed.
  absl::StatusOr<pid_t> SpawnSleeper() const {
    base::SpawnOptions options;
    options.output_path = scratch_ + "/log";
    return base::Spawn(Command(absl::StrCat("echo $$ > ", ready_, ".tmp && mv ", ready_, ".tmp ",
                                            ready_, " && exec sleep 600")),
                       options);
  }
  // Waits for the sleeper's own word that it runs inside; fails if `parent`
  // (enter_root, or what started it) ends first.
  void WaitUntilInside(pid_t parent) const {
    while (access(ready_.c_str(), F_OK) != 0) {
      int status = 0;
      ASSERT_EQ(waitpid(parent, &status, WNOHANG), 0)
          << base::ReadFileToString(scratch_ + "/log").value_or("");
      usleep(10000);
    }
  }
  static int IcountMounts(const std::string& mountinfo) {
    std::string text = base::ReadFileToString(mountinfo).value_or("");
    int n = 0;
    for (size_t at = text.find("icount-root"); at != std::string::npos;
         at = text.find("icount-root", at + 1)) {
      ++n;
    }
    return n;
  }
  std::string enter_root_, scratch_, ready_;
};

TEST_F(EnterRootTest, WritesOutsideBoundDirectoriesVanish) {
  const std::string marker = absl::StrCat("/usr/icount-enter-root-test-", getpid());
  absl::StatusOr<base::CommandResult> result = base::RunCommand(Command(absl::StrCat(
      "echo inside > ", marker, " && cat ", marker, " && echo kept > ", scratch_, "/kept")));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_code, 0) << result->output;
  EXPECT_THAT(result->output, HasSubstr("inside"));
  EXPECT_NE(access(marker.c_str(), F_OK), 0) << "the root itself changed";
  EXPECT_EQ(base::ReadFileToString(scratch_ + "/kept").value_or(""), "kept\n");
  EXPECT_EQ(IcountMounts("/proc/self/mountinfo"), 0);
}

TEST_F(EnterRootTest, NoMountOutlivesAKilledCommand) {
  absl::StatusOr<pid_t> pid = SpawnSleeper();
  ASSERT_TRUE(pid.ok()) << pid.status();
  ASSERT_NO_FATAL_FAILURE(WaitUntilInside(*pid));
  // The overlay it runs on (the tmpfs under it lies outside its chroot).
  EXPECT_GE(IcountMounts(absl::StrCat("/proc/", *pid, "/mountinfo")), 1);
  EXPECT_EQ(IcountMounts("/proc/self/mountinfo"), 0);
  kill(*pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(*pid, &status, 0), *pid);
  EXPECT_EQ(IcountMounts("/proc/self/mountinfo"), 0);
}

// A tool killed while a build or a worker runs in a root: what it started
// there is killed with it, not left running (a --batch Bazel would build on
// for minutes, its mounts with it).
TEST_F(EnterRootTest, TheCommandEndsWithTheProcessThatStartedIt) {
  // Orphans come to this test, which can then wait for the command.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  const pid_t starter = fork();
  ASSERT_GE(starter, 0);
  if (starter == 0) {
    if (!SpawnSleeper().ok()) _exit(1);
    pause();
    _exit(0);
  }
  ASSERT_NO_FATAL_FAILURE(WaitUntilInside(starter));
  const pid_t command = std::stoi(base::ReadFileToString(ready_).value());
  int status = 0;
  kill(starter, SIGKILL);
  ASSERT_EQ(waitpid(starter, &status, 0), starter);
  // The command, now this test's, ends at once; 20 s is the bound.
  pid_t ended = 0;
  for (int waited = 0; ended == 0 && waited < 2000; ++waited) {
    ended = waitpid(command, &status, WNOHANG);
    if (ended == 0) usleep(10000);
  }
  if (ended == 0) {
    kill(command, SIGKILL);
    waitpid(command, nullptr, 0);
  }
  prctl(PR_SET_CHILD_SUBREAPER, 0);
  ASSERT_EQ(ended, command) << "the command outlived the process that started enter_root";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
}

TEST_F(EnterRootTest, BadRootsAreRefusedWithWhy) {
  std::vector<std::string> command = Command("true");
  command[1] = "--root=" + scratch_;  // no usr/
  absl::StatusOr<base::CommandResult> result = base::RunCommand(command);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_code, 1);
  EXPECT_THAT(result->output, HasSubstr(absl::StrCat(scratch_, " is not a root filesystem")));
  command = Command("true");
  command[2] = "--bind=" + scratch_ + "/missing";
  result = base::RunCommand(command);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_code, 1);
  EXPECT_THAT(result->output, HasSubstr("/missing inside the root: it is not a directory"));
  command = Command("true");
  command[2] = "--bind=relative/dir";
  result = base::RunCommand(command);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_code, 1);
  EXPECT_THAT(result->output,
              HasSubstr("cannot show relative/dir inside the root: give its absolute path ("));
}

}  // namespace
}  // namespace icount::environment
