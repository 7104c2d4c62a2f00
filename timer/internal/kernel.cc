#include "timer/internal/kernel.h"

#include <ATen/Parallel.h>

namespace icount::timer::internal {

absl::Status RunSnippetEntry(IcountSnippetEntry entry, const IcountBlockControl& control) {
  char error[8192] = {0};
  if (entry(&control, error, sizeof(error)) != 0) {
    return absl::AbortedError(absl::StrCat("C++ statement threw: ", error));
  }
  return absl::OkStatus();
}

ScopedTorchThreads::ScopedTorchThreads(int num_threads) : previous_(at::get_num_threads()) {
  at::set_num_threads(num_threads);
}

ScopedTorchThreads::~ScopedTorchThreads() { at::set_num_threads(previous_); }

}  // namespace icount::timer::internal
