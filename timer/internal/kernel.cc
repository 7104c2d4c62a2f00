#include "timer/internal/kernel.h"

#include <ATen/Parallel.h>

namespace icount::timer_internal {

ScopedTorchThreads::ScopedTorchThreads(int num_threads) : previous_(at::get_num_threads()) {
  at::set_num_threads(num_threads);
}

ScopedTorchThreads::~ScopedTorchThreads() { at::set_num_threads(previous_); }

}  // namespace icount::timer_internal
