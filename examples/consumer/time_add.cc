// Using @icount//timer from another workspace: wall time and instruction
// counts of torch::add, as a lambda and as a C++ string.
#include <torch/script.h>

#include <cstdio>
#include <string>
#include <vector>

#include "timer/timer.h"

int main() {
  torch::Tensor x = torch::ones({4, 4});
  icount::timer::TimerOptions options;
  options.label = "add";
  icount::timer::Timer lambda =
      icount::timer::Timer::ForCallable([&] { torch::add(x, x); }, options, "torch::add(x, x)");
  // Instruction counts first: collecting them re-executes this binary up to
  // this call, so keep it early and deterministic.
  absl::StatusOr<std::vector<icount::timer::CallgrindStats>> counts = lambda.CollectCallgrind();
  absl::StatusOr<icount::timer::Measurement> time = lambda.BlockedAutorange(0.1);
  absl::StatusOr<icount::timer::Timer> snippet = icount::timer::Timer::ForCpp(
      "auto y = torch::add(x, x);", "auto x = torch::ones({4, 4});", "", options);
  if (!counts.ok() || !time.ok() || !snippet.ok()) {
    std::fprintf(stderr, "error: %s %s %s\n", std::string(counts.status().message()).c_str(),
                 std::string(time.status().message()).c_str(),
                 std::string(snippet.status().message()).c_str());
    return 1;
  }
  absl::StatusOr<std::vector<icount::timer::CallgrindStats>> snippet_counts =
      snippet->CollectCallgrind();
  absl::StatusOr<icount::timer::Measurement> snippet_time = snippet->BlockedAutorange(0.1);
  if (!snippet_counts.ok() || !snippet_time.ok()) {
    std::fprintf(stderr, "error: %s %s\n", std::string(snippet_counts.status().message()).c_str(),
                 std::string(snippet_time.status().message()).c_str());
    return 1;
  }
  std::printf("lambda:  %s\n  %.1f instructions per run\n", time->Summary().c_str(),
              (*counts)[0].CountsPerRun());
  std::printf("snippet: %s\n  %.1f instructions per run\n", snippet_time->Summary().c_str(),
              (*snippet_counts)[0].CountsPerRun());
  return 0;
}
