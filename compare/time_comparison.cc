#include "compare/time_comparison.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/student_t.h"

namespace icount::compare {
namespace {

double ToPercent(double log_ratio) { return std::expm1(log_ratio) * 100; }

// The first time of `a` or `b` that cannot be used, named; "" when all
// can.
std::string UnusableTimes(const std::vector<double>& a, const std::vector<double>& b) {
  for (const auto& [side, times] :
       {std::pair<const char*, const std::vector<double>*>{"A", &a}, {"B", &b}}) {
    for (size_t i = 0; i < times->size(); ++i) {
      const double t = (*times)[i];
      if (!std::isfinite(t) || t <= 0) {
        return absl::StrCat("side ", side, "'s time in round ", i + 1, " is ", t,
                            " (a timer that went backwards or did not move?)");
      }
    }
  }
  return "";
}

// kUnusable with the first bad time named, or "" when all can be used.
std::string UnusableTimes(const PairedRounds& rounds) {
  if (rounds.a.size() != rounds.b.size()) {
    return absl::StrCat("A has ", rounds.a.size(), " rounds and B ", rounds.b.size(),
                        ": the rounds are not paired");
  }
  return UnusableTimes(rounds.a, rounds.b);
}

double MeanOf(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

// The geometric mean of the first `n` of `times` (all positive).
double GeometricMean(const std::vector<double>& times, size_t n) {
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += std::log(times[i]);
  return std::exp(sum / static_cast<double>(n));
}

// The sample variance (n - 1 in the denominator).
double VarianceOf(const std::vector<double>& values, double mean) {
  double squares = 0;
  for (double x : values) squares += (x - mean) * (x - mean);
  return squares / static_cast<double>(values.size() - 1);
}

// Interval, p-value and resolvable change of a log-ratio `mean` with
// `standard_error` and `df` degrees of freedom; marks `c` testable.
void FillTest(double mean, double standard_error, double df, const TimeComparisonOptions& options,
              TimeComparison& c) {
  const double t_ci = base::StudentTQuantile(1 - options.alpha / 2, df);
  c.ci_low_pct = ToPercent(mean - t_ci * standard_error);
  c.ci_high_pct = ToPercent(mean + t_ci * standard_error);
  c.p_value = standard_error > 0 ? base::StudentTTwoSidedP(mean / standard_error, df)
                                 : (mean == 0 ? 1.0 : 0.0);
  // Half the time significant: the change whose expected t reaches the
  // critical value.
  c.resolvable_pct = ToPercent(t_ci * standard_error);
  c.verdict = TimeVerdict::kUnchanged;
}

// Benjamini-Hochberg over the tested cases, then the minimum effect.
void DecideSignificance(std::vector<TimeComparison>& out, const TimeComparisonOptions& options) {
  std::vector<double> p_values;
  std::vector<size_t> tested;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].verdict != TimeVerdict::kUnchanged) continue;
    p_values.push_back(out[i].p_value);
    tested.push_back(i);
  }
  const std::vector<bool> discoveries = BenjaminiHochberg(p_values, options.alpha);
  for (size_t k = 0; k < tested.size(); ++k) {
    TimeComparison& c = out[tested[k]];
    c.significant = discoveries[k] && std::fabs(c.delta_pct) >= options.min_effect_pct;
    if (c.significant) c.verdict = c.delta_pct > 0 ? TimeVerdict::kSlower : TimeVerdict::kFaster;
  }
}

}  // namespace

std::vector<bool> BenjaminiHochberg(const std::vector<double>& p_values, double q) {
  const size_t m = p_values.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](size_t x, size_t y) { return p_values[x] < p_values[y]; });
  // The largest k with p_(k) <= k q / m; the k smallest are rejected.
  size_t rejected = 0;
  for (size_t k = m; k >= 1; --k) {
    if (p_values[order[k - 1]] <= static_cast<double>(k) * q / static_cast<double>(m)) {
      rejected = k;
      break;
    }
  }
  std::vector<bool> result(m, false);
  for (size_t k = 0; k < rejected; ++k) result[order[k]] = true;
  return result;
}

std::vector<TimeComparison> CompareWallTimes(const std::vector<PairedRounds>& cases,
                                             const TimeComparisonOptions& options) {
  std::vector<TimeComparison> out(cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const PairedRounds& rounds = cases[i];
    TimeComparison& c = out[i];
    c.rounds = static_cast<int>(std::min(rounds.a.size(), rounds.b.size()));
    if (std::string problem = UnusableTimes(rounds); !problem.empty()) {
      c.verdict = TimeVerdict::kUnusable;
      c.problem = std::move(problem);
      continue;
    }
    if (c.rounds == 0) {
      c.problem = "no paired rounds";
      continue;
    }
    c.a_seconds = GeometricMean(rounds.a, c.rounds);
    c.b_seconds = GeometricMean(rounds.b, c.rounds);
    std::vector<double> logs(c.rounds);
    for (int r = 0; r < c.rounds; ++r) logs[r] = std::log(rounds.b[r] / rounds.a[r]);
    const double mean = MeanOf(logs);
    c.delta_pct = ToPercent(mean);
    if (c.rounds < options.min_rounds) {
      c.problem =
          absl::StrCat("too few rounds (", c.rounds, " of ", options.min_rounds, " needed)");
      c.ci_low_pct = c.ci_high_pct = c.delta_pct;
      continue;
    }
    FillTest(mean, std::sqrt(VarianceOf(logs, mean) / c.rounds), c.rounds - 1, options, c);
  }
  DecideSignificance(out, options);
  return out;
}

std::vector<TimeComparison> CompareUnpairedWallTimes(const std::vector<UnpairedRounds>& cases,
                                                     const TimeComparisonOptions& options) {
  std::vector<TimeComparison> out(cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const UnpairedRounds& rounds = cases[i];
    TimeComparison& c = out[i];
    c.rounds = static_cast<int>(std::min(rounds.a.size(), rounds.b.size()));
    if (std::string problem = UnusableTimes(rounds.a, rounds.b); !problem.empty()) {
      c.verdict = TimeVerdict::kUnusable;
      c.problem = std::move(problem);
      continue;
    }
    if (c.rounds == 0) {
      c.problem = rounds.a.empty() ? "no rounds in the baseline" : "no rounds in this run";
      continue;
    }
    std::vector<double> log_a, log_b;
    for (double t : rounds.a) log_a.push_back(std::log(t));
    for (double t : rounds.b) log_b.push_back(std::log(t));
    const double mean_a = MeanOf(log_a);
    const double mean_b = MeanOf(log_b);
    // The geometric means, from the log times the test reads anyway.
    c.a_seconds = std::exp(mean_a);
    c.b_seconds = std::exp(mean_b);
    const double mean = mean_b - mean_a;
    c.delta_pct = ToPercent(mean);
    if (c.rounds < options.min_rounds) {
      c.problem = absl::StrCat("too few rounds (", rounds.a.size(), " in the baseline, ",
                               rounds.b.size(), " now; ", options.min_rounds, " needed on each)");
      c.ci_low_pct = c.ci_high_pct = c.delta_pct;
      continue;
    }
    const double na = static_cast<double>(log_a.size());
    const double nb = static_cast<double>(log_b.size());
    const double va = VarianceOf(log_a, mean_a) / na;
    const double vb = VarianceOf(log_b, mean_b) / nb;
    const double standard_error = std::sqrt(va + vb);
    // Welch-Satterthwaite; with no spread at all, the pooled count.
    const double df = va + vb > 0
                          ? (va + vb) * (va + vb) / (va * va / (na - 1) + vb * vb / (nb - 1))
                          : na + nb - 2;
    FillTest(mean, standard_error, df, options, c);
  }
  DecideSignificance(out, options);
  return out;
}

const char* TimeVerdictName(TimeVerdict verdict) {
  switch (verdict) {
    case TimeVerdict::kUnchanged:
      return "unchanged";
    case TimeVerdict::kSlower:
      return "slower";
    case TimeVerdict::kFaster:
      return "faster";
    case TimeVerdict::kTooFewRounds:
      return "too few rounds";
    case TimeVerdict::kUnusable:
      return "unusable";
  }
  return "unknown";
}

std::string FormatTimeChange(const TimeComparison& c) {
  if (c.verdict == TimeVerdict::kUnusable) return absl::StrCat("unusable: ", c.problem);
  if (c.verdict == TimeVerdict::kTooFewRounds) return c.problem;
  auto percent = [](double x) {
    return std::fabs(x) < 1 ? absl::StrFormat("%+.2f", x) : absl::StrFormat("%+.1f", x);
  };
  return absl::StrCat(percent(c.delta_pct), "% [", percent(c.ci_low_pct), ", ",
                      percent(c.ci_high_pct), "]");
}

double RoundedForJson(double x) { return std::strtod(absl::StrFormat("%.6g", x).c_str(), nullptr); }

std::optional<double> PercentChange(double a, double b) {
  if (a == 0) return std::nullopt;
  return (b - a) / std::fabs(a) * 100;
}

CaseComparisonProto CaseComparisonToProto(const std::string& case_key,
                                          const CaseComparison& comparison) {
  // A figure is set when there is a finite one (JSON has no NaN or infinity).
  auto finite = [](std::optional<double> x) -> std::optional<double> {
    if (!x.has_value() || !std::isfinite(*x)) return std::nullopt;
    return RoundedForJson(*x);
  };
  CaseComparisonProto proto;
  proto.set_case_(case_key);
  if (auto x = finite(comparison.counts_delta_pct)) proto.set_counts_delta_pct(*x);
  if (auto x = finite(comparison.allocations_delta)) proto.set_allocations_delta(*x);
  if (auto x = finite(comparison.cycles_delta_pct)) proto.set_estimated_cycles_delta_pct(*x);
  if (comparison.time == nullptr) return proto;
  const TimeComparison& t = *comparison.time;
  proto.set_time_significant(t.significant);
  proto.set_time_verdict(TimeVerdictName(t.verdict));
  proto.set_time_rounds(t.rounds);
  if (!t.problem.empty()) proto.set_time_problem(t.problem);
  if (t.verdict == TimeVerdict::kTooFewRounds || t.verdict == TimeVerdict::kUnusable) return proto;
  if (auto x = finite(t.delta_pct)) proto.set_time_delta_pct(*x);
  if (auto low = finite(t.ci_low_pct), high = finite(t.ci_high_pct); low && high) {
    proto.add_time_ci_pct(*low);
    proto.add_time_ci_pct(*high);
  }
  if (auto x = finite(t.p_value)) proto.set_time_p_value(*x);
  if (auto x = finite(t.resolvable_pct)) proto.set_time_resolvable_pct(*x);
  return proto;
}

}  // namespace icount::compare
