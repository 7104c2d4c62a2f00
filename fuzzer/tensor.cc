#include "fuzzer/tensor.h"

#include <ATen/ops/_validate_sparse_coo_tensor_args.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/sparse_coo_tensor.h>
#include <ATen/ops/tensor.h>
#include <c10/util/Exception.h>

#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "fuzzer/internal/random_state.h"
#include "fuzzer/value.h"

namespace icount::fuzzer {
namespace {

using fuzzer::internal::RandomState;

// Products of sizes are kept exact up to here and saturate beyond: every
// limit is an int64_t, so anything past 2**63 compares the same.
constexpr __int128 kSaturation = static_cast<__int128>(1) << 63;

__int128 SaturatingProduct(int64_t base, const std::vector<int64_t>& values) {
  __int128 product = base;
  for (const int64_t v : values) {
    product *= v;  // both factors are at most 2**63: no overflow
    if (product > kSaturation) product = kSaturation;
  }
  return product;
}

__int128 Sum(const std::vector<int64_t>& values) {
  __int128 sum = 0;
  for (const int64_t v : values) sum += v;
  return sum;
}

std::string ShapeString(const std::vector<int64_t>& values) {
  return absl::StrCat("(", absl::StrJoin(values, ", "), values.size() == 1 ? ",)" : ")");
}

absl::Status TorchError(absl::string_view tensor, const std::exception& e) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor '", tensor, "': LibTorch error: ", c10_error->what_without_backtrace()));
  }
  return absl::InvalidArgumentError(absl::StrCat("tensor '", tensor, "': ", e.what()));
}

// An int-valued parameter (not a bool or float), for dimension counts.
absl::StatusOr<int64_t> IntParameter(const Params& params, absl::string_view tensor,
                                     absl::string_view role, absl::string_view name) {
  const Value* value = params.Find(name);
  if (value == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor '", tensor, "': ", role, " '", name, "' is not a parameter"));
  }
  if (!value->is_int() || value->int_value() < 0) {
    return absl::InvalidArgumentError(absl::StrCat("tensor '", tensor, "': ", role, " '", name,
                                                   "' must be an int >= 0, got ",
                                                   value->ToPython()));
  }
  return value->int_value();
}

// The reference's resolve(): look entries up, cut to `dim`, pad with 1.
absl::StatusOr<std::vector<int64_t>> ResolveEntries(const std::vector<SizeEntry>& entries,
                                                    size_t dim, const Params& params,
                                                    absl::string_view tensor,
                                                    absl::string_view what) {
  std::vector<int64_t> out(dim, 1);
  for (size_t i = 0; i < dim && i < entries.size(); ++i) {
    if (const auto* literal = std::get_if<int64_t>(&entries[i])) {
      out[i] = *literal;
    } else {
      const std::string& name = std::get<std::string>(entries[i]);
      const Value* value = params.Find(name);
      if (value == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat("tensor '", tensor, "': ", what, "[", i,
                                                       "] names '", name,
                                                       "', which is not a parameter"));
      }
      if (!value->is_int()) {
        return absl::InvalidArgumentError(
            absl::StrCat("tensor '", tensor, "': ", what, "[", i, "] is parameter '", name,
                         "' = ", value->ToPython(), ", which is not an int"));
      }
      out[i] = value->int_value();
    }
    if (out[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("tensor '", tensor, "': ", what, "[", i, "] is negative (", out[i], ")"));
    }
  }
  return out;
}

absl::StatusOr<ResolvedShape> ResolveShape(const std::string& tensor,
                                           const std::vector<SizeEntry>& size,
                                           const std::vector<SizeEntry>& steps,
                                           const std::optional<std::string>& dim_parameter,
                                           const Params& params) {
  size_t dim = size.size();
  if (dim_parameter.has_value()) {
    absl::StatusOr<int64_t> d = IntParameter(params, tensor, "dim_parameter", *dim_parameter);
    if (!d.ok()) return d.status();
    dim = static_cast<size_t>(*d);
  }
  ResolvedShape shape;
  absl::StatusOr<std::vector<int64_t>> resolved_size =
      ResolveEntries(size, dim, params, tensor, "size");
  if (!resolved_size.ok()) return resolved_size.status();
  absl::StatusOr<std::vector<int64_t>> resolved_steps =
      ResolveEntries(steps, dim, params, tensor, "steps");
  if (!resolved_steps.ok()) return resolved_steps.status();
  shape.size = *std::move(resolved_size);
  shape.steps = *std::move(resolved_steps);
  for (size_t i = 0; i < dim; ++i) {
    if (shape.steps[i] < 1) {
      return absl::InvalidArgumentError(absl::StrCat("tensor '", tensor, "': steps[", i, "] is ",
                                                     shape.steps[i],
                                                     "; a slice step must be at least 1"));
    }
    // Saturated rather than an error: limits then reject the candidate, as
    // the reference's unbounded ints do.
    const __int128 allocation = static_cast<__int128>(shape.size[i]) * shape.steps[i];
    shape.allocation_size.push_back(allocation >= kSaturation ? std::numeric_limits<int64_t>::max()
                                                              : static_cast<int64_t>(allocation));
  }
  return shape;
}

absl::StatusOr<bool> SatisfiesLimits(const std::string& tensor, const ResolvedShape& shape,
                                     at::ScalarType dtype,
                                     const std::optional<int64_t>& min_elements,
                                     const std::optional<int64_t>& max_elements,
                                     const std::optional<int64_t>& max_allocation_bytes) {
  const __int128 num_elements = SaturatingProduct(1, shape.size);
  absl::StatusOr<int64_t> dtype_size = ReferenceDtypeSize(dtype);
  if (!dtype_size.ok()) return dtype_size.status();
  const __int128 allocation_bytes = SaturatingProduct(*dtype_size, shape.allocation_size);
  if (max_elements.has_value() && num_elements > *max_elements) return false;
  if (min_elements.has_value() && *min_elements > num_elements) return false;
  if (max_allocation_bytes.has_value() && allocation_bytes > *max_allocation_bytes) {
    return false;
  }
  return true;
}

at::Tensor DefaultDenseValues(const std::vector<int64_t>& size, at::ScalarType dtype,
                              at::Generator& generator) {
  const at::TensorOptions options = at::TensorOptions().dtype(dtype).device(at::kCPU);
  if (at::isFloatingType(dtype) || at::isComplexType(dtype)) {
    return at::rand(size, generator, options);
  }
  return at::randint(1, 127, size, generator, options);
}

}  // namespace

std::string DtypeName(at::ScalarType dtype) {
  switch (dtype) {
    case at::kBool:
      return "torch.bool";
    case at::kByte:
      return "torch.uint8";
    case at::kChar:
      return "torch.int8";
    case at::kShort:
      return "torch.int16";
    case at::kInt:
      return "torch.int32";
    case at::kLong:
      return "torch.int64";
    case at::kHalf:
      return "torch.float16";
    case at::kBFloat16:
      return "torch.bfloat16";
    case at::kFloat:
      return "torch.float32";
    case at::kDouble:
      return "torch.float64";
    case at::kComplexHalf:
      return "torch.complex32";
    case at::kComplexFloat:
      return "torch.complex64";
    case at::kComplexDouble:
      return "torch.complex128";
    default:
      return absl::StrCat("torch.", c10::toString(dtype));
  }
}

absl::StatusOr<at::ScalarType> ParseDtype(absl::string_view name) {
  struct Named {
    const char* name;
    at::ScalarType dtype;
  };
  static constexpr Named kDtypes[] = {
      {"float32", at::kFloat},
      {"float", at::kFloat},
      {"float64", at::kDouble},
      {"double", at::kDouble},
      {"float16", at::kHalf},
      {"half", at::kHalf},
      {"bfloat16", at::kBFloat16},
      {"complex64", at::kComplexFloat},
      {"cfloat", at::kComplexFloat},
      {"complex128", at::kComplexDouble},
      {"cdouble", at::kComplexDouble},
      {"uint8", at::kByte},
      {"int8", at::kChar},
      {"int16", at::kShort},
      {"short", at::kShort},
      {"int32", at::kInt},
      {"int", at::kInt},
      {"int64", at::kLong},
      {"long", at::kLong},
      {"bool", at::kBool},
  };
  absl::string_view bare = name;
  absl::ConsumePrefix(&bare, "torch.");
  std::vector<std::string> names;
  for (const Named& named : kDtypes) {
    if (bare == named.name) return named.dtype;
    names.push_back(named.name);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown dtype '", name, "'; expected one of ", absl::StrJoin(names, ", ")));
}

absl::StatusOr<int64_t> ReferenceDtypeSize(at::ScalarType dtype) {
  switch (dtype) {
    case at::kBool:
    case at::kByte:
    case at::kChar:
      return 1;
    case at::kShort:
    case at::kHalf:
    case at::kBFloat16:
      return 2;
    case at::kInt:
    case at::kFloat:
      return 4;
    case at::kLong:
    case at::kDouble:
      return 8;
    // torch.finfo of a complex dtype describes one component.
    case at::kComplexHalf:
      return 2;
    case at::kComplexFloat:
      return 4;
    case at::kComplexDouble:
      return 8;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("dtype ", DtypeName(dtype),
                       " has no torch.finfo or torch.iinfo, so the reference cannot size it"));
  }
}

const std::string& TensorSpecName(const TensorSpec& spec) {
  return std::visit([](const auto& t) -> const std::string& { return t.name; }, spec);
}

absl::StatusOr<ResolvedShape> FuzzedTensor::Resolve(const Params& params) const {
  return ResolveShape(name, size, steps, dim_parameter, params);
}

absl::StatusOr<bool> FuzzedTensor::SatisfiesConstraints(const Params& params) const {
  absl::StatusOr<ResolvedShape> shape = Resolve(params);
  if (!shape.ok()) return shape.status();
  return SatisfiesLimits(name, *shape, dtype, min_elements, max_elements, max_allocation_bytes);
}

namespace {

// Refuses a size * step that ResolveShape saturated at INT64_MAX (when no
// limit rejected the candidate).
absl::Status CheckAllocatable(const std::string& tensor, const ResolvedShape& shape) {
  for (size_t d = 0; d < shape.size.size(); ++d) {
    if (shape.allocation_size[d] == std::numeric_limits<int64_t>::max()) {
      return absl::InvalidArgumentError(absl::StrCat("tensor '", tensor, "': size[", d,
                                                     "] * steps[", d, "] = ", shape.size[d], " * ",
                                                     shape.steps[d], " is too large to allocate"));
    }
  }
  return absl::OkStatus();
}

// The values before any permutation or slicing, of the allocation size:
// from the spec's tensor_constructor or the default, on the GPU when asked.
absl::StatusOr<at::Tensor> AllocatedValues(const FuzzedTensor& spec, const ResolvedShape& shape,
                                           const Params& params, at::Generator& generator) {
  at::Tensor raw;
  try {
    if (spec.tensor_constructor) {
      absl::StatusOr<at::Tensor> made =
          spec.tensor_constructor(shape.allocation_size, spec.dtype, params, generator);
      if (!made.ok()) {
        return absl::Status(made.status().code(),
                            absl::StrCat("tensor '", spec.name,
                                         "': tensor_constructor: ", made.status().message()));
      }
      raw = *std::move(made);
      if (!raw.defined() || raw.sizes() != at::IntArrayRef(shape.allocation_size)) {
        return absl::InvalidArgumentError(
            absl::StrCat("tensor '", spec.name, "': tensor_constructor returned size ",
                         raw.defined() ? ShapeString(raw.sizes().vec()) : "(undefined)",
                         ", expected ", ShapeString(shape.allocation_size)));
      }
    } else {
      raw = DefaultDenseValues(shape.allocation_size, spec.dtype, generator);
    }
    if (spec.cuda) raw = raw.to(at::kCUDA);
  } catch (const std::exception& e) {
    return TorchError(spec.name, e);
  }
  return raw;
}

// The contiguity coin is tossed for every tensor, even 0- and 1-d ones,
// which have no other order. When it says so, `raw`'s memory is laid out
// in a random order other than the identity. Returns the order used.
absl::StatusOr<std::vector<int64_t>> LayOutMemory(const FuzzedTensor& spec, size_t dim,
                                                  RandomState& state, at::Tensor& raw) {
  std::vector<int64_t> order(dim);
  std::iota(order.begin(), order.end(), 0);
  const std::vector<int64_t> identity = order;
  if (state.RandomSample() > spec.probability_contiguous) {
    while (dim > 1 && order == identity) order = state.Permutation(raw.dim());
    std::vector<int64_t> inverse(order.size());
    for (size_t i = 0; i < order.size(); ++i) inverse[order[i]] = static_cast<int64_t>(i);
    try {
      raw = raw.permute(order).contiguous().permute(inverse);
    } catch (const std::exception& e) {
      return TorchError(spec.name, e);
    }
  }
  return order;
}

// `raw` sliced by the steps, with the properties of the result.
absl::StatusOr<MadeTensor> SliceBySteps(const std::string& tensor_name, const at::Tensor& raw,
                                        const ResolvedShape& shape) {
  MadeTensor made;
  try {
    at::Tensor tensor = raw;
    for (size_t d = 0; d < shape.size.size(); ++d) {
      tensor = tensor.slice(static_cast<int64_t>(d), 0, shape.allocation_size[d], shape.steps[d]);
    }
    made.properties.numel = tensor.numel();
    made.properties.is_contiguous = tensor.is_contiguous();
    made.tensor = std::move(tensor);
  } catch (const std::exception& e) {
    return TorchError(tensor_name, e);
  }
  return made;
}

}  // namespace

absl::StatusOr<MadeTensor> FuzzedTensor::Make(const Params& params, RandomState& state,
                                              at::Generator& generator) const {
  absl::StatusOr<ResolvedShape> shape = Resolve(params);
  if (!shape.ok()) return shape.status();
  if (absl::Status status = CheckAllocatable(name, *shape); !status.ok()) return status;
  absl::StatusOr<at::Tensor> raw = AllocatedValues(*this, *shape, params, generator);
  if (!raw.ok()) return raw.status();
  absl::StatusOr<std::vector<int64_t>> order = LayOutMemory(*this, shape->size.size(), state, *raw);
  if (!order.ok()) return order.status();
  absl::StatusOr<MadeTensor> made = SliceBySteps(name, *raw, *shape);
  if (!made.ok()) return made.status();
  made->properties.dtype = DtypeName(dtype);
  made->properties.order = *std::move(order);
  made->properties.steps = shape->steps;
  return made;
}

absl::StatusOr<ResolvedShape> FuzzedSparseTensor::Resolve(const Params& params) const {
  return ResolveShape(name, size, /*steps=*/{}, dim_parameter, params);
}

absl::StatusOr<bool> FuzzedSparseTensor::SatisfiesConstraints(const Params& params) const {
  absl::StatusOr<ResolvedShape> shape = Resolve(params);
  if (!shape.ok()) return shape.status();
  return SatisfiesLimits(name, *shape, dtype, min_elements, max_elements,
                         /*max_allocation_bytes=*/std::nullopt);
}

namespace {

// What a sparse tensor's parameters ask for, checked against its shape.
struct SparseLayout {
  double density = 0;
  int64_t nnz = 0;  // ceil(sum(size) * density), as the reference computes it
  bool coalesced = false;
  int64_t sparse_dims = 0;
};

absl::StatusOr<SparseLayout> ResolveSparseLayout(const FuzzedSparseTensor& spec,
                                                 const Params& params,
                                                 const std::vector<int64_t>& sizes) {
  SparseLayout layout;
  const Value* density_value = params.Find(spec.density);
  if (density_value == nullptr || density_value->is_bool()) {
    return absl::InvalidArgumentError(absl::StrCat("tensor '", spec.name, "': density parameter '",
                                                   spec.density, "' must hold a number"));
  }
  layout.density = density_value->AsDouble();
  // math.ceil(sum(size) * density): the int sum becomes a double first.
  const __int128 size_sum = Sum(sizes);
  const double nnz_double = std::ceil(static_cast<double>(size_sum) * layout.density);
  if (!(nnz_double >= 0 && nnz_double <= static_cast<double>(size_sum))) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor '", spec.name, "': nnz = ceil(sum(size) * density) = ceil(",
                     static_cast<int64_t>(size_sum), " * ", density_value->ToPython(),
                     ") must be between 0 and sum(size); is density in [0, 1]?"));
  }
  layout.nnz = static_cast<int64_t>(nnz_double);

  const Value* coalesced_value = params.Find(spec.coalesced);
  if (coalesced_value == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor '", spec.name, "': coalesced parameter '", spec.coalesced, "' is not a parameter"));
  }
  layout.coalesced = coalesced_value->Truthy();

  layout.sparse_dims = static_cast<int64_t>(sizes.size());
  if (spec.sparse_dim.has_value()) {
    absl::StatusOr<int64_t> d = IntParameter(params, spec.name, "sparse_dim", *spec.sparse_dim);
    if (!d.ok()) return d.status();
    layout.sparse_dims = std::min(*d, layout.sparse_dims);
  }
  for (int64_t d = 0; d < layout.sparse_dims && layout.nnz != 0; ++d) {
    if (sizes[d] <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("tensor '", spec.name, "': sparse dimension ",
                                                     d, " has size ", sizes[d], " but nnz is ",
                                                     layout.nnz, " (invalid arguments)"));
    }
  }
  if (!layout.coalesced && !at::isFloatingType(spec.dtype)) {
    // The reference fails here too, in torch.randn_like.
    return absl::InvalidArgumentError(
        absl::StrCat("tensor '", spec.name,
                     "': an uncoalesced sparse tensor needs a floating dtype: the "
                     "reference appends torch.randn_like(values), which ",
                     DtypeName(spec.dtype), " does not support (coalesced samples work)"));
  }
  return layout;
}

// The reference's sampling: random values, random indices scaled to the
// sparse sizes, duplicated (uncoalesced) or coalesced. Throws what ATen
// throws.
at::Tensor SampleSparseTensor(const FuzzedSparseTensor& spec, const SparseLayout& layout,
                              const std::vector<int64_t>& sizes, at::Generator& generator) {
  const at::TensorOptions options = at::TensorOptions().dtype(spec.dtype).device(at::kCPU);
  std::vector<int64_t> values_size = {layout.nnz};
  values_size.insert(values_size.end(), sizes.begin() + layout.sparse_dims, sizes.end());
  at::Tensor values = at::isFloatingType(spec.dtype)
                          ? at::rand(values_size, generator, options)
                          : at::randint(1, 127, values_size, generator, options);

  at::Tensor indices = at::rand({layout.sparse_dims, layout.nnz}, generator, at::TensorOptions());
  const std::vector<int64_t> sparse_sizes(sizes.begin(), sizes.begin() + layout.sparse_dims);
  indices.mul_(at::tensor(sparse_sizes, at::kLong).unsqueeze(1).to(indices));
  indices = indices.to(at::kLong);

  if (!layout.coalesced) {
    // torch.randn_like(v): same kernel and stream as randn(v.sizes()).
    values = at::cat({values, at::randn(values.sizes(), generator, values.options())}, 0);
    indices = at::cat({indices, indices}, 1);
  }
  // torch.sparse_coo_tensor checks its arguments; the ATen function alone
  // does not.
  at::_validate_sparse_coo_tensor_args(indices, values, sizes);
  at::Tensor tensor = at::sparse_coo_tensor(indices, values, sizes);
  if (layout.coalesced) tensor = tensor.coalesce();
  if (spec.cuda) tensor = tensor.to(at::kCUDA);
  return tensor;
}

}  // namespace

absl::StatusOr<MadeTensor> FuzzedSparseTensor::Make(const Params& params, RandomState& state,
                                                    at::Generator& generator) const {
  absl::StatusOr<ResolvedShape> shape = Resolve(params);
  if (!shape.ok()) return shape.status();
  const std::vector<int64_t>& sizes = shape->size;
  absl::StatusOr<SparseLayout> layout = ResolveSparseLayout(*this, params, sizes);
  if (!layout.ok()) return layout.status();
  MadeTensor made;
  try {
    at::Tensor tensor = SampleSparseTensor(*this, *layout, sizes, generator);
    TensorProperties& p = made.properties;
    p.is_sparse = true;
    p.numel = tensor.numel();
    p.shape = tensor.sizes().vec();
    p.is_coalesced = tensor.is_coalesced();
    p.density = layout->density;
    p.sparsity = 1.0 - layout->density;
    p.sparse_dim = tensor.sparse_dim();
    p.dense_dim = tensor.dense_dim();
    p.is_hybrid = static_cast<int64_t>(sizes.size()) > p.sparse_dim;
    made.tensor = std::move(tensor);
  } catch (const std::exception& e) {
    return TorchError(name, e);
  }
  made.properties.dtype = DtypeName(dtype);
  return made;
}

}  // namespace icount::fuzzer
