#ifndef ICOUNT_DEFINITIONS_STANDARD_H_
#define ICOUNT_DEFINITIONS_STANDARD_H_

// The benchmark suites, written with the //expand definition API.
//
//   absl::StatusOr<std::vector<expand::MaterializedBenchmark>> cases =
//       expand::Materialize(definitions::StandardSuite());
//   // 181 cases under 72 labels, from ("Empty", "no allocation") to
//   // ("InferenceMode", "Mixed").

#include "expand/definition.h"

namespace icount::definitions {

// Upstream's standard suite (benchmarks/instruction_counts/definitions/
// standard.py at pytorch/pytorch HEAD): 72 labels, 181 cases.
//
//   group                      labels  cases
//   Empty                           8     10
//   Pointwise / Math               16     32
//   Pointwise / Data movement       6     12
//   Reduction                       3      6
//   Indexing                       16     32
//   Metadata and views              8     16
//   nn Modules                     10     38
//   training                        2     32
//   InferenceMode                   3      3
//
// Each snippet compiles against LibTorch 1.13 and runs with PyTorch 1.13;
// where HEAD's C++ needs a newer LibTorch (std::optional arguments in
// Empty / overloads) this uses the 1.13-era spelling (c10::optional). C++
// code that needs the C++ frontend (torch::nn, torch::manual_seed) has
// <torch/torch.h> in its global setup, which upstream's C++ timer
// included implicitly.
expand::BenchmarkTree StandardSuite();

// Benchmarks upstream defined on its development branch and dropped from
// the merged standard suite, kept here because they still say something
// useful and run on LibTorch 1.13: 7 labels, 20 cases.
//
//   group                      labels  cases
//   Indexing / Tensor index         1      4   (TorchScript)
//   Misc (resize_, Sort)            2      4
//   MatMul (matmul, mm)             2      4
//   Mesoscale                       2      8   (TorchScript)
//
// Its labels do not collide with StandardSuite()'s.
expand::BenchmarkTree ExtendedSuite();

// StandardSuite() followed by ExtendedSuite(): 79 labels, 201 cases.
expand::BenchmarkTree FullSuite();

}  // namespace icount::definitions

#endif  // ICOUNT_DEFINITIONS_STANDARD_H_
