#ifndef ICOUNT_DEFINITIONS_SETUPS_H_
#define ICOUNT_DEFINITIONS_SETUPS_H_

// Named setups shared by benchmark definitions: upstream's
// definitions/setup.py (the `Setup` enum), in Python and C++.
//
//   GroupedModules{"model = torch.nn.ReLU()", "auto model = torch::nn::ReLU();",
//                  WithTorchNN(Trivial2D()), "f(x) -> y"}

#include "expand/definition.h"

namespace icount::definitions {

// The C++ global setup for code that uses the C++ frontend (torch::nn,
// torch::manual_seed): the C++ timer includes only <torch/script.h>, while
// upstream's C++ timer included <torch/torch.h>.
inline constexpr char kTorchNNInclude[] = "#include <torch/torch.h>";

// `setup` with kTorchNNInclude as its global setup.
expand::GroupedSetup WithTorchNN(expand::GroupedSetup setup);

// x: a 4x4 tensor of ones. Upstream's Setup.TRIVIAL_2D.
expand::GroupedSetup Trivial2D();
// x: 4x4x4 ones. Setup.TRIVIAL_3D.
expand::GroupedSetup Trivial3D();
// x: 4x4x4x4 ones. Setup.TRIVIAL_4D.
expand::GroupedSetup Trivial4D();
// Inputs x, y (1-element tensors) and weights w0, w1 (1 element) and w2 (2
// elements) that require grad. Setup.TRAINING; uses torch::nn, so its C++
// global setup includes <torch/torch.h>.
expand::GroupedSetup Training();

// Setups of upstream's development branch, used by ExtendedSuite():
// x (4x4, seeded rand), y_float (4x4 ones), y_int (4x4 int32 ones).
// Setup.GENERIC.
expand::GroupedSetup Generic();
// x, y (1x1x1 seeded randn), a (100x100x1x1x1 zeros), b (arange(100)
// reversed, int64), and torch::indexing in scope in C++. Setup.INDEXING.
expand::GroupedSetup Indexing();
// x, y (4x4 ones), bias (1 element), eye_4 (4x4 identity).
// Setup.MESOSCALE.
expand::GroupedSetup Mesoscale();

}  // namespace icount::definitions

#endif  // ICOUNT_DEFINITIONS_SETUPS_H_
