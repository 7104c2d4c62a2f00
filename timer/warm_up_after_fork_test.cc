// CallgrindOptions::warm_up_after_fork: each repeat's process runs the
// whole statement, warm-up included, forked before any of it. The
// statement here fails, as backward does on PyTorch 2.x, when it runs in a
// process forked after it first ran; it is counted only if nothing of it
// ran before the fork. Its own binary: the callable's collection replays
// this test under valgrind up to the call.
#include <unistd.h>

#include <stdexcept>
#include <vector>

#include "gtest/gtest.h"
#include "timer/timer.h"

namespace icount::timer {
namespace {

// The process that first ran the statement.
pid_t first_run_pid = 0;

void RefusesAForkAfterItsFirstRun() {
  if (first_run_pid == 0) first_run_pid = getpid();
  if (first_run_pid != getpid()) {
    throw std::runtime_error("run in a process forked after its first run");
  }
}

TEST(WarmUpAfterForkTest, EachRepeatRunsTheWholeStatementInItsOwnProcess) {
  Timer timer = Timer::ForCallable(&RefusesAForkAfterItsFirstRun, TimerOptions{},
                                   "RefusesAForkAfterItsFirstRun()");
  CallgrindOptions options;
  options.number = 10;
  options.repeats = 2;
  options.warm_up_after_fork = true;
  absl::StatusOr<std::vector<CallgrindStats>> stats = timer.CollectCallgrind(options);
  ASSERT_TRUE(stats.ok()) << stats.status();
  ASSERT_EQ(stats->size(), 2u);
  EXPECT_GT((*stats)[0].CountsPerRun(), 0);
  EXPECT_EQ((*stats)[0].Counts(), (*stats)[1].Counts());
}

// The same for a C++ string, which the runner shipped with //timer
// measures: the option reaches it.
TEST(WarmUpAfterForkTest, AStringsRunnerRunsTheWholeStatementInEachRepeatsProcess) {
  absl::StatusOr<Timer> timer = Timer::ForCpp(
      "if (first_run_pid == 0) first_run_pid = getpid();\n"
      "if (first_run_pid != getpid()) throw std::runtime_error(\"forked after its first run\");",
      "", "#include <unistd.h>\n#include <stdexcept>\nstatic pid_t first_run_pid = 0;");
  ASSERT_TRUE(timer.ok()) << timer.status();
  CallgrindOptions options;
  options.number = 10;
  options.repeats = 2;
  options.warm_up_after_fork = true;
  absl::StatusOr<std::vector<CallgrindStats>> stats = timer->CollectCallgrind(options);
  ASSERT_TRUE(stats.ok()) << stats.status();
  ASSERT_EQ(stats->size(), 2u);
  EXPECT_GT((*stats)[0].CountsPerRun(), 0);
  EXPECT_EQ((*stats)[0].Counts(), (*stats)[1].Counts());

  // Without it the warm-up runs before the repeats fork, and the repeat's
  // error and its template's are both said.
  options.warm_up_after_fork = false;
  EXPECT_EQ(timer->CollectCallgrind(options).status().message(),
            "C++ statement threw: forked after its first run; the measured statement failed in a "
            "measured block");
}

}  // namespace
}  // namespace icount::timer
