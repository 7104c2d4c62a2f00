#include "cli/tool_flags.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "compare/version.h"
#include "expand/version.h"
#include "fuzzer/version.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "history/version.h"
#include "report/version.h"
#include "slurm/version.h"
#include "timer/version.h"
#include "worker/version.h"

ABSL_FLAG(int, cli_test_repeats, 3, "A flag defined outside //tools.");
ABSL_FLAG(std::string, cli_test_label, "", "A string flag with an empty default.");
ABSL_FLAG(bool, cli_test_self_check, false, "A flag for checking icount itself.");

namespace icount::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Exit {
  int code = -1;
  std::string stdout_text;
};

// ParseToolFlags in a child (--help and --version exit), capturing stdout.
Exit RunParse(std::vector<std::string> args) {
  int pipe_fds[2];
  EXPECT_EQ(pipe(pipe_fds), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(pipe_fds[1], 1);
    close(pipe_fds[0]);
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    ParseToolFlags(static_cast<int>(argv.size()), argv.data(), "Tests flags.\n\nUsage: demo",
                   {"cli_test_self_check"});
    std::fflush(stdout);
    _exit(absl::GetFlag(FLAGS_cli_test_repeats));
  }
  close(pipe_fds[1]);
  Exit exit;
  char buffer[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof(buffer))) > 0;) {
    exit.stdout_text.append(buffer, static_cast<size_t>(n));
  }
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  exit.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return exit;
}

TEST(ToolFlagsTest, HelpListsTheProgramsOwnFlagsNamesItAndSucceeds) {
  const Exit help = RunParse({"/path/to/demo", "--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_THAT(help.stdout_text, HasSubstr("demo: Tests flags."));
  EXPECT_THAT(help.stdout_text, Not(HasSubstr("UNKNOWN")));
  EXPECT_THAT(help.stdout_text, Not(HasSubstr("--flagfile")));  // abseil's own: --helpfull
}

TEST(ToolFlagsTest, HelpShowsEachFlagWithItsDefaultAndGroupsSelfChecksLast) {
  const std::string help = RunParse({"demo", "--help"}).stdout_text;
  EXPECT_THAT(help, HasSubstr("\nFlags:\n  --cli_test_label=\"\"\n"
                              "      A string flag with an empty default.\n"
                              "  --cli_test_repeats=3\n"
                              "      A flag defined outside //tools.\n"));
  const size_t self_checks =
      help.find("\nFor checking icount itself:\n  --cli_test_self_check=false\n");
  ASSERT_NE(self_checks, std::string::npos) << help;
  EXPECT_GT(self_checks, help.find("--cli_test_repeats"));
}

TEST(ToolFlagsTest, VersionPrintsTheLibraryVersions) {
  const Exit version = RunParse({"demo", "--version"});
  EXPECT_EQ(version.code, 0);
  EXPECT_EQ(version.stdout_text, LibraryVersions() + "\n");
  EXPECT_THAT(version.stdout_text, HasSubstr("timer "));
  EXPECT_THAT(version.stdout_text, HasSubstr("worker "));
}

// Every library in the order --version prints them, each with the version
// its own header declares.
TEST(ToolFlagsTest, LibraryVersionsNameEveryLibrary) {
  EXPECT_THAT(LibraryVersions(),
              ::testing::MatchesRegex("icount libraries: timer [0-9.]+, compare [0-9.]+, "
                                      "fuzzer [0-9.]+, expand [0-9.]+, worker [0-9.]+, "
                                      "history [0-9.]+, report [0-9.]+, slurm [0-9.]+"));
  const std::map<std::string, std::string> versions = LibraryVersionMap();
  EXPECT_EQ(versions.size(), 8u);
  EXPECT_EQ(versions.at("timer"), timer::kTimerVersion);
  EXPECT_EQ(versions.at("compare"), compare::kCompareVersion);
  EXPECT_EQ(versions.at("fuzzer"), fuzzer::kFuzzerVersion);
  EXPECT_EQ(versions.at("expand"), expand::kExpandVersion);
  EXPECT_EQ(versions.at("worker"), worker::kWorkerVersion);
  EXPECT_EQ(versions.at("history"), history::kHistoryVersion);
  EXPECT_EQ(versions.at("report"), report::kReportVersion);
  EXPECT_EQ(versions.at("slurm"), slurm::kSlurmVersion);
}

TEST(ToolFlagsTest, ParsesFlags) { EXPECT_EQ(RunParse({"demo", "--cli_test_repeats=7"}).code, 7); }

TEST(ToolFlagsTest, AnUnknownFlagIsAnError) {
  EXPECT_EQ(RunParse({"demo", "--no_such_flag"}).code, 1);
}

}  // namespace
}  // namespace icount::cli
