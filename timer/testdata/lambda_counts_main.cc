// Prints the instruction count of a lambda doing at::add, collected with
// Timer::CollectCallgrind (which re-executes this binary under valgrind).
// callable_callgrind_test runs it twice and expects the same count.
#include <ATen/core/Tensor.h>
#include <ATen/ops/add.h>
#include <ATen/ops/ones.h>

#include <cstdio>
#include <vector>

#include "timer/timer.h"

int main() {
  at::Tensor x = at::ones({4, 4});
  at::Tensor y = at::ones({4, 4});
  icount::timer::Timer timer = icount::timer::Timer::ForCallable([&] { at::add(x, y); });
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
