// FuzzedParameter and ParameterAlias: the random scalars a Fuzzer draws for
// each sample, as in torch.utils.benchmark (fuzzer.py).
//
// Three distributions, each drawing from the fuzzer's NumPy-compatible
// RandomState exactly as the reference does:
//
//   using icount::fuzzer::FuzzedParameter;
//   using icount::fuzzer::ParameterAlias;
//
//   // Integers in [16, 4096], uniform in log space:
//   //   int(2 ** state.uniform(np.log2(16), np.log2(4096))), clamped.
//   FuzzedParameter::LogUniform("k_any", 16, 4096);
//
//   // state.randint(1, 11) when both bounds are ints, state.uniform(0., 1.)
//   // when either is a float.
//   FuzzedParameter::Uniform("n", 1, 10);
//   FuzzedParameter::Uniform("alpha", 0.0, 1.0);
//
//   // A value from a table, by probability (state.choice(..., p=...)). An
//   // outcome may alias another parameter: here "k" is 80% of the time the
//   // value "k_any" got, and 20% of the time 1. Strict parameters keep their
//   // first draw while the fuzzer retries rejected candidates.
//   FuzzedParameter::Discrete("k", {{ParameterAlias{"k_any"}, 0.8}, {1, 0.2}},
//                             /*strict=*/true);
//
// Parameters are checked by Fuzzer::Create (see Validate()), not by the
// factories, so that all the errors of a definition surface in one place.

#ifndef ICOUNT_FUZZER_PARAMETER_H_
#define ICOUNT_FUZZER_PARAMETER_H_

#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fuzzer/internal/random_state.h"
#include "fuzzer/value.h"

namespace icount::fuzzer {

// "Take the value of the parameter named `alias_to`" (the reference's
// ParameterAlias). Chains are followed; cycles are an error.
struct ParameterAlias {
  std::string alias_to;
};

// What a draw yields before aliases are resolved.
using Outcome = std::variant<Value, ParameterAlias>;

// One entry of a discrete distribution (a key and its probability in the
// reference's dict).
struct WeightedOutcome {
  Outcome outcome;
  double probability;
};

// Python-like rendering for messages: "16", "0.5", "ParameterAlias[alias_to: k0]".
std::string OutcomeToString(const Outcome& outcome);

class FuzzedParameter {
 public:
  enum class Distribution { kUniform, kLogUniform, kDiscrete };

  // Uniform over [minval, maxval]: integers when both bounds are ints
  // (randint(minval, maxval + 1)), otherwise the continuous uniform
  // distribution.
  static FuzzedParameter Uniform(std::string name, Value minval, Value maxval, bool strict = false);

  // Log-uniform integers over [minval, maxval]: a sample is as likely to fall
  // in [1, 10) as in [10, 100]. Bounds may be ints or floats; a draw that
  // truncates below minval (or exceeds maxval) returns that bound as given.
  static FuzzedParameter LogUniform(std::string name, Value minval, Value maxval,
                                    bool strict = false);

  // One of `outcomes`, with the given probabilities (which must sum to 1).
  static FuzzedParameter Discrete(std::string name, std::vector<WeightedOutcome> outcomes,
                                  bool strict = false);

  const std::string& name() const { return name_; }
  Distribution distribution() const { return distribution_; }
  // Bounds of the uniform and log-uniform distributions.
  const Value& minval() const { return minval_; }
  const Value& maxval() const { return maxval_; }
  const std::vector<WeightedOutcome>& outcomes() const { return outcomes_; }
  // A strict parameter is drawn once per sample and kept while the fuzzer
  // retries rejected candidates. What is kept is the outcome before alias
  // resolution: a strict parameter whose outcome is an alias of a non-strict
  // one follows that parameter's redraws (as in the reference).
  bool strict() const { return strict_; }

  // The checks the reference makes when the parameter is built or first
  // sampled, with clearer messages, plus those that keep sampling in range:
  //  - name non-empty;
  //  - uniform: bounds are ints or floats (not bools), finite, and
  //    minval <= maxval (NumPy would silently accept high < low);
  //  - log-uniform: additionally 0 < minval and maxval < 2**63;
  //  - discrete: non-empty, no negative or NaN probability, the sum within
  //    1e-5 of 1 (the reference's check) and within NumPy's 1.49e-8 (which
  //    `choice` enforces at the first draw), no outcome twice (a Python dict
  //    cannot hold equal keys: 1, 1.0 and True are one key), no empty alias.
  absl::Status Validate() const;

  // One draw, consuming exactly what the reference's sample() consumes from
  // `state`: one RandomSample() for log-uniform, float uniform and discrete
  // parameters; NumPy's masked rejection draws for integer uniform ones.
  // Call only on a parameter that passed Validate().
  absl::StatusOr<Outcome> Sample(fuzzer::internal::RandomState& state) const;

 private:
  FuzzedParameter(std::string name, Distribution distribution, bool strict);

  absl::StatusOr<Outcome> SampleLogUniform(fuzzer::internal::RandomState& state) const;
  absl::StatusOr<Outcome> SampleUniform(fuzzer::internal::RandomState& state) const;
  absl::StatusOr<Outcome> SampleDiscrete(fuzzer::internal::RandomState& state) const;

  std::string name_;
  Distribution distribution_;
  Value minval_ = 0;
  Value maxval_ = 0;
  std::vector<WeightedOutcome> outcomes_;
  std::vector<double> probabilities_;  // outcomes_[i].probability, for Choice()
  bool strict_;
};

}  // namespace icount::fuzzer

#endif  // ICOUNT_FUZZER_PARAMETER_H_
