// The C++ fuzzers against torch.utils.benchmark of the same PyTorch
// release: the same seed must give the same JSON line per sample
// (parameters, sizes, strides, memory order, contiguity, sparse layout and
// the float64 sum of the values), and the same rejection rate.
//
// Expected output: fuzzer/testdata/reference_samples.txt, made at build
// time (//fuzzer:reference_samples) by
//   /usr/bin/python3 fuzzer/testdata/make_reference.py --testdata
// The scenario fuzzers below are the script's scenario_* functions, in C++.

#include <ATen/Parallel.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/randn.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "fuzzer/fuzzer.h"
#include "fuzzer/internal/numpy_log2.h"
#include "fuzzer/op_fuzzers.h"
#include "fuzzer/sample_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::fuzzer {
namespace {

constexpr char kTestdata[] = "fuzzer/testdata/reference_samples.txt";

struct ReferenceCase {
  std::string name;  // "unary/float32/seed=0" or "scenario_mixed/seed=3"
  int n = 0;
  std::vector<std::string> samples;
  std::string rejection_rate;
};

std::vector<ReferenceCase> LoadCases() {
  std::vector<ReferenceCase> cases;
  std::ifstream in(kTestdata);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> fields = absl::StrSplit(line, absl::MaxSplits('\t', 2));
    if (fields[0] == "case" && fields.size() == 3) {
      ReferenceCase c;
      c.name = fields[1];
      EXPECT_TRUE(absl::SimpleAtoi(fields[2], &c.n)) << line;
      cases.push_back(std::move(c));
    } else if (fields[0] == "sample" && fields.size() == 2 && !cases.empty()) {
      cases.back().samples.push_back(fields[1]);
    } else if (fields[0] == "rejection_rate" && fields.size() == 2 && !cases.empty()) {
      cases.back().rejection_rate = fields[1];
    } else {
      ADD_FAILURE() << "malformed line in " << kTestdata << ": " << line;
    }
  }
  return cases;
}

absl::StatusOr<Fuzzer> ScenarioMixed(int64_t seed) {
  using P = FuzzedParameter;
  std::vector<FuzzedParameter> parameters = {
      P::Discrete("dim", {{1, 0.2}, {2, 0.3}, {3, 0.5}}, /*strict=*/true),
      P::LogUniform("a", 3, 1000),
      P::LogUniform("b", 5, 77777),
      P::LogUniform("g", 2.5, 40),
      P::Uniform("c", 1, 9),
      P::Uniform("f", 0.25, 2.5),
      P::Uniform("big", 0, int64_t{1} << 40),
      P::Discrete("h", {{ParameterAlias{"c"}, 0.5}, {ParameterAlias{"a2"}, 0.5}}),
      P::Discrete("a2", {{ParameterAlias{"a"}, 1.0}}),
      P::Uniform("st", 1, 4, /*strict=*/true),
      P::Discrete("s", {{1, 0.5}, {2, 0.25}, {4, 0.25}}),
      P::Discrete("flag", {{true, 0.5}, {false, 0.5}}),
      P::Discrete("d", {{0.5, 0.3}, {1.5, 0.7}}),
  };
  FuzzedTensor x("x", {"a", "c", 7});
  x.steps = {"s", 1, "s"};
  x.probability_contiguous = 0.3;
  x.max_elements = 20000;
  x.dim_parameter = "dim";
  x.dtype = at::kDouble;
  FuzzedTensor y("y", {"h", "st"});
  y.probability_contiguous = 0.0;
  y.min_elements = 10;
  y.dtype = at::kInt;
  FuzzedTensor z("z", {"b"});
  z.dtype = at::kHalf;
  FuzzedTensor w("w", {3, "st", 2});
  w.steps = {2};
  w.dtype = at::kComplexFloat;
  w.max_allocation_bytes = 400;
  FuzzedTensor u("u", {"c", "st"});
  u.tensor_constructor = [](const std::vector<int64_t>& size, at::ScalarType dtype,
                            const Params& params,
                            at::Generator& generator) -> absl::StatusOr<at::Tensor> {
    // torch.randn(size, dtype=dtype) * params["f"]
    return at::randn(size, generator, at::TensorOptions().dtype(dtype)) *
           params.at("f").double_value();
  };
  return Fuzzer::Create(std::move(parameters), {x, y, z, w, u}, {[](const Params& p) {
                          return (p.at("a").int_value() + p.at("c").int_value()) % 3 != 0;
                        }},
                        seed);
}

absl::StatusOr<Fuzzer> ScenarioSparse(int64_t seed) {
  using P = FuzzedParameter;
  FuzzedSparseTensor h("h", {"n0", "n1", "n2"});
  h.sparse_dim = "sparse_dim";
  h.dtype = at::kDouble;
  FuzzedSparseTensor q("q", {"n1", "n0"});
  q.min_elements = 20;
  return Fuzzer::Create(
      {
          P::Uniform("n0", 1, 50),
          P::Uniform("n1", 1, 30),
          P::Discrete("n2", {{2, 0.5}, {3, 0.5}}),
          P::Discrete("sparse_dim", {{1, 0.5}, {2, 0.5}}),
          P::Discrete("density", {{0.2, 0.5}, {1, 0.5}}),
          P::Discrete("coalesced", {{true, 0.6}, {false, 0.4}}),
      },
      {h, q}, seed);
}

absl::StatusOr<Fuzzer> ScenarioSparseInt(int64_t seed) {
  using P = FuzzedParameter;
  FuzzedSparseTensor i("i", {"k", "k"});
  i.dtype = at::kLong;
  return Fuzzer::Create({P::Uniform("k", 2, 40), P::Discrete("density", {{0.5, 0.5}, {0.25, 0.5}}),
                         P::Discrete("coalesced", {{true, 1.0}})},
                        {i}, seed);
}

absl::StatusOr<Fuzzer> FuzzerForCase(absl::string_view name) {
  // "<fuzzer>/<dtype>/seed=<seed>" or "scenario_<name>/seed=<seed>".
  const std::vector<absl::string_view> parts = absl::StrSplit(name, '/');
  int64_t seed = -1;
  absl::string_view seed_field = parts.back();
  if (!absl::ConsumePrefix(&seed_field, "seed=") || !absl::SimpleAtoi(seed_field, &seed)) {
    return absl::InvalidArgumentError(absl::StrCat("bad case name ", name));
  }
  if (parts.size() == 2) {
    if (parts[0] == "scenario_mixed") return ScenarioMixed(seed);
    if (parts[0] == "scenario_sparse") return ScenarioSparse(seed);
    if (parts[0] == "scenario_sparse_int") return ScenarioSparseInt(seed);
  } else if (parts.size() == 3) {
    absl::StatusOr<at::ScalarType> dtype = ParseDtype(parts[1]);
    if (!dtype.ok()) return dtype.status();
    return MakeOpFuzzer(parts[0], seed, *dtype);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown case ", name));
}

void ExpectCaseMatches(const ReferenceCase& c) {
  SCOPED_TRACE(c.name);
  ASSERT_EQ(c.samples.size(), static_cast<size_t>(c.n)) << "truncated test data";
  absl::StatusOr<Fuzzer> fuzzer = FuzzerForCase(c.name);
  ASSERT_TRUE(fuzzer.ok()) << fuzzer.status();
  FuzzerStream stream = fuzzer->Stream();
  for (int i = 0; i < c.n; ++i) {
    absl::StatusOr<FuzzedSample> sample = stream.Next();
    ASSERT_TRUE(sample.ok()) << "sample " << i << ": " << sample.status();
    absl::StatusOr<std::string> json = SampleToJson(*sample);
    ASSERT_TRUE(json.ok()) << json.status();
    EXPECT_EQ(*json, c.samples[i]) << "sample " << i;
  }
  EXPECT_EQ(FormatDouble(fuzzer->rejection_rate()), c.rejection_rate);
}

class ReferenceTest : public ::testing::Test {
 protected:
  // The reference data was summed single-threaded (see sample_json.h).
  void SetUp() override { at::set_num_threads(1); }
};

TEST_F(ReferenceTest, OpFuzzersMatchTorchUtilsBenchmark) {
  int cases = 0;
  for (const ReferenceCase& c : LoadCases()) {
    if (absl::StartsWith(c.name, "scenario_")) continue;
    ++cases;
    ExpectCaseMatches(c);
  }
  // Every op fuzzer, several seeds each, and a few dtypes; see
  // TESTDATA_OP_CASES in the script.
  EXPECT_EQ(cases, 23) << "missing test data: run from the repository root";
}

TEST_F(ReferenceTest, ScenariosMatchTorchUtilsBenchmark) {
  // The scenarios use log-uniform bounds whose np.log2 is not exact; the
  // data was made where NumPy uses SVML (AVX512_SKX), and NumPy itself
  // gives other values elsewhere.
  if (!fuzzer::internal::NumpyLog2UsesSvml()) {
    GTEST_SKIP() << "reference data made with NumPy's AVX512 log2; this CPU lacks AVX512_SKX";
  }
  int cases = 0;
  for (const ReferenceCase& c : LoadCases()) {
    if (!absl::StartsWith(c.name, "scenario_")) continue;
    ++cases;
    ExpectCaseMatches(c);
  }
  EXPECT_EQ(cases, 10) << "missing test data: run from the repository root";
}

}  // namespace
}  // namespace icount::fuzzer
