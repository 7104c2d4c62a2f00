#ifndef ICOUNT_WORKER_INTERNAL_TORCHSCRIPT_REHEARSAL_H_
#define ICOUNT_WORKER_INTERNAL_TORCHSCRIPT_REHEARSAL_H_

// The TorchScript rehearsal: what a worker's TorchScript zygote runs once
// before it forks its first case (main --rehearse_torchscript), so that
// each TorchScript case process inherits valgrind's translations of
// loading, compiling, optimising and differentiating a TorchScript model,
// and LibTorch's lazily initialised state, instead of making them itself.
// Under valgrind a case's setup (torch::jit::load and 3 warm-up calls)
// then costs ~0.05 s instead of ~0.6 s.
//
// It is part of the history every rehearsed case's counts depend on:
// those counts are exact and repeatable, but not a fresh process's.
//
//   absl::Status s = RehearseTorchScript(TorchScriptRehearsalModel());
//   if (!s.ok()) ...  // every TorchScript case of this zygote fails with it

#include <string_view>

#include "absl/status/status.h"

namespace icount::worker::internal {

// icount's rehearsal model: a TorchScript archive scripted at build time
// by torchscript_rehearsal_model.py (generated into this library).
std::string_view TorchScriptRehearsalModel();

// Loads the TorchScript archive `model` (a module whose forward takes a
// (2, 4, 4, 4) tensor and a (4,) tensor that requires grad and returns a
// scalar) from memory and runs forward and backward 3 times, as a
// TorchScript case's setup warms up. An error says what failed and how to
// run without it.
absl::Status RehearseTorchScript(std::string_view model);

}  // namespace icount::worker::internal

#endif  // ICOUNT_WORKER_INTERNAL_TORCHSCRIPT_REHEARSAL_H_
