// FuzzedTensor and FuzzedSparseTensor: how a Fuzzer turns a sample's
// parameters into tensors, as torch.utils.benchmark's fuzzer.py and
// sparse_fuzzer.py do.
//
// A dense tensor whose sizes and strides come from parameters:
//
//   icount::fuzzer::FuzzedTensor x("x", {"k0", "k1", "k2"});
//   x.steps = {"x_step_0", "x_step_1", "x_step_2"};  // t[::s0, ::s1, ::s2]
//   x.dim_parameter = "dim";         // keep only the first params["dim"] sizes
//   x.probability_contiguous = 0.75; // else lay memory out in a random order
//   x.min_elements = 4 * 1024;       // resample parameters outside the limits
//   x.max_elements = 32 * 1024 * 1024;
//   x.max_allocation_bytes = int64_t{2} << 30;
//
// For sizes (16, 8) and steps (1, 4) the fuzzer allocates (16, 32) with
// torch.rand (torch.randint(1, 127) for integer dtypes), and with probability
// 1 - probability_contiguous permutes it, calls .contiguous() and permutes
// back; then it slices [0:16:1, 0:32:4]. An entry of size or steps is either
// a literal or a parameter's name; missing entries are 1.
//
// A sparse COO tensor:
//
//   icount::fuzzer::FuzzedSparseTensor s("s", {"k0", "k1"});
//   s.sparse_dim = "sparse_dim";  // else every dimension is sparse
//   // density and coalesced name the parameters holding the fraction of
//   // nonzeros (relative to the SUM of the sizes, as in the reference) and
//   // whether to coalesce; they default to "density" and "coalesced".
//
// Both kinds are values: copy them freely before handing them to a Fuzzer.

#ifndef ICOUNT_FUZZER_TENSOR_H_
#define ICOUNT_FUZZER_TENSOR_H_

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "fuzzer/internal/random_state.h"
#include "fuzzer/value.h"

namespace icount::fuzzer {

// A size or step: a literal, or the name of a parameter holding an int.
using SizeEntry = std::variant<int64_t, std::string>;

// Builds the tensor to slice, instead of torch.rand / torch.randint. It gets
// the allocation size (sizes times steps), the dtype, the sample's parameters,
// and the fuzzer's generator, which it must use for random values so that a
// seed keeps giving the same tensors. The fuzzer then permutes and slices the
// result, which must have exactly `size`.
using TensorConstructor =
    std::function<absl::StatusOr<at::Tensor>(const std::vector<int64_t>& size, at::ScalarType dtype,
                                             const Params& params, at::Generator& generator)>;

// str(dtype) in Python: "torch.float32", "torch.int64", ...
std::string DtypeName(at::ScalarType dtype);

// The dtype called `name`, as torch spells it, with or without "torch.":
// "float32" or "float", "float64" or "double", "float16" or "half",
// "bfloat16", "complex64" or "cfloat", "complex128" or "cdouble", "uint8",
// "int8", "int16" or "short", "int32" or "int", "int64" or "long", "bool".
// InvalidArgument listing these otherwise.
absl::StatusOr<at::ScalarType> ParseDtype(absl::string_view name);

// The reference's dtype_size(): bytes per element as it counts them for
// max_allocation_bytes. Note that for complex dtypes it counts the bytes of
// ONE component (torch.finfo(complex64).bits == 32), half the true size.
// Returns InvalidArgument for dtypes the reference cannot size (quantized
// and other exotic types).
absl::StatusOr<int64_t> ReferenceDtypeSize(at::ScalarType dtype);

// Per-tensor facts the reference reports next to each tensor. Dense tensors
// set numel, dtype, order, steps and is_contiguous; sparse tensors set numel,
// dtype and the sparse fields.
struct TensorProperties {
  int64_t numel = 0;
  std::string dtype;  // DtypeName()

  // Dense: the permutation used to lay out memory (the identity if none),
  // the resolved steps, and whether the final tensor is contiguous.
  std::vector<int64_t> order;
  std::vector<int64_t> steps;
  bool is_contiguous = false;

  // Sparse.
  bool is_sparse = false;
  std::vector<int64_t> shape;
  bool is_coalesced = false;
  double density = 0;
  double sparsity = 0;  // 1 - density
  int64_t sparse_dim = 0;
  int64_t dense_dim = 0;
  bool is_hybrid = false;  // has dense dimensions
};

struct MadeTensor {
  at::Tensor tensor;
  TensorProperties properties;
};

// Sizes resolved against a sample's parameters.
struct ResolvedShape {
  std::vector<int64_t> size;
  std::vector<int64_t> steps;
  // size[i] * steps[i], saturated at INT64_MAX (which Make() refuses).
  std::vector<int64_t> allocation_size;
};

struct FuzzedTensor {
  FuzzedTensor(std::string name, std::vector<SizeEntry> size)
      : name(std::move(name)), size(std::move(size)) {}

  std::string name;
  std::vector<SizeEntry> size;
  std::vector<SizeEntry> steps;  // empty: all 1
  // Chance that memory is laid out in order; in [0, 1].
  double probability_contiguous = 0.5;
  std::optional<int64_t> min_elements;
  std::optional<int64_t> max_elements;
  // Limit on the bytes allocated before slicing (see ReferenceDtypeSize).
  std::optional<int64_t> max_allocation_bytes;
  // Names an int parameter: size and steps are cut or padded (with 1) to
  // that many dimensions.
  std::optional<std::string> dim_parameter;
  at::ScalarType dtype = at::kFloat;
  bool cuda = false;
  TensorConstructor tensor_constructor;  // empty: torch.rand / torch.randint

  // Sizes for `params` (which must hold every name used above). Errors if a
  // size, step or the dimension count is not an int, or is negative.
  absl::StatusOr<ResolvedShape> Resolve(const Params& params) const;

  // Whether `params` keep this tensor within min_elements, max_elements and
  // max_allocation_bytes (computed without overflow).
  absl::StatusOr<bool> SatisfiesConstraints(const Params& params) const;

  // Builds the tensor: consumes one state.RandomSample() (the contiguity
  // coin) and, when that says so, permutations until one is not the
  // identity; draws values from `generator`.
  absl::StatusOr<MadeTensor> Make(const Params& params, fuzzer::internal::RandomState& state,
                                  at::Generator& generator) const;
};

struct FuzzedSparseTensor {
  FuzzedSparseTensor(std::string name, std::vector<SizeEntry> size)
      : name(std::move(name)), size(std::move(size)) {}

  std::string name;
  std::vector<SizeEntry> size;
  std::optional<int64_t> min_elements;
  std::optional<int64_t> max_elements;
  std::optional<std::string> dim_parameter;
  // Names an int parameter: the number of sparse dimensions (at most the
  // number of sizes). Unset: all dimensions are sparse.
  std::optional<std::string> sparse_dim;
  // Name the parameters with the density (a number; nnz is
  // ceil(sum(size) * density)) and whether to coalesce (truthy). The
  // reference reads params["density"] and params["coalesced"] whatever names
  // it is given; these defaults make that the same.
  std::string density = "density";
  std::string coalesced = "coalesced";
  at::ScalarType dtype = at::kFloat;
  bool cuda = false;

  absl::StatusOr<ResolvedShape> Resolve(const Params& params) const;
  absl::StatusOr<bool> SatisfiesConstraints(const Params& params) const;

  // Builds the tensor as the reference's sparse_tensor_constructor does:
  // values torch.rand (floating dtypes) or torch.randint(1, 127), indices
  // from torch.rand scaled by the sizes; uncoalesced tensors repeat every
  // index with torch.randn values. Consumes nothing from `state`.
  //
  // Beware hybrid tensors (sparse_dim below the number of sizes): each of the
  // nnz values is a dense block of the remaining sizes, so the values can
  // outnumber the dense tensor's elements many times over, and max_elements
  // does not bound them. The reference behaves the same: the second sample
  // of UnaryOpSparseFuzzer(seed=11) has sizes (32, 312721), one sparse
  // dimension and nnz 15638, i.e. 4.9e9 float32 values (20 GB).
  absl::StatusOr<MadeTensor> Make(const Params& params, fuzzer::internal::RandomState& state,
                                  at::Generator& generator) const;
};

// Either kind, for a Fuzzer's tensor list.
using TensorSpec = std::variant<FuzzedTensor, FuzzedSparseTensor>;

const std::string& TensorSpecName(const TensorSpec& spec);

}  // namespace icount::fuzzer

#endif  // ICOUNT_FUZZER_TENSOR_H_
