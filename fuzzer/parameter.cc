#include "fuzzer/parameter.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "fuzzer/internal/numpy_log2.h"
#include "fuzzer/internal/random_state.h"
#include "fuzzer/value.h"

namespace icount::fuzzer {
namespace {

using fuzzer::internal::RandomState;

constexpr double kTwoTo63 = 9223372036854775808.0;

// `2 ** x` for a Python float x: float_pow calls the C library's pow. Going
// through a volatile pointer keeps the compiler from rewriting pow(2, x) as
// exp2(x), whose last bit may differ.
double PythonTwoToThe(double x) {
  double (*volatile pow_fn)(double, double) = &::pow;
  return pow_fn(2.0, x);
}

}  // namespace

std::string OutcomeToString(const Outcome& outcome) {
  if (const auto* alias = std::get_if<ParameterAlias>(&outcome)) {
    return absl::StrCat("ParameterAlias[alias_to: ", alias->alias_to, "]");
  }
  return std::get<Value>(outcome).ToPython();
}

FuzzedParameter::FuzzedParameter(std::string name, Distribution distribution, bool strict)
    : name_(std::move(name)), distribution_(distribution), strict_(strict) {}

FuzzedParameter FuzzedParameter::Uniform(std::string name, Value minval, Value maxval,
                                         bool strict) {
  FuzzedParameter p(std::move(name), Distribution::kUniform, strict);
  p.minval_ = minval;
  p.maxval_ = maxval;
  return p;
}

FuzzedParameter FuzzedParameter::LogUniform(std::string name, Value minval, Value maxval,
                                            bool strict) {
  FuzzedParameter p(std::move(name), Distribution::kLogUniform, strict);
  p.minval_ = minval;
  p.maxval_ = maxval;
  return p;
}

FuzzedParameter FuzzedParameter::Discrete(std::string name, std::vector<WeightedOutcome> outcomes,
                                          bool strict) {
  FuzzedParameter p(std::move(name), Distribution::kDiscrete, strict);
  p.outcomes_ = std::move(outcomes);
  for (const WeightedOutcome& o : p.outcomes_) p.probabilities_.push_back(o.probability);
  return p;
}

namespace {

// Outcome i of a discrete distribution: its probability is a number >= 0,
// an alias names a parameter, a value is not listed before it.
absl::Status ValidateOutcome(const std::string& where, const std::vector<WeightedOutcome>& outcomes,
                             size_t i) {
  const WeightedOutcome& o = outcomes[i];
  if (std::isnan(o.probability) || o.probability < 0) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": outcome ", OutcomeToString(o.outcome),
                                                   " has probability ", FormatDouble(o.probability),
                                                   "; probabilities cannot be negative or NaN"));
  }
  if (const auto* alias = std::get_if<ParameterAlias>(&o.outcome)) {
    if (alias->alias_to.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": a ParameterAlias outcome has an empty name"));
    }
    return absl::OkStatus();
  }
  for (size_t j = 0; j < i; ++j) {
    const auto* earlier = std::get_if<Value>(&outcomes[j].outcome);
    if (earlier != nullptr && *earlier == std::get<Value>(o.outcome)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": outcome ", OutcomeToString(o.outcome), " is listed twice (as ",
                       OutcomeToString(*earlier),
                       " before); a Python dict would keep only the last probability"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateDiscrete(const std::string& where,
                              const std::vector<WeightedOutcome>& outcomes,
                              const std::vector<double>& probabilities) {
  if (outcomes.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": a discrete distribution needs at least one outcome"));
  }
  // The reference sums with Python's sum(), left to right.
  double sum = 0.0;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (absl::Status status = ValidateOutcome(where, outcomes, i); !status.ok()) return status;
    sum += outcomes[i].probability;
  }
  if (!(std::abs(sum - 1) <= 1e-5)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": probabilities sum to ", FormatDouble(sum),
                     ", not 1 (Distribution is not normalized; the tolerance is 1e-5)"));
  }
  if (absl::Status numpy = RandomState::ValidateProbabilities(probabilities); !numpy.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": probabilities sum to ", FormatDouble(sum), ", which NumPy's choice() rejects (",
        numpy.message(), "; its tolerance is 1.49e-8)"));
  }
  return absl::OkStatus();
}

// The bounds of a uniform or loguniform distribution.
absl::Status ValidateBounds(const std::string& where, FuzzedParameter::Distribution distribution,
                            const Value& minval, const Value& maxval) {
  const char* kind =
      distribution == FuzzedParameter::Distribution::kUniform ? "uniform" : "loguniform";
  for (const Value* bound : {&minval, &maxval}) {
    if (bound->is_bool()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": ", kind, " bounds must be ints or floats, not bools"));
    }
    if (bound->is_double() && !std::isfinite(bound->double_value())) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": ", kind, " bounds must be finite, got ", bound->ToPython()));
    }
  }
  if (CompareValues(minval, maxval) > 0) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": minval ", minval.ToPython(),
                                                   " is greater than maxval ", maxval.ToPython()));
  }
  if (distribution == FuzzedParameter::Distribution::kLogUniform) {
    if (!(minval.AsDouble() > 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": loguniform needs minval > 0 (np.log2 of it), got ", minval.ToPython()));
    }
    if (!(maxval.AsDouble() < kTwoTo63)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": loguniform maxval must be below 2**63, got ", maxval.ToPython()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status FuzzedParameter::Validate() const {
  if (name_.empty()) {
    return absl::InvalidArgumentError("a FuzzedParameter has an empty name");
  }
  const std::string where = absl::StrCat("parameter '", name_, "'");
  if (distribution_ == Distribution::kDiscrete) {
    return ValidateDiscrete(where, outcomes_, probabilities_);
  }
  return ValidateBounds(where, distribution_, minval_, maxval_);
}

absl::StatusOr<Outcome> FuzzedParameter::Sample(RandomState& state) const {
  switch (distribution_) {
    case Distribution::kLogUniform:
      return SampleLogUniform(state);
    case Distribution::kUniform:
      return SampleUniform(state);
    case Distribution::kDiscrete:
      return SampleDiscrete(state);
  }
  return absl::InternalError("unknown distribution");
}

absl::StatusOr<Outcome> FuzzedParameter::SampleLogUniform(RandomState& state) const {
  // int(2 ** state.uniform(np.log2(minval), np.log2(maxval))): the bounds go
  // through NumPy's log2 (see numpy_log2.h), the power through libm's pow.
  absl::StatusOr<double> exponent = state.Uniform(fuzzer::internal::NumpyLog2(minval_.AsDouble()),
                                                  fuzzer::internal::NumpyLog2(maxval_.AsDouble()));
  if (!exponent.ok()) return exponent.status();
  const double truncated = std::trunc(PythonTwoToThe(*exponent));
  if (CompareValues(truncated, minval_) < 0) return Outcome(minval_);
  if (CompareValues(truncated, maxval_) > 0) return Outcome(maxval_);
  // Within [minval, maxval] and maxval < 2**63, so it fits.
  return Outcome(Value(static_cast<int64_t>(truncated)));
}

absl::StatusOr<Outcome> FuzzedParameter::SampleUniform(RandomState& state) const {
  if (minval_.is_int() && maxval_.is_int()) {
    // randint(low=minval, high=maxval + 1), computed without overflowing at
    // INT64_MAX (same draws).
    absl::StatusOr<int64_t> v = state.RandIntInclusive(minval_.int_value(), maxval_.int_value());
    if (!v.ok()) return v.status();
    return Outcome(Value(*v));
  }
  absl::StatusOr<double> v = state.Uniform(minval_.AsDouble(), maxval_.AsDouble());
  if (!v.ok()) return v.status();
  return Outcome(Value(*v));
}

absl::StatusOr<Outcome> FuzzedParameter::SampleDiscrete(RandomState& state) const {
  absl::StatusOr<size_t> index = state.Choice(probabilities_);
  if (!index.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("parameter '", name_, "': ", index.status().message()));
  }
  return outcomes_[*index].outcome;
}

}  // namespace icount::fuzzer
