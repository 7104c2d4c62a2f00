// @icount//timer in another workspace's test: a lambda and a C++ string,
// wall time and instruction counts.
#include <torch/script.h>

#include <vector>

#include "gtest/gtest.h"
#include "timer/timer.h"

TEST(ConsumerTest, TimesALambdaAndASnippet) {
  torch::Tensor x = torch::ones({4, 4});
  icount::timer::Timer lambda = icount::timer::Timer::ForCallable([&] { torch::add(x, x); });
  absl::StatusOr<std::vector<icount::timer::CallgrindStats>> counts = lambda.CollectCallgrind();
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_GT((*counts)[0].CountsPerRun(), 1000);
  absl::StatusOr<icount::timer::Measurement> time = lambda.BlockedAutorange(0.05);
  ASSERT_TRUE(time.ok()) << time.status();
  EXPECT_GT(time->Median(), 0);

  absl::StatusOr<icount::timer::Timer> snippet =
      icount::timer::Timer::ForCpp("auto y = torch::add(x, x);", "auto x = torch::ones({4, 4});");
  ASSERT_TRUE(snippet.ok()) << snippet.status();
  absl::StatusOr<std::vector<icount::timer::CallgrindStats>> snippet_counts =
      snippet->CollectCallgrind();
  ASSERT_TRUE(snippet_counts.ok()) << snippet_counts.status();
  EXPECT_GT((*snippet_counts)[0].CountsPerRun(), 1000);
}
