// Timer::CollectCallgrind for a C++ callable: the binary re-executes itself
// under valgrind and replays up to the same call. Kept in its own binary so
// the replay is short.
#include <ATen/core/Tensor.h>
#include <ATen/ops/add.h>
#include <ATen/ops/ones.h>

#include <sys/stat.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "base/files.h"
#include "base/runfiles_testutil.h"
#include "base/subprocess.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "timer/callgrind_command.h"
#include "timer/timer.h"

namespace icount::timer {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// The baseline is the same loop around an empty body: an empty lambda
// costs nothing a run. First in the file, so that its replay is short.
TEST(CallableCallgrindTest, AnEmptyLambdaCountsZeroARun) {
  Timer timer = Timer::ForCallable([] {}, TimerOptions{}, "an empty lambda");
  CallgrindOptions options;
  options.number = 100;
  absl::StatusOr<std::vector<CallgrindStats>> stats = timer.CollectCallgrind(options);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_GT((*stats)[0].BaselineCounts(), 0);
  EXPECT_EQ((*stats)[0].Counts(), (*stats)[0].BaselineCounts());
  EXPECT_EQ((*stats)[0].CountsPerRun(), 0.0);
}

TEST(CallableCallgrindTest, CountsALambdaWithIdenticalRepeats) {
  at::Tensor x = at::ones({4, 4});
  at::Tensor y = at::ones({4, 4});
  TimerOptions timer_options;
  timer_options.label = "add";
  Timer timer = Timer::ForCallable([&] { at::add(x, y); }, timer_options, "at::add(x, y)");
  CallgrindOptions options;
  options.number = 100;
  options.repeats = 2;
  absl::StatusOr<std::vector<CallgrindStats>> first = timer.CollectCallgrind(options);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->size(), 2u);
  EXPECT_GT((*first)[0].CountsPerRun(), 1000);  // thousands of instructions per add
  EXPECT_EQ((*first)[0].Counts(), (*first)[1].Counts());
  EXPECT_EQ((*first)[0].task_spec().stmt, "at::add(x, y)");
  // A second call replays the first one (measured for real in the
  // re-executed process); what that leaves behind shifts counts (the
  // history effect; see docs/counts.md): 1-2% depending on where the binary's
  // code and heap land (+2.02% with timer 0.8.0's layout), not the 2x of
  // measuring the wrong region.
  absl::StatusOr<std::vector<CallgrindStats>> second = timer.CollectCallgrind(options);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_NEAR((*second)[0].Counts(), (*first)[0].Counts(), (*first)[0].Counts() * 0.03);
}

// The same binary counts the same from anywhere: the second run is a
// copy at a path 200 bytes longer, with a TMPDIR 200 bytes longer (before
// base::ProgramPlace, the copy counted 1.6% fewer instructions, the
// TMPDIR 6 more).
TEST(CallableCallgrindTest, SameBinarySameCountFromPathsOfAnyLength) {
  const std::string binary =
      base::TestRunfile("icount/timer/testdata/lambda_counts");
  const std::string tmp = std::getenv("TEST_TMPDIR");
  const std::string long_directory = tmp + "/" + std::string(100, 'd') + "/" + std::string(99, 'd');
  const std::string long_tmpdir = tmp + "/" + std::string(100, 't') + "/" + std::string(99, 't');
  ASSERT_TRUE(base::MakeDirectories(long_directory).ok());
  ASSERT_TRUE(base::MakeDirectories(long_tmpdir).ok());
  absl::StatusOr<std::string> contents = base::ReadFileToString(binary);
  ASSERT_TRUE(contents.ok()) << contents.status();
  const std::string copy = long_directory + "/lambda_counts";
  ASSERT_TRUE(base::WriteFileAtomically(copy, *contents).ok());
  ASSERT_EQ(chmod(copy.c_str(), 0755), 0);
  std::vector<std::string> outputs;
  for (const auto& [program, tmpdir] : {std::pair(binary, tmp), std::pair(copy, long_tmpdir)}) {
    base::CommandOptions options;
    options.env = {"PATH=/usr/bin:/bin", "TMPDIR=" + tmpdir};
    absl::StatusOr<base::CommandResult> result = base::RunCommand({program}, options);
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_EQ(result->exit_code, 0) << result->output;
    outputs.push_back(result->output);
  }
  EXPECT_THAT(outputs[0], StartsWith("counts="));
  EXPECT_EQ(outputs[0], outputs[1]);
}

// The output of `command` run with `env` (besides PATH and TMPDIR), which
// must end with `exit_code`.
std::string OutputOf(const std::vector<std::string>& command, std::vector<std::string> env,
                     int exit_code) {
  base::CommandOptions options;
  env.push_back("PATH=/usr/bin:/bin");
  env.push_back(std::string("TMPDIR=") + std::getenv("TEST_TMPDIR"));
  options.env = std::move(env);
  absl::StatusOr<base::CommandResult> result = base::RunCommand(command, options);
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return "";
  EXPECT_EQ(result->exit_code, exit_code) << result->output;
  return result->output;
}

// A program whose path to the call depends on what the replay does not
// keep (here a variable) reaches another statement there when re-executed:
// an error that names both, never the other statement's counts.
TEST(CallableCallgrindTest, AReplayThatReachesAnotherStatementIsAnError) {
  const std::string output = OutputOf({base::TestRunfile("icount/timer/testdata/lambda_counts")},
                                      {"LAMBDA_COUNTS_EXTRA_CALL=1"}, 1);
  EXPECT_THAT(output, StartsWith("CollectCallgrind call 1 of this process measures \"an empty "
                                 "lambda\", but in the binary re-executed to measure it call 1 "
                                 "is \"[C++ callable]\": the program took another path there; "
                                 "a re-executed binary replays its program"));
}

// A test binary run with a filter (bazel test --test_filter sets
// TESTBRIDGE_TEST_ONLY) replays the same tests: the filtered-in test's
// lambda is measured, not the first test's.
TEST(CallableCallgrindTest, AFilteredTestBinaryReplaysTheSameTests) {
  const std::string output = OutputOf({base::TestRunfile("icount/timer/testdata/replayed_tests")},
                                      {"TESTBRIDGE_TEST_ONLY=ReplayedTests.AnAdd"}, 0);
  EXPECT_THAT(output, Not(HasSubstr("empty counts=")));
  const size_t counts = output.find("add counts=");
  ASSERT_NE(counts, std::string::npos) << output;
  // Thousands of instructions a run of 100 runs, not an empty lambda's few.
  EXPECT_GT(std::atoll(output.c_str() + counts + 11), 100000) << output;
}

// A program its user starts under valgrind (a tool, or callgrind's default
// options) is told to run outside it: the collection's client requests
// assume the options CallgrindCommand gives, and would count nothing.
TEST(CallableCallgrindTest, AProgramStartedUnderValgrindByItsUserIsToldToRunOutsideIt) {
  absl::StatusOr<std::string> valgrind = FindValgrind();
  ASSERT_TRUE(valgrind.ok()) << valgrind.status();
  const std::string output = OutputOf(
      {*valgrind, "--tool=none", "-q", base::TestRunfile("icount/timer/testdata/lambda_counts")},
      {}, 1);
  EXPECT_THAT(output, StartsWith("this process runs under valgrind, but not as icount starts "
                                 "one (ICOUNT_CALLGRIND_OUT_DIR is not set): run the program "
                                 "outside valgrind"));
}

}  // namespace
}  // namespace icount::timer
