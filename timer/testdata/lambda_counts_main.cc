// Prints the instruction count of a lambda doing torch::add, collected with
// Timer::CollectCallgrind (which re-executes this binary under valgrind).
// callable_callgrind_test runs it twice and expects the same count.
#include <torch/script.h>

#include <cstdio>
#include <vector>

#include "timer/timer.h"

int main() {
  torch::Tensor x = torch::ones({4, 4});
  torch::Tensor y = torch::ones({4, 4});
  icount::timer::Timer timer = icount::timer::Timer::ForCallable([&] { torch::add(x, y); });
  icount::timer::CallgrindOptions options;
  options.number = 100;
  absl::StatusOr<std::vector<icount::timer::CallgrindStats>> stats =
      timer.CollectCallgrind(options);
  if (!stats.ok()) {
    std::fprintf(stderr, "%s\n", std::string(stats.status().message()).c_str());
    return 1;
  }
  std::printf("counts=%lld\n", static_cast<long long>((*stats)[0].Counts()));
  return 0;
}
