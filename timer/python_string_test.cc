// Timer::ForPython: Python statement strings in embedded CPython 3.11.
#include <ATen/Parallel.h>

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "timer/timer.h"

namespace icount::timer {
namespace {

using ::testing::HasSubstr;

TEST(PythonStringTest, MeasuresTorchAdd) {
  TimerOptions options;
  options.label = "add";
  absl::StatusOr<Timer> timer =
      Timer::ForPython("torch.add(x, y)", "x = torch.ones(4, 4)\ny = torch.ones(4, 4)", options);
  ASSERT_TRUE(timer.ok()) << timer.status();
  absl::StatusOr<Measurement> m = timer->BlockedAutorange(0.05);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_GT(m->Median(), 1e-8);
  EXPECT_EQ(m->task_spec().language, Language::kPython);
}

// What another process reports for a Timer it did not make (the suite's
// worker, for its case processes) is what the Timer reports itself.
TEST(PythonStringTest, StringTaskSpecIsTheTimersSpec) {
  TimerOptions options;
  options.label = "add";
  options.num_threads = 2;
  absl::StatusOr<Timer> timer =
      Timer::ForPython("\n    torch.add(x, y)\n    ", "\n  x = torch.ones(4, 4)\n  y = x\n  ",
                       options);
  ASSERT_TRUE(timer.ok()) << timer.status();
  TaskSpec given;
  given.stmt = "\n    torch.add(x, y)\n    ";
  given.setup = "\n  x = torch.ones(4, 4)\n  y = x\n  ";
  given.global_setup = "#include <vector>";  // C++ only: dropped
  given.label = "add";
  given.num_threads = 2;
  given.language = Language::kPython;
  const TaskSpec spec = Timer::StringTaskSpec(given);
  EXPECT_EQ(spec, timer->task_spec());
  EXPECT_EQ(spec.stmt, "torch.add(x, y)");
  EXPECT_EQ(spec.setup, "x = torch.ones(4, 4)\ny = x");
  EXPECT_EQ(spec.global_setup, "");
  // In C++, Python's default setup "pass" means none.
  given.language = Language::kCpp;
  given.setup = "pass";
  EXPECT_EQ(Timer::StringTaskSpec(given).setup, "");
  EXPECT_EQ(Timer::StringTaskSpec(given).global_setup, "#include <vector>");
}

TEST(PythonStringTest, RunsEachRunAndSetupPerBlock) {
  // The statement appends to a list made by setup: after Timeit(50) with
  // its warm-up of 2 runs, the last block saw exactly 50 runs.
  absl::StatusOr<Timer> timer =
      Timer::ForPython("calls.append(1)\nassert len(calls) <= 50, len(calls)", "calls = []");
  ASSERT_TRUE(timer.ok()) << timer.status();
  EXPECT_TRUE(timer->Timeit(50).ok());
}

TEST(PythonStringTest, ExceptionComesBackWithItsTraceback) {
  absl::StatusOr<Timer> timer = Timer::ForPython("y = x.view(3)", "x = torch.ones(2, 2)");
  ASSERT_TRUE(timer.ok()) << timer.status();
  absl::StatusOr<Measurement> m = timer->Timeit(10);
  ASSERT_FALSE(m.ok());
  const std::string message(m.status().message());
  EXPECT_THAT(message, HasSubstr("Traceback"));
  EXPECT_THAT(message, HasSubstr("y = x.view(3)"));  // the failing line itself
  EXPECT_THAT(message, HasSubstr("RuntimeError: shape '[3]' is invalid"));
}

TEST(PythonStringTest, SyntaxErrorIsInvalidArgument) {
  absl::StatusOr<Timer> timer = Timer::ForPython("x = = 1");
  ASSERT_FALSE(timer.ok());
  EXPECT_EQ(timer.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(timer.status().message()), HasSubstr("SyntaxError"));
}

TEST(PythonStringTest, NumThreadsReachesTorchAndIsRestored) {
  at::set_num_threads(2);
  TimerOptions options;
  options.num_threads = 1;
  absl::StatusOr<Timer> timer =
      Timer::ForPython("assert torch.get_num_threads() == 1", "pass", options);
  ASSERT_TRUE(timer.ok()) << timer.status();
  absl::StatusOr<Measurement> m = timer->Timeit(3);
  EXPECT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(at::get_num_threads(), 2);
}

TEST(PythonStringTest, EmptyStatementIsRejected) {
  EXPECT_EQ(Timer::ForPython("").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace icount::timer
