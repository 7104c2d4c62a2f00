#include "fuzzer/parameter.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "fuzzer/internal/random_state.h"
#include "fuzzer/value.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

// Expected draws come from torch.utils.benchmark 1.13 under Debian's
// /usr/bin/python3; each test quotes the command that printed them.

namespace icount::fuzzer {
namespace {

using fuzzer::internal::RandomState;
using ::testing::HasSubstr;

// A draw as Python would print it: 171, 1.5, True, ParameterAlias[...].
std::string Draw(const FuzzedParameter& p, RandomState& state) {
  absl::StatusOr<Outcome> outcome = p.Sample(state);
  if (!outcome.ok()) return outcome.status().ToString();
  return OutcomeToString(*outcome);
}

std::string Rows(const std::vector<FuzzedParameter>& params, RandomState& state, int rows) {
  std::string out;
  for (int r = 0; r < rows; ++r) {
    out += "[";
    for (size_t i = 0; i < params.size(); ++i) {
      out += (i ? ", " : "") + Draw(params[i], state);
    }
    out += "]\n";
  }
  return out;
}

// /usr/bin/python3 -c 'import numpy as np
// from torch.utils.benchmark import FuzzedParameter
// s = np.random.RandomState(123)
// ps = [FuzzedParameter("a", 3, 1000, distribution="loguniform"),
//       FuzzedParameter("g", 2.5, 40, distribution="loguniform"),
//       FuzzedParameter("c", 1, 9, distribution="uniform"),
//       FuzzedParameter("f", 0.25, 2.5, distribution="uniform"),
//       FuzzedParameter("big", 0, 2**40, distribution="uniform"),
//       FuzzedParameter("mx", 1, 2.0, distribution="uniform"),
//       FuzzedParameter("d", distribution={0.5: 0.3, 1.5: 0.7}),
//       FuzzedParameter("flag", distribution={True: 0.5, False: 0.5})]
// for _ in range(5): print([p.sample(s) for p in ps])
// print(repr(s.random_sample()))'
TEST(FuzzedParameterTest, DrawsAsTheReferenceDoes) {
  const std::vector<FuzzedParameter> params = {
      FuzzedParameter::LogUniform("a", 3, 1000),
      FuzzedParameter::LogUniform("g", 2.5, 40),
      FuzzedParameter::Uniform("c", 1, 9),
      FuzzedParameter::Uniform("f", 0.25, 2.5),
      FuzzedParameter::Uniform("big", 0, int64_t{1} << 40),
      FuzzedParameter::Uniform("mx", 1, 2.0),
      FuzzedParameter::Discrete("d", {{0.5, 0.3}, {1.5, 0.7}}),
      FuzzedParameter::Discrete("flag", {{true, 0.5}, {false, 0.5}}),
  };
  for (const FuzzedParameter& p : params) ASSERT_TRUE(p.Validate().ok()) << p.name();
  RandomState state(123);
  EXPECT_EQ(Rows(params, state, 5),
            "[171, 5, 3, 1.4904582304365053, 358591625322, 1.423106460124461, 1.5, False]\n"
            "[49, 7, 1, 1.8903618416140937, 1089610676644, 1.3980442553304315, 1.5, True]\n"
            "[8, 10, 5, 1.2126928543850939, 582932096873, 1.740296390734788, 1.5, True]\n"
            "[134, 7, 3, 0.910856604374866, 724844433283, 1.092104939945075, 1.5, True]\n"
            "[52, 8, 5, 2.2521978241152345, 775249485382, 1.4642680557366679, 1.5, True]\n");
  // And the stream is where NumPy's is afterwards.
  EXPECT_EQ(state.RandomSample(), 0.4973087863238618);
}

// A log-uniform draw that truncates below a float minval returns minval as
// given (a float), one above maxval returns maxval; the rest are ints.
// /usr/bin/python3 -c 'import numpy as np
// from torch.utils.benchmark import FuzzedParameter
// s = np.random.RandomState(7)
// g = FuzzedParameter("g", 2.5, 40, distribution="loguniform")
// print([g.sample(s) for _ in range(30)])
// h = FuzzedParameter("h", 1.5, 5.9, distribution="loguniform")
// s = np.random.RandomState(8)
// print([h.sample(s) for _ in range(30)])'
TEST(FuzzedParameterTest, LogUniformClampsToTheBoundsAsGiven) {
  const FuzzedParameter g = FuzzedParameter::LogUniform("g", 2.5, 40);
  RandomState state(7);
  std::string draws;
  for (int i = 0; i < 30; ++i) draws += (i ? ", " : "") + Draw(g, state);
  EXPECT_EQ(draws,
            "3, 21, 8, 18, 37, 11, 10, 3, 5, 9, 16, 23, 7, 3, 5, 31, 4, 8, 33, 2.5, 13, 34, 4, "
            "11, 31, 3, 10, 20, 15, 9");

  const FuzzedParameter h = FuzzedParameter::LogUniform("h", 1.5, 5.9);
  RandomState state8(8);
  draws.clear();
  for (int i = 0; i < 30; ++i) draws += (i ? ", " : "") + Draw(h, state8);
  EXPECT_EQ(draws,
            "4, 5, 4, 3, 2, 1.5, 2, 2, 3, 2, 3, 3, 4, 3, 3, 2, 2, 5, 2, 2, 1.5, 5, 1.5, 2, 1.5, "
            "2, 2, 5, 2, 5");
}

// /usr/bin/python3 -c 'import numpy as np
// from torch.utils.benchmark import FuzzedParameter, ParameterAlias
// p = FuzzedParameter("k", distribution={ParameterAlias("x"): 0.8, 1: 0.2})
// s = np.random.RandomState(5)
// print([p.sample(s) for _ in range(10)])'
TEST(FuzzedParameterTest, DiscreteOutcomesMayBeAliases) {
  const FuzzedParameter k = FuzzedParameter::Discrete("k", {{ParameterAlias{"x"}, 0.8}, {1, 0.2}});
  RandomState state(5);
  std::vector<std::string> draws;
  for (int i = 0; i < 10; ++i) draws.push_back(Draw(k, state));
  const std::string a = "ParameterAlias[alias_to: x]";
  EXPECT_THAT(draws, ::testing::ElementsAre(a, "1", a, "1", a, a, a, a, a, a));
}

TEST(FuzzedParameterTest, IntegerUniformReachesInt64Max) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  const FuzzedParameter p = FuzzedParameter::Uniform("p", max - 1, max);
  ASSERT_TRUE(p.Validate().ok());
  RandomState state(1);
  bool saw_max = false;
  for (int i = 0; i < 20; ++i) {
    absl::StatusOr<Outcome> o = p.Sample(state);
    ASSERT_TRUE(o.ok());
    const int64_t v = std::get<Value>(*o).int_value();
    EXPECT_TRUE(v == max || v == max - 1) << v;
    saw_max = saw_max || v == max;
  }
  EXPECT_TRUE(saw_max);
}

absl::Status ValidateError(const FuzzedParameter& p) { return p.Validate(); }

TEST(FuzzedParameterValidateTest, RejectsBadBounds) {
  EXPECT_THAT(std::string(ValidateError(FuzzedParameter::Uniform("u", 5, 4)).message()),
              HasSubstr("parameter 'u': minval 5 is greater than maxval 4"));
  EXPECT_THAT(std::string(ValidateError(FuzzedParameter::Uniform("u", 2.5, 2)).message()),
              HasSubstr("minval 2.5 is greater than maxval 2"));
  EXPECT_TRUE(FuzzedParameter::Uniform("u", 2, 2.5).Validate().ok());
  EXPECT_TRUE(FuzzedParameter::Uniform("u", 3, 3).Validate().ok());
  EXPECT_THAT(std::string(ValidateError(FuzzedParameter::Uniform("u", false, 3)).message()),
              HasSubstr("not bools"));
  EXPECT_THAT(std::string(ValidateError(FuzzedParameter::Uniform(
                                            "u", 0, std::numeric_limits<double>::infinity()))
                              .message()),
              HasSubstr("finite"));
  EXPECT_THAT(std::string(ValidateError(FuzzedParameter::LogUniform("l", 0, 8)).message()),
              HasSubstr("loguniform needs minval > 0"));
  EXPECT_THAT(std::string(ValidateError(FuzzedParameter::LogUniform("l", 1, 1e19)).message()),
              HasSubstr("below 2**63"));
  EXPECT_THAT(std::string(ValidateError(FuzzedParameter::Uniform("", 0, 1)).message()),
              HasSubstr("empty name"));
}

TEST(FuzzedParameterValidateTest, RejectsBadDistributions) {
  EXPECT_THAT(std::string(ValidateError(FuzzedParameter::Discrete("d", {})).message()),
              HasSubstr("at least one outcome"));
  EXPECT_THAT(
      std::string(ValidateError(FuzzedParameter::Discrete("d", {{1, -0.5}, {2, 1.5}})).message()),
      HasSubstr("cannot be negative"));
  EXPECT_THAT(
      std::string(
          ValidateError(FuzzedParameter::Discrete("d", {{1, std::nan("")}, {2, 1.0}})).message()),
      HasSubstr("NaN"));
  // The reference's own check: within 1e-5 of 1.
  EXPECT_THAT(
      std::string(ValidateError(FuzzedParameter::Discrete("d", {{1, 0.25}, {2, 0.5}})).message()),
      HasSubstr("probabilities sum to 0.75, not 1"));
  // Passes the reference's 1e-5 but not NumPy's choice(), which would raise
  // at the first draw.
  const absl::Status numpy =
      ValidateError(FuzzedParameter::Discrete("d", {{1, 0.5}, {2, 0.500001}}));
  EXPECT_THAT(std::string(numpy.message()), HasSubstr("NumPy's choice() rejects"));
  EXPECT_THAT(std::string(numpy.message()), HasSubstr("probabilities do not sum to 1"));
  // 21 equal shares of 1/21 pass both.
  std::vector<WeightedOutcome> shares;
  for (int i = 0; i < 21; ++i) shares.push_back({i, 1.0 / 21});
  EXPECT_TRUE(FuzzedParameter::Discrete("d", shares).Validate().ok());
}

TEST(FuzzedParameterValidateTest, RejectsOutcomesADictWouldMerge) {
  const absl::Status twice = ValidateError(FuzzedParameter::Discrete("d", {{1, 0.5}, {1.0, 0.5}}));
  EXPECT_EQ(twice.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(twice.message()), HasSubstr("outcome 1.0 is listed twice"));
  EXPECT_FALSE(FuzzedParameter::Discrete("d", {{true, 0.5}, {1, 0.5}}).Validate().ok());
  // Aliases are distinct objects in the reference, even to the same name.
  EXPECT_TRUE(
      FuzzedParameter::Discrete("d", {{ParameterAlias{"x"}, 0.5}, {ParameterAlias{"x"}, 0.5}})
          .Validate()
          .ok());
  EXPECT_THAT(
      std::string(
          ValidateError(FuzzedParameter::Discrete("d", {{ParameterAlias{""}, 1.0}})).message()),
      HasSubstr("empty name"));
}

TEST(FuzzedParameterTest, ZeroProbabilityOutcomesAreNeverDrawn) {
  const FuzzedParameter p = FuzzedParameter::Discrete("p", {{1, 0.0}, {2, 1.0}, {3, 0.0}});
  ASSERT_TRUE(p.Validate().ok());
  RandomState state(0);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(Draw(p, state), "2");
}

}  // namespace
}  // namespace icount::fuzzer
