#include "fuzzer/fuzzer.h"

#include <ATen/Context.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/rand.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fuzzer/internal/random_state.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

// Equality with torch.utils.benchmark sample by sample is in
// reference_test.cc; this file covers the rules around it.

namespace icount::fuzzer {
namespace {

using ::testing::HasSubstr;
using P = FuzzedParameter;

std::string ErrorOf(const absl::StatusOr<Fuzzer>& fuzzer) {
  return fuzzer.ok() ? "OK" : std::string(fuzzer.status().message());
}

// A small fuzzer whose tensors are cheap.
absl::StatusOr<Fuzzer> SmallFuzzer(int64_t seed, std::vector<Constraint> constraints = {}) {
  FuzzedTensor x("x", {"n", "m"});
  x.steps = {"s"};
  x.probability_contiguous = 0.5;
  return Fuzzer::Create(
      {P::LogUniform("n", 1, 64), P::Uniform("m", 1, 8), P::Discrete("s", {{1, 0.5}, {2, 0.5}})},
      {x}, std::move(constraints), seed);
}

void ExpectSameSamples(const std::vector<FuzzedSample>& a, const std::vector<FuzzedSample>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].params, b[i].params) << "sample " << i;
    ASSERT_EQ(a[i].tensors.size(), b[i].tensors.size());
    for (size_t t = 0; t < a[i].tensors.size(); ++t) {
      const at::Tensor& x = a[i].tensors[t].tensor;
      const at::Tensor& y = b[i].tensors[t].tensor;
      EXPECT_TRUE(at::equal(x, y)) << "sample " << i;
      EXPECT_EQ(x.strides(), y.strides()) << "sample " << i;
      EXPECT_EQ(a[i].tensors[t].properties.order, b[i].tensors[t].properties.order);
    }
  }
}

TEST(FuzzerTest, TakeRepeatsAcrossCallsAndRejectionsAccumulate) {
  absl::StatusOr<Fuzzer> fuzzer =
      SmallFuzzer(11, {[](const Params& p) { return p.at("n").int_value() % 2 == 0; }});
  ASSERT_TRUE(fuzzer.ok()) << fuzzer.status();
  absl::StatusOr<std::vector<FuzzedSample>> first = fuzzer->Take(6);
  ASSERT_TRUE(first.ok()) << first.status();
  const int64_t generated = fuzzer->candidates_generated();
  const double rate = fuzzer->rejection_rate();
  EXPECT_GT(rate, 0.0);
  EXPECT_EQ(fuzzer->candidates_rejected(), generated - 6);

  absl::StatusOr<std::vector<FuzzedSample>> second = fuzzer->Take(6);
  ASSERT_TRUE(second.ok());
  ExpectSameSamples(*first, *second);
  // The same candidates again: counters double, the rate stays.
  EXPECT_EQ(fuzzer->candidates_generated(), 2 * generated);
  EXPECT_EQ(fuzzer->rejection_rate(), rate);

  // A shorter take is a prefix of a longer one.
  absl::StatusOr<std::vector<FuzzedSample>> shorter = fuzzer->Take(2);
  ASSERT_TRUE(shorter.ok());
  ExpectSameSamples(*shorter, {(*first)[0], (*first)[1]});
  EXPECT_TRUE(fuzzer->Take(0)->empty());
  EXPECT_THAT(std::string(fuzzer->Take(-1).status().message()), HasSubstr("n must be >= 0"));
}

TEST(FuzzerTest, SeedsDiffer) {
  absl::StatusOr<Fuzzer> a = SmallFuzzer(1);
  absl::StatusOr<Fuzzer> b = SmallFuzzer(2);
  ASSERT_TRUE(a.ok() && b.ok());
  const absl::StatusOr<std::vector<FuzzedSample>> sa = a->Take(8);
  const absl::StatusOr<std::vector<FuzzedSample>> sb = b->Take(8);
  ASSERT_TRUE(sa.ok() && sb.ok());
  std::vector<Params> pa, pb;
  for (const FuzzedSample& s : *sa) pa.push_back(s.params);
  for (const FuzzedSample& s : *sb) pb.push_back(s.params);
  EXPECT_NE(pa, pb);
}

TEST(FuzzerTest, StreamsAreIndependentAndOutliveTheFuzzer) {
  std::optional<FuzzerStream> interleaved_a;
  std::optional<FuzzerStream> interleaved_b;
  std::vector<FuzzedSample> sequential;
  {
    absl::StatusOr<Fuzzer> fuzzer = SmallFuzzer(5);
    ASSERT_TRUE(fuzzer.ok());
    absl::StatusOr<std::vector<FuzzedSample>> taken = fuzzer->Take(4);
    ASSERT_TRUE(taken.ok());
    sequential = *std::move(taken);
    interleaved_a.emplace(fuzzer->Stream());
    interleaved_b.emplace(fuzzer->Stream());
    Fuzzer moved = *std::move(fuzzer);  // streams keep what they need
  }
  std::vector<FuzzedSample> a, b;
  for (int i = 0; i < 4; ++i) {
    a.push_back(*interleaved_a->Next());
    b.push_back(*interleaved_b->Next());
  }
  ExpectSameSamples(a, sequential);
  ExpectSameSamples(b, sequential);
}

TEST(FuzzerTest, SeedsTorchAsTheReferenceDoes) {
  FuzzedTensor x("x", {5, 7});
  x.probability_contiguous = 1.0;
  absl::StatusOr<Fuzzer> fuzzer = Fuzzer::Create({}, {x}, 1234);
  ASSERT_TRUE(fuzzer.ok());
  FuzzerStream stream = fuzzer->Stream();
  // torch.manual_seed(state.randint(low=0, high=2 ** 63)), first thing.
  fuzzer::internal::RandomState state(1234);
  EXPECT_EQ(stream.torch_seed(), static_cast<uint64_t>(state.DrawTorchSeed()));
  absl::StatusOr<FuzzedSample> sample = stream.Next();
  ASSERT_TRUE(sample.ok());
  // The values torch.rand gives right after torch.manual_seed(seed), from
  // the global generator.
  at::manual_seed(stream.torch_seed());
  EXPECT_TRUE(at::equal(sample->tensors[0].tensor, at::rand({5, 7})));
}

TEST(FuzzerTest, ConstraintsSeeResolvedParametersAndRejectCandidates) {
  std::vector<Params> seen;
  absl::StatusOr<Fuzzer> fuzzer =
      Fuzzer::Create({P::Uniform("a", 0, 9), P::Discrete("b", {{ParameterAlias{"a"}, 1.0}})}, {},
                     {[&seen](const Params& p) {
                       seen.push_back(p);
                       return p.at("a").int_value() == 7;
                     }},
                     3);
  ASSERT_TRUE(fuzzer.ok());
  absl::StatusOr<std::vector<FuzzedSample>> samples = fuzzer->Take(5);
  ASSERT_TRUE(samples.ok());
  for (const FuzzedSample& s : *samples) {
    EXPECT_EQ(s.params.at("a"), Value(7));
    EXPECT_EQ(s.params.at("b"), Value(7));
  }
  for (const Params& p : seen) EXPECT_EQ(p.at("a"), p.at("b"));  // aliases resolved first
  EXPECT_EQ(fuzzer->candidates_generated(), static_cast<int64_t>(seen.size()));
  EXPECT_EQ(fuzzer->candidates_rejected(), static_cast<int64_t>(seen.size()) - 5);
  EXPECT_NEAR(fuzzer->rejection_rate(), 0.9, 0.06);  // 9 in 10 values of a rejected
}

TEST(FuzzerTest, AliasChainsResolveInAnyOrder) {
  // c -> b -> a, with the alias listed before its target.
  absl::StatusOr<Fuzzer> fuzzer =
      Fuzzer::Create({P::Discrete("c", {{ParameterAlias{"b"}, 1.0}}),
                      P::Discrete("b", {{ParameterAlias{"a"}, 1.0}}), P::Uniform("a", 100, 200)},
                     {}, 0);
  ASSERT_TRUE(fuzzer.ok());
  const absl::StatusOr<std::vector<FuzzedSample>> samples = fuzzer->Take(10);
  ASSERT_TRUE(samples.ok());
  for (const FuzzedSample& s : *samples) {
    EXPECT_EQ(s.params.at("c"), s.params.at("a"));
    EXPECT_EQ(s.params.at("b"), s.params.at("a"));
  }
}

TEST(FuzzerTest, StrictParametersAreHeldAcrossRetries) {
  // Every candidate is recorded; a sample's candidates are those since the
  // previous accepted one.
  std::vector<Params> candidates;
  absl::StatusOr<Fuzzer> fuzzer =
      Fuzzer::Create({P::Uniform("strict", 0, 1000000000, /*strict=*/true),
                      P::Uniform("free", 0, 1000000000), P::Uniform("coin", 0, 9),
                      // Strict, but its outcome is an alias: what is held is the alias, so
                      // it follows "free" (as in the reference).
                      P::Discrete("follows", {{ParameterAlias{"free"}, 1.0}}, /*strict=*/true)},
                     {}, {[&candidates](const Params& p) {
                       candidates.push_back(p);
                       return p.at("coin").int_value() == 0;
                     }},
                     8);
  ASSERT_TRUE(fuzzer.ok());
  ASSERT_TRUE(fuzzer->Take(20).ok());
  int retried = 0;
  std::vector<Params> attempts;
  std::vector<Value> strict_per_sample;
  for (const Params& p : candidates) {
    attempts.push_back(p);
    if (p.at("coin").int_value() != 0) continue;
    // One sample done.
    for (const Params& a : attempts) {
      EXPECT_EQ(a.at("strict"), attempts.front().at("strict"));
      EXPECT_EQ(a.at("follows"), a.at("free"));
    }
    if (attempts.size() > 1) {
      ++retried;
      EXPECT_NE(attempts.front().at("free"), attempts.back().at("free"));
    }
    strict_per_sample.push_back(attempts.front().at("strict"));
    attempts.clear();
  }
  EXPECT_EQ(strict_per_sample.size(), 20u);
  EXPECT_GT(retried, 10);
  // Redrawn for every sample.
  EXPECT_NE(strict_per_sample[0], strict_per_sample[1]);
}

TEST(FuzzerTest, ContiguousFractionFollowsProbability) {
  for (const double p : {0.0, 0.25, 1.0}) {
    FuzzedTensor x("x", {4, 5, 6});
    x.probability_contiguous = p;
    absl::StatusOr<Fuzzer> fuzzer = Fuzzer::Create({}, {x}, 99);
    ASSERT_TRUE(fuzzer.ok());
    absl::StatusOr<std::vector<FuzzedSample>> samples = fuzzer->Take(2000);
    ASSERT_TRUE(samples.ok());
    int contiguous = 0;
    for (const FuzzedSample& s : *samples) {
      const NamedTensor& t = s.tensors[0];
      const bool in_order = t.properties.order == std::vector<int64_t>{0, 1, 2};
      // Without steps, the layout decides contiguity.
      EXPECT_EQ(t.properties.is_contiguous, in_order);
      EXPECT_EQ(t.tensor.is_contiguous(), in_order);
      contiguous += in_order;
    }
    // 2000 draws: the standard deviation of the fraction is below 0.01.
    EXPECT_NEAR(contiguous / 2000.0, p, 0.04) << "probability_contiguous=" << p;
  }
}

TEST(FuzzerTest, SamplesStayWithinElementAndAllocationLimits) {
  FuzzedTensor x("x", {"a", "b"});
  x.steps = {"s", "s"};
  x.min_elements = 100;
  x.max_elements = 5000;
  x.max_allocation_bytes = 40000;
  x.dtype = at::kDouble;
  // Sizes up to 2**62: products far beyond int64 must be rejected, not wrap.
  absl::StatusOr<Fuzzer> fuzzer =
      Fuzzer::Create({P::LogUniform("a", 1, int64_t{1} << 62), P::LogUniform("b", 1, 4096),
                      P::Discrete("s", {{1, 0.5}, {3, 0.5}})},
                     {x}, 17);
  ASSERT_TRUE(fuzzer.ok());
  absl::StatusOr<std::vector<FuzzedSample>> samples = fuzzer->Take(40);
  ASSERT_TRUE(samples.ok()) << samples.status();
  for (const FuzzedSample& s : *samples) {
    const int64_t numel = s.tensors[0].properties.numel;
    const int64_t step = s.params.at("s").int_value();
    EXPECT_GE(numel, 100);
    EXPECT_LE(numel, 5000);
    EXPECT_LE(numel * step * step * 8, 40000);
  }
  EXPECT_GT(fuzzer->rejection_rate(), 0.5);
}

TEST(FuzzerTest, ComplexAllocationsAreCountedByOneComponent) {
  // The reference's dtype_size(complex64) is 4, so 100 complex64 elements
  // (800 bytes) fit a 400-byte limit.
  FuzzedTensor x("x", {100});
  x.dtype = at::kComplexFloat;
  x.max_allocation_bytes = 400;
  absl::StatusOr<Fuzzer> fuzzer = Fuzzer::Create({}, {x}, 0);
  ASSERT_TRUE(fuzzer.ok());
  EXPECT_TRUE(fuzzer->Take(1).ok());
  EXPECT_EQ(fuzzer->rejection_rate(), 0.0);
}

TEST(FuzzerTest, ImpossibleConstraintsStopAtTheAttemptLimit) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Fuzzer> fuzzer = SmallFuzzer(0, {[](const Params&) { return false; }});
  ASSERT_TRUE(fuzzer.ok());
  FuzzerStream stream = fuzzer->Stream();
  const absl::Status error = stream.Next().status();
  EXPECT_EQ(error.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(error.message()),
              HasSubstr("Failed to generate a set of valid parameters: all 1000 candidates "
                        "for sample #0 were rejected (1000 by constraints)"));
  EXPECT_EQ(fuzzer->candidates_generated(), 1000);
  EXPECT_EQ(fuzzer->rejection_rate(), 1.0);
  // A failed stream stays failed, like a Python generator that raised.
  EXPECT_EQ(stream.Next().status(), error);
  EXPECT_EQ(fuzzer->candidates_generated(), 1000);
  EXPECT_EQ(fuzzer->Take(3).status().code(), absl::StatusCode::kResourceExhausted);
  // Milliseconds in practice; a bound this loose fails only on a fuzzer that
  // loops far past its attempt limit (a small test is killed at 60 s anyway).
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(FuzzerTest, ImpossibleLimitsStopAtTheAttemptLimit) {
  FuzzedTensor x("x", {"n"});
  x.min_elements = 1000;
  absl::StatusOr<Fuzzer> fuzzer = Fuzzer::Create({P::Uniform("n", 1, 999)}, {x}, 0);
  ASSERT_TRUE(fuzzer.ok());
  EXPECT_THAT(std::string(fuzzer->Take(1).status().message()),
              HasSubstr("(1000 by the limits of tensor 'x')"));
}

TEST(FuzzerTest, ErrorsInCallbacksAndValuesAreReported) {
  absl::StatusOr<Fuzzer> throws =
      SmallFuzzer(0, {[](const Params& p) { return p.at("missing").Truthy(); }});
  ASSERT_TRUE(throws.ok());
  EXPECT_THAT(std::string(throws->Take(1).status().message()),
              HasSubstr("constraint #0 threw: no parameter named 'missing'"));

  absl::StatusOr<Fuzzer> float_size =
      Fuzzer::Create({P::Uniform("n", 1.0, 4.0)}, {FuzzedTensor("x", {"n"})}, 0);
  ASSERT_TRUE(float_size.ok());
  EXPECT_THAT(std::string(float_size->Take(1).status().message()),
              HasSubstr("size[0] is parameter 'n' = "));

  absl::StatusOr<Fuzzer> negative =
      Fuzzer::Create({P::Uniform("n", -5, -1)}, {FuzzedTensor("x", {"n"})}, 0);
  ASSERT_TRUE(negative.ok());
  EXPECT_THAT(std::string(negative->Take(1).status().message()), HasSubstr("is negative"));
}

TEST(FuzzerTest, ZeroDimensionalTensorsAreScalars) {
  FuzzedTensor x("x", {"n"});
  x.dim_parameter = "dim";
  absl::StatusOr<Fuzzer> fuzzer =
      Fuzzer::Create({P::Uniform("n", 1, 4), P::Discrete("dim", {{0, 1.0}})}, {x}, 0);
  ASSERT_TRUE(fuzzer.ok());
  absl::StatusOr<std::vector<FuzzedSample>> samples = fuzzer->Take(3);
  ASSERT_TRUE(samples.ok()) << samples.status();
  EXPECT_EQ((*samples)[0].tensors[0].tensor.dim(), 0);
  EXPECT_EQ((*samples)[0].tensors[0].properties.numel, 1);
}

TEST(FuzzerCreateTest, AliasCyclesAreRejectedUpFront) {
  EXPECT_THAT(ErrorOf(Fuzzer::Create({P::Discrete("a", {{ParameterAlias{"b"}, 1.0}}),
                                      P::Discrete("b", {{ParameterAlias{"c"}, 0.5}, {1, 0.5}}),
                                      P::Discrete("c", {{ParameterAlias{"a"}, 1.0}})},
                                     {}, 0)),
              HasSubstr("ParameterAlias cycle detected: a -> b -> c -> a"));
  EXPECT_THAT(
      ErrorOf(Fuzzer::Create({P::Discrete("self", {{ParameterAlias{"self"}, 1.0}})}, {}, 0)),
      HasSubstr("cycle detected: self -> self"));
  // An alias of probability 0 is never drawn, so it closes no cycle.
  EXPECT_EQ(ErrorOf(Fuzzer::Create({P::Discrete("a", {{ParameterAlias{"b"}, 1.0}}),
                                    P::Discrete("b", {{ParameterAlias{"a"}, 0.0}, {3, 1.0}})},
                                   {}, 0)),
            "OK");
  EXPECT_THAT(ErrorOf(Fuzzer::Create({P::Discrete("a", {{ParameterAlias{"zz"}, 1.0}})}, {}, 0)),
              HasSubstr("parameter 'a' has an outcome ParameterAlias('zz'), but there is no "
                        "parameter of that name"));
}

TEST(FuzzerCreateTest, NamesMustBeUnique) {
  EXPECT_THAT(ErrorOf(Fuzzer::Create({P::Uniform("x", 1, 2), P::Uniform("n", 1, 2)},
                                     {FuzzedTensor("x", {"n"}), FuzzedTensor("n", {2})}, 0)),
              HasSubstr("Duplicate names in parameters and tensors: {'x', 'n'}"));
  EXPECT_THAT(ErrorOf(Fuzzer::Create({P::Uniform("n", 1, 2), P::Uniform("n", 1, 3)}, {}, 0)),
              HasSubstr("two parameters are named 'n'"));
  EXPECT_THAT(ErrorOf(Fuzzer::Create({}, {FuzzedTensor("t", {1}), FuzzedTensor("t", {2})}, 0)),
              HasSubstr("two tensors are named 't'"));
}

TEST(FuzzerCreateTest, DefinitionsAreChecked) {
  EXPECT_THAT(
      ErrorOf(Fuzzer::Create({P::Discrete("d", {{1, 0.5}, {2, 0.4}})}, {}, 0)),
      HasSubstr("parameter 'd': probabilities sum to 0.9, not 1 (Distribution is not normalized"));
  EXPECT_THAT(ErrorOf(Fuzzer::Create({}, {FuzzedTensor("x", {"n"})}, 0)),
              HasSubstr("tensor 'x': size[0] names 'n', which is not a parameter"));
  FuzzedTensor dim("x", {4});
  dim.dim_parameter = "d";
  EXPECT_THAT(ErrorOf(Fuzzer::Create({}, {dim}, 0)), HasSubstr("dim_parameter names 'd'"));
  FuzzedTensor probability("x", {4});
  probability.probability_contiguous = 1.5;
  EXPECT_THAT(ErrorOf(Fuzzer::Create({}, {probability}, 0)),
              HasSubstr("probability_contiguous must be in [0, 1], got 1.5"));
  FuzzedTensor boolean("x", {4});
  boolean.dtype = at::kBool;
  EXPECT_THAT(ErrorOf(Fuzzer::Create({}, {boolean}, 0)),
              HasSubstr("torch.randint(1, 127), which bool cannot hold"));
  FuzzedSparseTensor complex_sparse("s", {4});
  complex_sparse.dtype = at::kComplexFloat;
  EXPECT_THAT(ErrorOf(Fuzzer::Create(
                  {P::Discrete("density", {{0.5, 1.0}}), P::Discrete("coalesced", {{true, 1.0}})},
                  {complex_sparse}, 0)),
              HasSubstr("sparse tensors of dtype torch.complex64 are not supported"));
  EXPECT_THAT(ErrorOf(Fuzzer::Create({}, {FuzzedSparseTensor("s", {4})}, 0)),
              HasSubstr("tensor 's': density names 'density', which is not a parameter"));
  FuzzedTensor cuda("x", {4});
  cuda.cuda = true;
  if (!at::hasCUDA()) {
    EXPECT_THAT(ErrorOf(Fuzzer::Create({}, {cuda}, 0)), HasSubstr("no CUDA support"));
  }
  EXPECT_THAT(ErrorOf(Fuzzer::Create({}, {}, {Constraint()}, 0)),
              HasSubstr("constraint #0 is empty"));
}

TEST(FuzzerCreateTest, SeedsAreNumpysRange) {
  EXPECT_THAT(ErrorOf(Fuzzer::Create({}, {}, -1)),
              HasSubstr("seed -1 is out of range: Seed must be between 0 and 2**32 - 1"));
  EXPECT_THAT(ErrorOf(Fuzzer::Create({}, {}, int64_t{1} << 32)), HasSubstr("out of range"));
  EXPECT_EQ(ErrorOf(Fuzzer::Create({}, {}, (int64_t{1} << 32) - 1)), "OK");
}

}  // namespace
}  // namespace icount::fuzzer
