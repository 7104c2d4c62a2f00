#include "timer/timer.h"

#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/add.h>
#include <ATen/ops/ones.h>

#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::timer {
namespace {

using ::testing::HasSubstr;

// A clock that only moves when the statement says so: each run of the
// statement costs `seconds_per_run`, each block pays `overhead_per_block`
// (the clock reads themselves). Makes the autorange algorithms exact.
struct FakeTime {
  double now = 0;
  double seconds_per_run = 1e-6;
  double overhead_per_block = 0;
  double Read() {
    now += overhead_per_block / 2;
    return now;
  }
  Clock AsClock() {
    return [this] { return Read(); };
  }
  int64_t runs = 0;
  void Run() {
    now += seconds_per_run;
    ++runs;
  }
};

Timer FakeTimer(FakeTime& time) {
  TimerOptions options;
  options.clock = time.AsClock();
  options.label = "fake";
  return Timer::ForCallable([&time] { time.Run(); }, options, "time.Run()");
}

TEST(TimerCallableTest, TimeitWarmsUpThenTimesOneBlock) {
  FakeTime time;
  TimerOptions options;
  options.clock = time.AsClock();
  Timer timer = Timer::ForCallable([&] { time.Run(); }, options);
  absl::StatusOr<Measurement> m = timer.Timeit(1000);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(time.runs, 1000 + 10);  // warm-up: number / 100
  EXPECT_EQ(m->number_per_run(), 1000);
  ASSERT_EQ(m->raw_times().size(), 1u);
  EXPECT_NEAR(m->raw_times()[0], 1000 * 1e-6, 1e-15);
  EXPECT_NEAR(m->Median(), 1e-6, 1e-15);
  EXPECT_EQ(m->task_spec().stmt, "[C++ callable]");
  EXPECT_EQ(m->task_spec().language, Language::kCpp);
}

TEST(TimerCallableTest, BlockedAutorangeBlockSizeAndCountUnderAFakeClock) {
  FakeTime time;
  time.seconds_per_run = 1e-6;
  time.overhead_per_block = 1e-9;
  std::vector<int64_t> numbers;
  Timer timer = FakeTimer(time);
  absl::StatusOr<Measurement> m =
      timer.BlockedAutorange(0.2, [&](int64_t number, double) { numbers.push_back(number); });
  ASSERT_TRUE(m.ok()) << m.status();
  // Overhead 1e-9 s; the block size grows by 10 until overhead/time <= 1e-4
  // and time >= 0.2 ms: 10^4 runs take 1e-2 s (relative overhead 1e-7).
  // Then 10^2 runs = 1e-4 s fails the time rule, 10^3 = 1e-3 s passes.
  EXPECT_EQ(m->number_per_run(), 1000);
  // Blocks of (1e-3 + 1e-9) s until 0.2 s have been spent: 200 blocks.
  EXPECT_EQ(m->raw_times().size(), 200u);
  EXPECT_EQ(numbers.size(), 200u);
  EXPECT_NEAR(m->Median(), 1e-6, 1e-12);
}

TEST(TimerCallableTest, ALooserBlockRuleTimesMoreSmallerBlocks) {
  // A Python-like block overhead: 1 us per block, 1 us per run.
  FakeTime time;
  time.seconds_per_run = 1e-6;
  time.overhead_per_block = 1e-6;
  Timer timer = FakeTimer(time);
  // The reference's rule: overhead <= 1e-4 of a block needs 10^4 runs
  // (1e-2 s): 5 blocks in 0.05 s.
  absl::StatusOr<Measurement> reference = timer.BlockedAutorange(0.05);
  ASSERT_TRUE(reference.ok()) << reference.status();
  EXPECT_EQ(reference->number_per_run(), 10000);
  EXPECT_EQ(reference->raw_times().size(), 5u);
  // The suite's: overhead <= 1e-3 and a block >= 1% of 0.05 s: 10^3 runs
  // (1e-3 s), 50 blocks.
  absl::StatusOr<Measurement> suite = timer.BlockedAutorange(0.05, nullptr, BlockRule{1e-3, 1e-2});
  ASSERT_TRUE(suite.ok()) << suite.status();
  EXPECT_EQ(suite->number_per_run(), 1000);
  EXPECT_EQ(suite->raw_times().size(), 50u);
}

TEST(TimerCallableTest, ASlowFirstRunDoesNotPickTheBlockSize) {
  // The first run in a fresh process is slow (faults, lazy set-up): 2 ms
  // here, enough to pass the loose rule on its own with one run a block.
  FakeTime time;
  time.overhead_per_block = 1e-6;
  int runs = 0;
  TimerOptions options;
  options.clock = time.AsClock();
  Timer timer = Timer::ForCallable([&] { time.now += ++runs == 1 ? 2e-3 : 1e-6; }, options);
  absl::StatusOr<Measurement> m = timer.BlockedAutorange(0.05, nullptr, BlockRule{1e-3, 1e-2});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->number_per_run(), 1000);
}

TEST(TimerCallableTest, ABlockRuleMustBePositive) {
  FakeTime time;
  Timer timer = FakeTimer(time);
  absl::StatusOr<Measurement> m = timer.BlockedAutorange(0.05, nullptr, BlockRule{0, 1e-2});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(m.status().message(), HasSubstr("BlockRule::max_timer_overhead"));
}

TEST(TimerCallableTest, TimeBlocksTakesTheBlockSizeItIsGiven) {
  FakeTime time;
  time.seconds_per_run = 1e-6;
  time.overhead_per_block = 1e-6;
  Timer timer = FakeTimer(time);
  absl::StatusOr<Measurement> m = timer.TimeBlocks(100, 0.05);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->number_per_run(), 100);
  // A block spans half of each of its two clock reads: 1.005e-4 s, so 498
  // blocks reach 0.05 s, after one untimed block.
  EXPECT_EQ(m->raw_times().size(), 498u);
  EXPECT_EQ(time.runs, 100 * (498 + 1));
  absl::StatusOr<Measurement> none = timer.TimeBlocks(0, 0.05);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(none.status().message(), HasSubstr("number must be in [1, 2147483647], got 0"));
}

TEST(TimerCallableTest, BlockSizeStopsBelowTwoToThe31) {
  // A statement so cheap that even 10^9 runs (1e-6 s on this fake clock)
  // keep the clock-read overhead (1e-9 s, the floor) above 1e-4 of a block
  // and stay under min_run_time: only the 2^31 cap ends the growth. The
  // clock is derived from an integer run count, so block times are exact.
  int64_t runs = 0;
  TimerOptions options;
  options.clock = [&runs] { return static_cast<double>(runs) * 1e-15; };
  Timer timer = Timer::ForCallable([&runs] { ++runs; }, options);
  absl::StatusOr<Measurement> m = timer.BlockedAutorange(1.5e-6);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->number_per_run(), 1000000000);  // 10^10 would pass 2^31 - 1
  EXPECT_EQ(m->raw_times().size(), 2u);        // 2 x 1e-6 s >= 1.5e-6 s
}

TEST(TimerCallableTest, AdaptiveAutorangeStopsWhenConfident) {
  FakeTime time;
  time.overhead_per_block = 1e-9;
  Timer timer = FakeTimer(time);
  absl::StatusOr<Measurement> m = timer.AdaptiveAutorange(0.1, 0.01, 10.0);
  ASSERT_TRUE(m.ok()) << m.status();
  // Block size for 0.05 s: 10 runs (1e-5 s) miss 0.05 s / 1000; 100 runs
  // (1e-4 s) pass it with relative overhead 1e-5.
  EXPECT_EQ(m->number_per_run(), 100);
  // Identical blocks meet confidence at once; only min_run_time (0.01 s)
  // and "more than 3 blocks" hold it: 100 blocks of 1e-4 s.
  EXPECT_EQ(m->raw_times().size(), 100u);
}

TEST(TimerCallableTest, AdaptiveAutorangeGivesUpAtMaxRunTime) {
  FakeTime time;
  int64_t runs = 0;
  TimerOptions options;
  options.clock = time.AsClock();
  // Every other block is 10x slower: never within 10% IQR.
  Timer timer = Timer::ForCallable(
      [&] {
        ++runs;
        time.now += ((runs / 1000) % 2 == 0) ? 1e-6 : 1e-5;
      },
      options);
  absl::StatusOr<Measurement> m = timer.AdaptiveAutorange(0.1, 0.01, 0.5);
  ASSERT_TRUE(m.ok());
  EXPECT_FALSE(m->MeetsConfidence(0.1));
  double total = 0;
  for (double t : m->raw_times()) total += t;
  EXPECT_GT(total, 0.5);
  EXPECT_LT(total, 0.5 + 0.011);  // stops after the block that crosses it
}

TEST(TimerCallableTest, InvalidArguments) {
  FakeTime time;
  Timer timer = FakeTimer(time);
  EXPECT_EQ(timer.BlockedAutorange(0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(timer.BlockedAutorange(-1).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(timer.AdaptiveAutorange(0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(timer.AdaptiveAutorange(0.1, 0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(timer.Timeit(0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(timer.TimeBlock(-5).status().code(), absl::StatusCode::kInvalidArgument);
}

// ForCallable returns a Timer, not a Status: its measuring calls refuse a
// thread count LibTorch would throw on, rather than ending the program.
TEST(TimerCallableTest, ANonPositiveThreadCountIsRefusedByEveryMeasurement) {
  for (int threads : {0, -1}) {
    TimerOptions options;
    options.num_threads = threads;
    Timer timer = Timer::ForCallable([] {}, options, "nothing");
    const std::string expected = "Timer of \"nothing\": num_threads must be positive, got " +
                                 std::to_string(threads) + " (TimerOptions)";
    EXPECT_EQ(timer.Timeit(100).status().message(), expected);
    EXPECT_EQ(timer.BlockedAutorange(0.01).status().message(), expected);
    EXPECT_EQ(timer.TimeBlocks(10, 0.01).status().message(), expected);
    EXPECT_EQ(timer.AdaptiveAutorange().status().message(), expected);
    EXPECT_EQ(timer.CollectCallgrind().status().message(), expected);
    EXPECT_EQ(timer.CollectCallgrindDumps({}).status().message(), expected);
  }
}

// A measured process that never reports is killed at the timeout, and the
// collection says so. The valgrind here is a stand-in that hangs as a
// blocked replay would.
TEST(TimerCallableTest, CollectCallgrindEndsAHangAtItsTimeout) {
  const std::string bin = std::string(std::getenv("TEST_TMPDIR")) + "/hanging_valgrind";
  ASSERT_TRUE(base::MakeDirectories(bin).ok());
  ASSERT_TRUE(base::WriteFileAtomically(bin + "/valgrind", "#!/bin/sh\nexec sleep 600\n").ok());
  ASSERT_EQ(chmod((bin + "/valgrind").c_str(), 0755), 0);
  const std::string path = std::getenv("PATH");
  setenv("PATH", (bin + ":" + path).c_str(), 1);
  Timer timer = Timer::ForCallable([] {}, {}, "nothing");
  CallgrindOptions options;
  options.timeout_seconds = 1;
  absl::StatusOr<std::vector<CallgrindStats>> stats = timer.CollectCallgrind(options);
  setenv("PATH", path.c_str(), 1);
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.status().code(), absl::StatusCode::kDeadlineExceeded) << stats.status();
  EXPECT_THAT(std::string(stats.status().message()),
              HasSubstr("had not reported counts when it was killed at its timeout of 1 s "
                        "(CallgrindOptions::timeout_seconds) for CollectCallgrind call 1 "
                        "(\"nothing\")"));

  options.timeout_seconds = -1;
  EXPECT_EQ(timer.CollectCallgrind(options).status().message(),
            "CollectCallgrind: timeout_seconds (-1) must be a finite number >= 0 (0: no limit)");
}

TEST(TimerCallableTest, ThrowingStatementIsAStatus) {
  Timer c10_error = Timer::ForCallable([] { at::ones({2, 2}).view({3}); });
  absl::StatusOr<Measurement> m = c10_error.Timeit(10);
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("shape '[3]' is invalid"));

  Timer std_error = Timer::ForCallable([] { throw std::runtime_error("boom"); });
  EXPECT_THAT(std::string(std_error.Timeit(10).status().message()), HasSubstr("boom"));
}

TEST(TimerCallableTest, NumThreadsIsSetForTheMeasurementAndRestored) {
  at::set_num_threads(2);
  int seen = 0;
  TimerOptions options;
  options.num_threads = 1;
  Timer timer = Timer::ForCallable([&] { seen = at::get_num_threads(); }, options);
  ASSERT_TRUE(timer.Timeit(5).ok());
  EXPECT_EQ(seen, 1);
  EXPECT_EQ(at::get_num_threads(), 2);
  ASSERT_TRUE(timer.BlockedAutorange(0.001).ok());
  EXPECT_EQ(at::get_num_threads(), 2);
}

TEST(TimerCallableTest, MeasuresARealTorchOp) {
  at::Tensor x = at::ones({4, 4});
  TimerOptions options;
  options.label = "add";
  Timer timer = Timer::ForCallable([&] { at::add(x, x); }, options, "at::add(x, x)");
  absl::StatusOr<Measurement> m = timer.BlockedAutorange(0.05);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_GT(m->Median(), 1e-8);  // an ATen call is never free
  EXPECT_LT(m->Median(), 1e-2);
  EXPECT_THAT(m->Summary(), HasSubstr("add\n  Median: "));
}

}  // namespace
}  // namespace icount::timer
