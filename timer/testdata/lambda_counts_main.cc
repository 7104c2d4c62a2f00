// Prints the instruction count of a lambda doing at::add, collected with
// Timer::CollectCallgrind (which re-executes this binary under valgrind).
// callable_callgrind_test runs it twice and expects the same count.
//
// With LAMBDA_COUNTS_EXTRA_CALL set it first collects an empty lambda. The
// replay does not keep that variable, so the binary re-executed to measure
// the empty lambda reaches the add at that call instead:
// callable_callgrind_test expects CollectCallgrind to say so.
#include <ATen/core/Tensor.h>
#include <ATen/ops/add.h>
#include <ATen/ops/ones.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "timer/timer.h"

namespace {

// Prints the counts of `timer`, or its error on stderr; false on an error.
bool PrintCounts(const icount::timer::Timer& timer) {
  icount::timer::CallgrindOptions options;
  options.number = 100;
  absl::StatusOr<std::vector<icount::timer::CallgrindStats>> stats =
      timer.CollectCallgrind(options);
  if (!stats.ok()) {
    std::fprintf(stderr, "%s\n", std::string(stats.status().message()).c_str());
    return false;
  }
  std::printf("counts=%lld\n", static_cast<long long>((*stats)[0].Counts()));
  return true;
}

}  // namespace

int main() {
  if (std::getenv("LAMBDA_COUNTS_EXTRA_CALL") != nullptr &&
      !PrintCounts(icount::timer::Timer::ForCallable([] {}, {}, "an empty lambda"))) {
    return 1;
  }
  at::Tensor x = at::ones({4, 4});
  at::Tensor y = at::ones({4, 4});
  return PrintCounts(icount::timer::Timer::ForCallable([&] { at::add(x, y); })) ? 0 : 1;
}
