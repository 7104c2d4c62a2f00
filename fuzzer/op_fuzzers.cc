#include "fuzzer/op_fuzzers.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "fuzzer/fuzzer.h"
#include "fuzzer/parameter.h"
#include "fuzzer/tensor.h"

namespace icount::fuzzer {
namespace {

constexpr int64_t kMinDimSize = 16;
constexpr int64_t kMaxDimSize = 16 * 1024 * 1024;
constexpr int64_t kSpectralMaxDimSize = 16 * 1024;
constexpr int64_t kMinElements = 4 * 1024;
constexpr int64_t kMaxElements = 32 * 1024 * 1024;
constexpr int64_t kMaxAllocationBytes = int64_t{2} * 1024 * 1024 * 1024;

// _POW_TWO_SIZES: 2**i for i in range(int(np.log2(16)), int(np.log2(16 Mi)) + 1),
// each with probability 1. / 21.
std::vector<WeightedOutcome> PowerOfTwoSizes() {
  std::vector<WeightedOutcome> out;
  for (int i = 4; i <= 24; ++i) out.push_back({int64_t{1} << i, 1.0 / 21});
  return out;
}

// The step distribution shared by the strided fuzzers.
std::vector<WeightedOutcome> Steps() {
  return {{1, 0.8}, {2, 0.06}, {4, 0.06}, {8, 0.04}, {16, 0.04}};
}

std::vector<WeightedOutcome> OneTwoThree() { return {{1, 0.3}, {2, 0.4}, {3, 0.3}}; }

std::string Indexed(absl::string_view prefix, int i) { return absl::StrCat(prefix, i); }

// "Repeatable entropy for downstream applications."
FuzzedParameter RandomValue() {
  return FuzzedParameter::Uniform("random_value", 0, int64_t{4294967295});
}

// k_any_i (log-uniform), k_pow2_i and k_i for i = 0..2, in the reference's
// order: all three k_any, then all three k_pow2, then all three k.
void AddPowerOfTwoShape(std::vector<FuzzedParameter>& parameters) {
  for (int i = 0; i < 3; ++i) {
    parameters.push_back(
        FuzzedParameter::LogUniform(Indexed("k_any_", i), kMinDimSize, kMaxDimSize));
  }
  for (int i = 0; i < 3; ++i) {
    parameters.push_back(FuzzedParameter::Discrete(Indexed("k_pow2_", i), PowerOfTwoSizes()));
  }
  for (int i = 0; i < 3; ++i) {
    parameters.push_back(FuzzedParameter::Discrete(
        Indexed("k", i),
        {{ParameterAlias{Indexed("k_any_", i)}, 0.8}, {ParameterAlias{Indexed("k_pow2_", i)}, 0.2}},
        /*strict=*/true));
  }
}

FuzzedTensor DenseTensor(std::string name, std::vector<SizeEntry> size,
                         std::vector<SizeEntry> steps, std::string dim_parameter,
                         at::ScalarType dtype, bool cuda) {
  FuzzedTensor t(std::move(name), std::move(size));
  t.steps = std::move(steps);
  t.probability_contiguous = 0.75;
  t.max_allocation_bytes = kMaxAllocationBytes;
  t.dim_parameter = std::move(dim_parameter);
  t.dtype = dtype;
  t.cuda = cuda;
  return t;
}

FuzzedSparseTensor SparseTensor(std::string name, std::vector<SizeEntry> size, at::ScalarType dtype,
                                bool cuda) {
  FuzzedSparseTensor t(std::move(name), std::move(size));
  t.dim_parameter = "dim_parameter";
  t.sparse_dim = "sparse_dim";
  t.density = "density";
  t.coalesced = "coalesced";
  t.min_elements = kMinElements;
  t.max_elements = kMaxElements;
  t.dtype = dtype;
  t.cuda = cuda;
  return t;
}

// The parameters both sparse fuzzers start with.
std::vector<FuzzedParameter> SparseShapeParameters() {
  std::vector<FuzzedParameter> parameters = {
      FuzzedParameter::Discrete("dim_parameter", OneTwoThree(), /*strict=*/true),
      FuzzedParameter::Discrete("sparse_dim", {{1, 0.4}, {2, 0.4}, {3, 0.2}},
                                /*strict=*/true),
  };
  AddPowerOfTwoShape(parameters);
  return parameters;
}

std::vector<FuzzedParameter> SparseValueParameters() {
  return {
      FuzzedParameter::Discrete("density", {{0.1, 0.4}, {0.05, 0.3}, {0.01, 0.3}}),
      FuzzedParameter::Discrete("coalesced", {{true, 0.5}, {false, 0.5}}),
      RandomValue(),
  };
}

// Python's int(math.log(x, base)) for positive ints: log(x) / log(base) in
// doubles, truncated. That can fall one short at exact powers
// (math.log(243, 3) is 4.999...); no bound used here is such a power, but
// computing it the reference's way keeps the list the reference's.
int64_t PythonIntLog(int64_t x, int64_t base) {
  return static_cast<int64_t>(std::log(static_cast<double>(x)) /
                              std::log(static_cast<double>(base)));
}

// power_range(upper_bound, base): base**i for i in 0..int(log(upper, base)).
std::vector<int64_t> PowerRange(int64_t upper_bound, int64_t base) {
  std::vector<int64_t> out;
  int64_t power = 1;
  for (int64_t i = 0; i <= PythonIntLog(upper_bound, base); ++i) {
    out.push_back(power);
    power *= base;
  }
  return out;
}

}  // namespace

const std::vector<int64_t>& SpectralRegularSizes() {
  static const std::vector<int64_t>* const sizes = [] {
    auto* out = new std::vector<int64_t>;
    for (const int64_t i : PowerRange(kSpectralMaxDimSize, 2)) {
      for (const int64_t j : PowerRange(kSpectralMaxDimSize / i, 3)) {
        const int64_t ij = i * j;
        for (const int64_t k : PowerRange(kSpectralMaxDimSize / ij, 5)) {
          if (ij * k > kMinDimSize) out->push_back(ij * k);
        }
      }
    }
    std::sort(out->begin(), out->end());
    return out;
  }();
  return *sizes;
}

absl::StatusOr<Fuzzer> UnaryOpFuzzer(int64_t seed, at::ScalarType dtype, bool cuda) {
  std::vector<FuzzedParameter> parameters = {
      FuzzedParameter::Discrete("dim", OneTwoThree(), /*strict=*/true)};
  AddPowerOfTwoShape(parameters);
  for (int i = 0; i < 3; ++i) {
    parameters.push_back(FuzzedParameter::Discrete(Indexed("x_step_", i), Steps()));
  }
  parameters.push_back(RandomValue());

  FuzzedTensor x = DenseTensor("x", {"k0", "k1", "k2"}, {"x_step_0", "x_step_1", "x_step_2"}, "dim",
                               dtype, cuda);
  x.min_elements = kMinElements;
  x.max_elements = kMaxElements;
  return Fuzzer::Create(std::move(parameters), {std::move(x)}, seed);
}

absl::StatusOr<Fuzzer> BinaryOpFuzzer(int64_t seed, at::ScalarType dtype, bool cuda) {
  std::vector<FuzzedParameter> parameters = {
      FuzzedParameter::Discrete("dim", OneTwoThree(), /*strict=*/true)};
  AddPowerOfTwoShape(parameters);
  for (int i = 0; i < 3; ++i) {
    parameters.push_back(FuzzedParameter::Discrete(
        Indexed("y_k", i), {{ParameterAlias{Indexed("k", i)}, 0.8}, {1, 0.2}},
        /*strict=*/true));
  }
  for (int i = 0; i < 3; ++i) {
    for (const char* name : {"x", "y"}) {
      parameters.push_back(FuzzedParameter::Discrete(absl::StrCat(name, "_step_", i), Steps()));
    }
  }
  parameters.push_back(RandomValue());

  FuzzedTensor x = DenseTensor("x", {"k0", "k1", "k2"}, {"x_step_0", "x_step_1", "x_step_2"}, "dim",
                               dtype, cuda);
  x.min_elements = kMinElements;
  x.max_elements = kMaxElements;
  // As in the reference: y is sliced with x's steps, and has no element limits.
  FuzzedTensor y = DenseTensor("y", {"y_k0", "y_k1", "y_k2"}, {"x_step_0", "x_step_1", "x_step_2"},
                               "dim", dtype, cuda);
  return Fuzzer::Create(std::move(parameters), {std::move(x), std::move(y)}, seed);
}

absl::StatusOr<Fuzzer> SpectralOpFuzzer(int64_t seed, at::ScalarType dtype, bool cuda,
                                        double probability_regular) {
  std::vector<FuzzedParameter> parameters = {
      FuzzedParameter::Discrete("ndim", OneTwoThree(), /*strict=*/true)};
  for (int i = 0; i < 3; ++i) {
    parameters.push_back(
        FuzzedParameter::LogUniform(Indexed("k_any_", i), kMinDimSize, kSpectralMaxDimSize));
  }
  const std::vector<int64_t>& regular = SpectralRegularSizes();
  for (int i = 0; i < 3; ++i) {
    std::vector<WeightedOutcome> outcomes;
    for (const int64_t size : regular) {
      outcomes.push_back({size, 1.0 / static_cast<double>(regular.size())});
    }
    parameters.push_back(FuzzedParameter::Discrete(Indexed("k_regular_", i), outcomes));
  }
  for (int i = 0; i < 3; ++i) {
    parameters.push_back(
        FuzzedParameter::Discrete(Indexed("k", i),
                                  {{ParameterAlias{Indexed("k_regular_", i)}, probability_regular},
                                   {ParameterAlias{Indexed("k_any_", i)}, 1 - probability_regular}},
                                  /*strict=*/true));
  }
  for (int i = 0; i < 3; ++i) {
    parameters.push_back(FuzzedParameter::Discrete(Indexed("step_", i), Steps()));
  }

  FuzzedTensor x =
      DenseTensor("x", {"k0", "k1", "k2"}, {"step_0", "step_1", "step_2"}, "ndim", dtype, cuda);
  x.min_elements = kMinElements;
  x.max_elements = kMaxElements;
  return Fuzzer::Create(std::move(parameters), {std::move(x)}, seed);
}

absl::StatusOr<Fuzzer> UnaryOpSparseFuzzer(int64_t seed, at::ScalarType dtype, bool cuda) {
  std::vector<FuzzedParameter> parameters = SparseShapeParameters();
  for (FuzzedParameter& p : SparseValueParameters()) parameters.push_back(std::move(p));
  return Fuzzer::Create(std::move(parameters), {SparseTensor("x", {"k0", "k1", "k2"}, dtype, cuda)},
                        seed);
}

absl::StatusOr<Fuzzer> BinaryOpSparseFuzzer(int64_t seed, at::ScalarType dtype, bool cuda) {
  std::vector<FuzzedParameter> parameters = SparseShapeParameters();
  for (int i = 0; i < 3; ++i) {
    parameters.push_back(FuzzedParameter::Discrete(
        Indexed("y_k", i), {{ParameterAlias{Indexed("k", i)}, 1.0}}, /*strict=*/true));
  }
  for (FuzzedParameter& p : SparseValueParameters()) parameters.push_back(std::move(p));
  return Fuzzer::Create(std::move(parameters),
                        {SparseTensor("x", {"k0", "k1", "k2"}, dtype, cuda),
                         SparseTensor("y", {"y_k0", "y_k1", "y_k2"}, dtype, cuda)},
                        seed);
}

std::vector<std::string> OpFuzzerNames() {
  return {"unary", "binary", "spectral", "sparse_unary", "sparse_binary"};
}

absl::StatusOr<Fuzzer> MakeOpFuzzer(absl::string_view name, int64_t seed,
                                    std::optional<at::ScalarType> dtype) {
  if (name == "unary") return UnaryOpFuzzer(seed, dtype.value_or(at::kFloat));
  if (name == "binary") return BinaryOpFuzzer(seed, dtype.value_or(at::kFloat));
  if (name == "spectral") return SpectralOpFuzzer(seed, dtype.value_or(at::kDouble));
  if (name == "sparse_unary") return UnaryOpSparseFuzzer(seed, dtype.value_or(at::kFloat));
  if (name == "sparse_binary") return BinaryOpSparseFuzzer(seed, dtype.value_or(at::kFloat));
  return absl::InvalidArgumentError(absl::StrCat("unknown op fuzzer '", name, "'; expected one of ",
                                                 absl::StrJoin(OpFuzzerNames(), ", ")));
}

}  // namespace icount::fuzzer
