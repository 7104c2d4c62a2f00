// Timer::CollectCallgrind for C++ and Python statement strings (each call
// starts callgrind_runner under valgrind: ~8 s for C++, ~15 s for Python,
// so each test starts as few as what it checks needs).
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "base/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "timer/timer.h"

namespace icount::timer {
namespace {

using ::testing::HasSubstr;

constexpr char kCppSetup[] = "auto x = torch::ones({4, 4}); auto y = torch::ones({4, 4});";

// torch::add allocates its result (TensorImpl, StorageImpl, data) and frees
// it at the end of every run: a whole number of allocations per run, as
// many frees, the same in every repeat. The 10 warm-up runs before the
// measured block must not count (with 50 measured runs they would make
// the figure 1.2 times a whole number).
void ExpectWholeAllocationsPerRun(const std::vector<CallgrindStats>& stats) {
  const std::optional<double> allocations = stats[0].AllocationsPerRun();
  ASSERT_TRUE(allocations.has_value());
  EXPECT_GE(*allocations, 3);
  EXPECT_EQ(*allocations, std::round(*allocations));
  EXPECT_EQ(stats[0].FreesPerRun(), allocations);
  for (const CallgrindStats& repeat : stats) EXPECT_EQ(repeat.AllocationsPerRun(), allocations);
}

// The same C++ statement counted in two processes, 3 repeats each, with a
// baseline and callgrind's cache simulation. Each collect starts a LibTorch
// process under valgrind (~15 s), so the two tests below share these two
// instead of starting their own.
class CppCollectsTest : public ::testing::Test {
 protected:
  static constexpr int kNumber = 50;

  static void SetUpTestSuite() {
    collects_ = new std::vector<absl::StatusOr<std::vector<CallgrindStats>>>;
    TimerOptions timer_options;
    timer_options.label = "add";
    absl::StatusOr<Timer> timer =
        Timer::ForCpp("auto z = torch::add(x, y);", kCppSetup, "", timer_options);
    for (int i = 0; i < 2; ++i) {
      if (!timer.ok()) {
        collects_->push_back(timer.status());
        continue;
      }
      CallgrindOptions options;
      options.number = kNumber;
      options.repeats = 3;
      options.cache_sim = true;
      options.retain_out_file = true;
      collects_->push_back(timer->CollectCallgrind(options));
    }
  }
  static void TearDownTestSuite() {
    delete collects_;
    collects_ = nullptr;
  }

  static std::vector<absl::StatusOr<std::vector<CallgrindStats>>>* collects_;
};

std::vector<absl::StatusOr<std::vector<CallgrindStats>>>* CppCollectsTest::collects_ = nullptr;

// Two processes give the same count and, with the cache simulation, the
// same estimated cycles, above the instructions (every instruction and
// data access costs at least a cycle).
TEST_F(CppCollectsTest, CountsAndCyclesRepeatExactlyAcrossProcesses) {
  std::vector<int64_t> counts;
  std::vector<double> cycles;
  for (int i = 0; i < 2; ++i) {
    const absl::StatusOr<std::vector<CallgrindStats>>& collect = (*collects_)[i];
    ASSERT_TRUE(collect.ok()) << collect.status();
    const std::vector<CallgrindStats>& stats = *collect;
    ASSERT_EQ(stats.size(), 3u);
    const CallgrindStats& first = stats[0];
    ASSERT_TRUE(first.cache_events().has_value());
    // The same region: the summary line's Ir, within the few instructions
    // of the client request that ends it.
    EXPECT_NEAR(static_cast<double>(first.cache_events()->ir), first.Counts(), 100);
    ASSERT_TRUE(first.EstimatedCyclesPerRun().has_value());
    EXPECT_GT(*first.EstimatedCyclesPerRun(), first.CountsPerRun());
    counts.push_back(first.Counts());
    cycles.push_back(*first.EstimatedCyclesPerRun());
  }
  EXPECT_GT(counts[0], kNumber * 1000);  // an ATen add is thousands of instructions
  EXPECT_EQ(counts[0], counts[1]);
  EXPECT_EQ(cycles[0], cycles[1]);
}

TEST_F(CppCollectsTest, RepeatsBaselineAndStats) {
  const absl::StatusOr<std::vector<CallgrindStats>>& collect = (*collects_)[0];
  ASSERT_TRUE(collect.ok()) << collect.status();
  const std::vector<CallgrindStats>& stats = *collect;
  ASSERT_EQ(stats.size(), 3u);
  const CallgrindStats& first = stats[0];
  EXPECT_EQ(first.number_per_run(), kNumber);
  ASSERT_TRUE(first.has_baseline());
  EXPECT_GT(first.BaselineCounts(), 0);
  EXPECT_LT(first.BaselineCounts(), first.Counts() / 10);
  EXPECT_GT(first.CountsPerRun(), 1000);
  EXPECT_DOUBLE_EQ(first.CountsPerRun(),
                   static_cast<double>(first.Counts() - first.BaselineCounts()) / kNumber);
  // Exclusive counts sum to the total; the hottest inclusive rows include
  // the ATen add kernel's callers.
  EXPECT_EQ(first.Stats(false).Sum(), first.Counts());
  bool saw_add = false;
  for (const FunctionCount& row : first.Stats(true).rows()) {
    saw_add |= row.function.function().find("add") != std::string::npos;
    // libhwy's timer (replaced by //third_party/libtorch so that valgrind
    // runs where CPUID hides RDTSCP) never runs in a measured region, so
    // the replacement cannot change counts.
    EXPECT_EQ(row.function.function().find("hwy::"), std::string::npos) << row.function.text();
    EXPECT_EQ(row.function.object().find("libhwy"), std::string::npos) << row.function.text();
  }
  EXPECT_TRUE(saw_add);
  ASSERT_TRUE(first.stmt_callgrind_out().has_value());
  EXPECT_THAT(first.Summary(), HasSubstr("add\n"));
  EXPECT_THAT(first.Summary(), HasSubstr("50 runs per measurement, 1 thread"));
  // Every repeat runs in a child forked from the same state: identical.
  EXPECT_EQ(stats[0].Counts(), stats[1].Counts());
  EXPECT_EQ(stats[1].Counts(), stats[2].Counts());
  ExpectWholeAllocationsPerRun(stats);
}

// The second process is started from a working directory 200 bytes
// deeper: a Python statement's counts do not follow its length.
TEST(CallgrindTest, PythonCountsRepeatExactlyAcrossProcessesAndWorkingDirectories) {
  absl::StatusOr<Timer> timer =
      Timer::ForPython("torch.add(x, y)", "x = torch.ones(4, 4)\ny = torch.ones(4, 4)");
  ASSERT_TRUE(timer.ok()) << timer.status();
  const std::string deeper = std::string(std::getenv("TEST_TMPDIR")) + "/" +
                             std::string(100, 'd') + "/" + std::string(99, 'd');
  ASSERT_TRUE(base::MakeDirectories(deeper).ok());
  char started_in[4096];
  ASSERT_NE(getcwd(started_in, sizeof(started_in)), nullptr);
  std::vector<int64_t> counts;
  for (int i = 0; i < 2; ++i) {
    if (i == 1) {
      ASSERT_EQ(chdir(deeper.c_str()), 0);
    }
    CallgrindOptions options;
    options.number = 100;
    absl::StatusOr<std::vector<CallgrindStats>> stats = timer->CollectCallgrind(options);
    ASSERT_EQ(chdir(started_in), 0);
    ASSERT_TRUE(stats.ok()) << stats.status();
    counts.push_back((*stats)[0].Counts());
  }
  EXPECT_GT(counts[0], 100 * 1000);
  EXPECT_EQ(counts[0], counts[1]);
}

// Without a baseline the runner measures in its own process and ends it as
// soon as the repeats are done (CallgrindOptions::on_measured): still one
// dump per repeat, each from the same state.
TEST(CallgrindTest, WithoutBaselineTheMeasuringProcessEndsOnceMeasured) {
  absl::StatusOr<Timer> timer = Timer::ForCpp("auto z = torch::add(x, y);", kCppSetup);
  ASSERT_TRUE(timer.ok()) << timer.status();
  CallgrindOptions options;
  options.number = 50;
  options.repeats = 3;
  options.collect_baseline = false;
  absl::StatusOr<std::vector<CallgrindStats>> stats = timer->CollectCallgrind(options);
  ASSERT_TRUE(stats.ok()) << stats.status();
  ASSERT_EQ(stats->size(), 3u);
  EXPECT_FALSE((*stats)[0].has_baseline());
  EXPECT_GT((*stats)[0].Counts(), 50 * 1000);
  EXPECT_EQ((*stats)[0].Counts(), (*stats)[1].Counts());
  EXPECT_EQ((*stats)[1].Counts(), (*stats)[2].Counts());
  ExpectWholeAllocationsPerRun(*stats);
  // No cache simulation unless asked for.
  EXPECT_FALSE((*stats)[0].EstimatedCyclesPerRun().has_value());
}

// The baseline is the same loop around an empty body: a C++ statement
// that compiles to no instruction costs nothing a run.
TEST(CallgrindTest, AnEmptyCppStatementCountsZeroARun) {
  absl::StatusOr<Timer> timer = Timer::ForCpp("asm volatile(\"\");", "", "");
  ASSERT_TRUE(timer.ok()) << timer.status();
  CallgrindOptions options;
  options.number = 50;
  absl::StatusOr<std::vector<CallgrindStats>> stats = timer->CollectCallgrind(options);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_GT((*stats)[0].BaselineCounts(), 0);
  EXPECT_EQ((*stats)[0].Counts(), (*stats)[0].BaselineCounts());
  EXPECT_EQ((*stats)[0].CountsPerRun(), 0.0);
}

// Both ways a statement is measured, in the runner's own process (no
// baseline) and in a template forked from it (with a baseline), report a
// statement's exception: a C++ one in the first, a Python one in the second.
TEST(CallgrindTest, ThrowingStatementReportsTheError) {
  absl::StatusOr<Timer> cpp = Timer::ForCpp("throw std::runtime_error(\"no counts for you\");");
  absl::StatusOr<Timer> python = Timer::ForPython("raise ValueError('no counts for you')");
  ASSERT_TRUE(cpp.ok()) << cpp.status();
  ASSERT_TRUE(python.ok()) << python.status();
  for (const bool collect_baseline : {false, true}) {
    CallgrindOptions options;
    options.collect_baseline = collect_baseline;
    const Timer& timer = collect_baseline ? *python : *cpp;
    absl::StatusOr<std::vector<CallgrindStats>> stats = timer.CollectCallgrind(options);
    ASSERT_FALSE(stats.ok()) << collect_baseline;
    EXPECT_THAT(std::string(stats.status().message()), HasSubstr("no counts for you"))
        << collect_baseline;
  }
}

// Counts are always taken in a child under valgrind: a statement that
// crashes there is an error naming the signal, and the caller lives on.
TEST(CallgrindTest, CrashingStatementIsAnErrorNotACrash) {
  absl::StatusOr<Timer> timer = Timer::ForCpp("volatile int* p = nullptr; *p = 1;", "", "");
  ASSERT_TRUE(timer.ok()) << timer.status();
  CallgrindOptions options;
  options.collect_baseline = false;
  absl::StatusOr<std::vector<CallgrindStats>> stats = timer->CollectCallgrind(options);
  ASSERT_FALSE(stats.ok());
  EXPECT_THAT(std::string(stats.status().message()), HasSubstr("signal 11"));
}

TEST(CallgrindTest, InvalidOptions) {
  absl::StatusOr<Timer> timer = Timer::ForPython("pass");
  ASSERT_TRUE(timer.ok());
  CallgrindOptions options;
  options.repeats = 0;
  EXPECT_EQ(timer->CollectCallgrind(options).status().code(), absl::StatusCode::kInvalidArgument);
  // A dump tag names files: no path separators, spaces or long names.
  for (const char* tag : {"a/b", "two words", "0123456789012345678901234567890123456789x"}) {
    CallgrindOptions tagged;
    tagged.dump_tag = tag;
    const absl::Status status = timer->CollectCallgrind(tagged).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << tag;
    EXPECT_THAT(std::string(status.message()), HasSubstr("dump_tag")) << tag;
  }
}

}  // namespace
}  // namespace icount::timer
