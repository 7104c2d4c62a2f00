#include "fuzzer/op_fuzzers.h"

#include <c10/core/ScalarType.h>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "fuzzer/fuzzer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

// The parameter spaces against the reference's definitions. Samples are
// compared with the reference in reference_test.cc.

namespace icount::fuzzer {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// A parameter as the Python snippet below prints it: name, "*" if strict,
// then the distribution (a dict shows its first three entries).
std::string Describe(const FuzzedParameter& p) {
  std::string out = absl::StrCat(p.name(), p.strict() ? "*" : "", " ");
  switch (p.distribution()) {
    case FuzzedParameter::Distribution::kUniform:
      return absl::StrCat(out, "uniform[", p.minval().ToPython(), ", ", p.maxval().ToPython(), "]");
    case FuzzedParameter::Distribution::kLogUniform:
      return absl::StrCat(out, "loguniform[", p.minval().ToPython(), ", ", p.maxval().ToPython(),
                          "]");
    case FuzzedParameter::Distribution::kDiscrete:
      break;
  }
  std::vector<std::string> entries;
  for (size_t i = 0; i < p.outcomes().size() && i < 3; ++i) {
    const WeightedOutcome& o = p.outcomes()[i];
    const auto* alias = std::get_if<ParameterAlias>(&o.outcome);
    entries.push_back(absl::StrCat(alias ? alias->alias_to : std::get<Value>(o.outcome).ToPython(),
                                   ": ", FormatDouble(o.probability)));
  }
  return absl::StrCat(out, "{", absl::StrJoin(entries, ", "),
                      p.outcomes().size() > 3 ? ", ...}" : "}");
}

std::vector<std::string> DescribeAll(const absl::StatusOr<Fuzzer>& fuzzer) {
  std::vector<std::string> out;
  if (!fuzzer.ok()) return {fuzzer.status().ToString()};
  for (const FuzzedParameter& p : fuzzer->parameters()) out.push_back(Describe(p));
  return out;
}

std::string OptionalInt(const std::optional<int64_t>& v) { return v ? absl::StrCat(*v) : "None"; }

std::string Entries(const std::vector<SizeEntry>& entries) {
  std::vector<std::string> out;
  for (const SizeEntry& e : entries) {
    out.push_back(std::holds_alternative<int64_t>(e)
                      ? absl::StrCat(std::get<int64_t>(e))
                      : absl::StrCat("'", std::get<std::string>(e), "'"));
  }
  return absl::StrCat("(", absl::StrJoin(out, ", "), ")");
}

// A tensor as the second Python snippet below prints it.
std::string Describe(const TensorSpec& spec) {
  if (const auto* t = std::get_if<FuzzedTensor>(&spec)) {
    return absl::StrCat(
        t->name, " size=", Entries(t->size), " steps=", Entries(t->steps),
        " p=", FormatDouble(t->probability_contiguous), " dim=", t->dim_parameter.value_or("None"),
        " min=", OptionalInt(t->min_elements), " max=", OptionalInt(t->max_elements),
        " alloc=", OptionalInt(t->max_allocation_bytes), " ", DtypeName(t->dtype));
  }
  const auto& s = std::get<FuzzedSparseTensor>(spec);
  return absl::StrCat(s.name, " size=", Entries(s.size), " dim=", s.dim_parameter.value_or("None"),
                      " sparse_dim=", s.sparse_dim.value_or("None"),
                      " min=", OptionalInt(s.min_elements), " max=", OptionalInt(s.max_elements),
                      " ", DtypeName(s.dtype));
}

std::vector<std::string> DescribeTensors(const absl::StatusOr<Fuzzer>& fuzzer) {
  std::vector<std::string> out;
  if (!fuzzer.ok()) return {fuzzer.status().ToString()};
  for (const TensorSpec& t : fuzzer->tensors()) out.push_back(Describe(t));
  return out;
}

// Expected lists printed by (Python reprs of the same pieces):
// /usr/bin/python3 -c 'from torch.utils.benchmark.op_fuzzers import unary, binary,
//     spectral, sparse_unary, sparse_binary
// from torch.utils.benchmark import ParameterAlias
// for name, cls in [("unary", unary.UnaryOpFuzzer), ...]:
//   f = cls(seed=0)
//   def desc(p):
//     d = p._distribution
//     if isinstance(d, dict):
//       d = "{" + ", ".join("%s: %r" % (k.alias_to if isinstance(k, ParameterAlias)
//           else repr(k), v) for k, v in list(d.items())[:3]) + (", ..." if len(d) > 3
//           else "") + "}"
//     else: d = "%s[%r, %r]" % (d, p._minval, p._maxval)
//     return "%s%s %s" % (p.name, "*" if p.strict else "", d)
//   print(name, [desc(p) for p in f._parameters])'
constexpr char kPow2[] =
    "{16: 0.047619047619047616, 32: 0.047619047619047616, 64: 0.047619047619047616, ...}";
constexpr char kSteps[] = "{1: 0.8, 2: 0.06, 4: 0.06, ...}";

std::vector<std::string> PowerOfTwoShape() {
  std::vector<std::string> out;
  for (int i = 0; i < 3; ++i) out.push_back(absl::StrCat("k_any_", i, " loguniform[16, 16777216]"));
  for (int i = 0; i < 3; ++i) out.push_back(absl::StrCat("k_pow2_", i, " ", kPow2));
  for (int i = 0; i < 3; ++i) {
    out.push_back(absl::StrCat("k", i, "* {k_any_", i, ": 0.8, k_pow2_", i, ": 0.2}"));
  }
  return out;
}

std::vector<std::string> Concat(std::vector<std::vector<std::string>> parts) {
  std::vector<std::string> out;
  for (const auto& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

TEST(OpFuzzersTest, UnaryParametersAndTensors) {
  EXPECT_THAT(DescribeAll(UnaryOpFuzzer(0)),
              ElementsAreArray(Concat(
                  {{"dim* {1: 0.3, 2: 0.4, 3: 0.3}"},
                   PowerOfTwoShape(),
                   {absl::StrCat("x_step_0 ", kSteps), absl::StrCat("x_step_1 ", kSteps),
                    absl::StrCat("x_step_2 ", kSteps), "random_value uniform[0, 4294967295]"}})));
  EXPECT_THAT(DescribeTensors(UnaryOpFuzzer(0)),
              ElementsAre("x size=('k0', 'k1', 'k2') steps=('x_step_0', 'x_step_1', 'x_step_2') "
                          "p=0.75 dim=dim min=4096 max=33554432 alloc=2147483648 torch.float32"));
}

TEST(OpFuzzersTest, BinaryParametersAndTensors) {
  std::vector<std::string> steps;
  for (int i = 0; i < 3; ++i) {
    steps.push_back(absl::StrCat("x_step_", i, " ", kSteps));
    steps.push_back(absl::StrCat("y_step_", i, " ", kSteps));
  }
  EXPECT_THAT(DescribeAll(BinaryOpFuzzer(0)),
              ElementsAreArray(Concat({{"dim* {1: 0.3, 2: 0.4, 3: 0.3}"},
                                       PowerOfTwoShape(),
                                       {"y_k0* {k0: 0.8, 1: 0.2}", "y_k1* {k1: 0.8, 1: 0.2}",
                                        "y_k2* {k2: 0.8, 1: 0.2}"},
                                       steps,
                                       {"random_value uniform[0, 4294967295]"}})));
  // y is sliced with x's steps, as in the reference.
  EXPECT_THAT(
      DescribeTensors(BinaryOpFuzzer(0, at::kDouble)),
      ElementsAre("x size=('k0', 'k1', 'k2') steps=('x_step_0', 'x_step_1', 'x_step_2') p=0.75 "
                  "dim=dim min=4096 max=33554432 alloc=2147483648 torch.float64",
                  "y size=('y_k0', 'y_k1', 'y_k2') steps=('x_step_0', 'x_step_1', 'x_step_2') "
                  "p=0.75 dim=dim min=None max=None alloc=2147483648 torch.float64"));
}

TEST(OpFuzzersTest, SpectralParametersAndTensors) {
  std::vector<std::string> expected = {"ndim* {1: 0.3, 2: 0.4, 3: 0.3}"};
  for (int i = 0; i < 3; ++i)
    expected.push_back(absl::StrCat("k_any_", i, " loguniform[16, 16384]"));
  for (int i = 0; i < 3; ++i) {
    expected.push_back(absl::StrCat("k_regular_", i,
                                    " {18: 0.005291005291005291, 20: 0.005291005291005291, "
                                    "24: 0.005291005291005291, ...}"));
  }
  for (int i = 0; i < 3; ++i) {
    expected.push_back(absl::StrCat("k", i, "* {k_regular_", i, ": 1.0, k_any_", i, ": 0.0}"));
  }
  for (int i = 0; i < 3; ++i) expected.push_back(absl::StrCat("step_", i, " ", kSteps));
  EXPECT_THAT(DescribeAll(SpectralOpFuzzer(0)), ElementsAreArray(expected));
  EXPECT_THAT(DescribeTensors(SpectralOpFuzzer(0)),
              ElementsAre("x size=('k0', 'k1', 'k2') steps=('step_0', 'step_1', 'step_2') "
                          "p=0.75 dim=ndim min=4096 max=33554432 alloc=2147483648 torch.float64"));
  // probability_regular = 0.75 splits the alias.
  EXPECT_EQ(Describe(SpectralOpFuzzer(0, at::kDouble, false, 0.75)->parameters()[7]),
            "k0* {k_regular_0: 0.75, k_any_0: 0.25}");
}

TEST(OpFuzzersTest, SparseParametersAndTensors) {
  const std::vector<std::string> head = {"dim_parameter* {1: 0.3, 2: 0.4, 3: 0.3}",
                                         "sparse_dim* {1: 0.4, 2: 0.4, 3: 0.2}"};
  const std::vector<std::string> tail = {"density {0.1: 0.4, 0.05: 0.3, 0.01: 0.3}",
                                         "coalesced {True: 0.5, False: 0.5}",
                                         "random_value uniform[0, 4294967295]"};
  EXPECT_THAT(DescribeAll(UnaryOpSparseFuzzer(0)),
              ElementsAreArray(Concat({head, PowerOfTwoShape(), tail})));
  EXPECT_THAT(DescribeAll(BinaryOpSparseFuzzer(0)),
              ElementsAreArray(Concat({head,
                                       PowerOfTwoShape(),
                                       {"y_k0* {k0: 1.0}", "y_k1* {k1: 1.0}", "y_k2* {k2: 1.0}"},
                                       tail})));
  EXPECT_THAT(DescribeTensors(BinaryOpSparseFuzzer(0)),
              ElementsAre("x size=('k0', 'k1', 'k2') dim=dim_parameter sparse_dim=sparse_dim "
                          "min=4096 max=33554432 torch.float32",
                          "y size=('y_k0', 'y_k1', 'y_k2') dim=dim_parameter "
                          "sparse_dim=sparse_dim min=4096 max=33554432 torch.float32"));
}

// /usr/bin/python3 -c 'from torch.utils.benchmark.op_fuzzers import spectral
// print(spectral.REGULAR_SIZES)'
TEST(OpFuzzersTest, RegularSizesAreTheReferences) {
  EXPECT_THAT(
      SpectralRegularSizes(),
      ElementsAreArray<int64_t>(
          {18,    20,    24,    25,    27,    30,    32,    36,    40,    45,    48,    50,
           54,    60,    64,    72,    75,    80,    81,    90,    96,    100,   108,   120,
           125,   128,   135,   144,   150,   160,   162,   180,   192,   200,   216,   225,
           240,   243,   250,   256,   270,   288,   300,   320,   324,   360,   375,   384,
           400,   405,   432,   450,   480,   486,   500,   512,   540,   576,   600,   625,
           640,   648,   675,   720,   729,   750,   768,   800,   810,   864,   900,   960,
           972,   1000,  1024,  1080,  1125,  1152,  1200,  1215,  1250,  1280,  1296,  1350,
           1440,  1458,  1500,  1536,  1600,  1620,  1728,  1800,  1875,  1920,  1944,  2000,
           2025,  2048,  2160,  2187,  2250,  2304,  2400,  2430,  2500,  2560,  2592,  2700,
           2880,  2916,  3000,  3072,  3125,  3200,  3240,  3375,  3456,  3600,  3645,  3750,
           3840,  3888,  4000,  4050,  4096,  4320,  4374,  4500,  4608,  4800,  4860,  5000,
           5120,  5184,  5400,  5625,  5760,  5832,  6000,  6075,  6144,  6250,  6400,  6480,
           6561,  6750,  6912,  7200,  7290,  7500,  7680,  7776,  8000,  8100,  8192,  8640,
           8748,  9000,  9216,  9375,  9600,  9720,  10000, 10125, 10240, 10368, 10800, 10935,
           11250, 11520, 11664, 12000, 12150, 12288, 12500, 12800, 12960, 13122, 13500, 13824,
           14400, 14580, 15000, 15360, 15552, 15625, 16000, 16200, 16384}));
}

TEST(OpFuzzersTest, ByNameWithDefaultDtypes) {
  EXPECT_THAT(OpFuzzerNames(),
              ElementsAre("unary", "binary", "spectral", "sparse_unary", "sparse_binary"));
  auto dtype_of = [](const absl::StatusOr<Fuzzer>& f) {
    const TensorSpec& t = f->tensors()[0];
    return std::holds_alternative<FuzzedTensor>(t) ? std::get<FuzzedTensor>(t).dtype
                                                   : std::get<FuzzedSparseTensor>(t).dtype;
  };
  for (const std::string& name : OpFuzzerNames()) {
    absl::StatusOr<Fuzzer> f = MakeOpFuzzer(name, 3);
    ASSERT_TRUE(f.ok()) << name << ": " << f.status();
    EXPECT_EQ(f->seed(), 3);
    EXPECT_EQ(dtype_of(f), name == "spectral" ? at::kDouble : at::kFloat) << name;
    EXPECT_EQ(dtype_of(MakeOpFuzzer(name, 3, at::kHalf)), at::kHalf) << name;
  }
  EXPECT_THAT(std::string(MakeOpFuzzer("ternary", 0).status().message()),
              HasSubstr("unknown op fuzzer 'ternary'; expected one of unary, binary, spectral"));
  EXPECT_THAT(std::string(UnaryOpFuzzer(-1).status().message()), HasSubstr("out of range"));
  // The reference fills tensors with torch.randint(1, 127): no bool, and no
  // complex sparse tensors.
  EXPECT_THAT(std::string(MakeOpFuzzer("unary", 0, at::kBool).status().message()),
              HasSubstr("torch.bool needs a tensor_constructor"));
  EXPECT_THAT(std::string(MakeOpFuzzer("sparse_unary", 0, at::kBool).status().message()),
              HasSubstr("sparse tensors of dtype torch.bool are not supported"));
  EXPECT_THAT(std::string(MakeOpFuzzer("sparse_binary", 0, at::kComplexFloat).status().message()),
              HasSubstr("sparse tensors of dtype torch.complex64 are not supported"));
}

}  // namespace
}  // namespace icount::fuzzer
