// Two tests that each count a lambda, for callable_callgrind_test to run
// with a gtest filter: the binary re-executed under valgrind must run the
// same filtered tests, or its first CollectCallgrind call would be the
// other test's lambda.
#include <ATen/core/Tensor.h>
#include <ATen/ops/add.h>
#include <ATen/ops/ones.h>

#include <cstdio>
#include <vector>

#include "gtest/gtest.h"
#include "timer/timer.h"

namespace icount::timer {
namespace {

void PrintCounts(const Timer& timer, const char* name) {
  CallgrindOptions options;
  options.number = 100;
  absl::StatusOr<std::vector<CallgrindStats>> stats = timer.CollectCallgrind(options);
  ASSERT_TRUE(stats.ok()) << stats.status();
  std::printf("%s counts=%lld\n", name, static_cast<long long>((*stats)[0].Counts()));
}

TEST(ReplayedTests, AnEmptyLambda) {
  PrintCounts(Timer::ForCallable([] {}, {}, "empty"), "empty");
}

TEST(ReplayedTests, AnAdd) {
  at::Tensor x = at::ones({4, 4});
  PrintCounts(Timer::ForCallable([&] { at::add(x, x); }, {}, "add"), "add");
}

}  // namespace
}  // namespace icount::timer
