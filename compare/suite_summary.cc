#include "compare/suite_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/text.h"

namespace icount::compare {
namespace {

constexpr int kResamples = 2000;
constexpr uint64_t kSeed = 0x1c0047;  // fixed: the same cases give the same interval

double ToPct(double mean_log_ratio) { return (std::exp(mean_log_ratio) - 1) * 100; }

std::string SignedPct(double pct, int decimals) {
  // "+0.00" and "-0.00" read as changes: one that rounds to zero has no sign.
  if (std::fabs(pct) < 0.5 * std::pow(10.0, -decimals))
    return absl::StrFormat("%.*f", decimals, 0.0);
  return absl::StrFormat("%+.*f", decimals, pct);
}

}  // namespace

std::string SuiteMetricName(SuiteMetric metric) {
  switch (metric) {
    case SuiteMetric::kInstructions:
      return "instructions";
    case SuiteMetric::kAllocations:
      return "allocations";
    case SuiteMetric::kEstimatedCycles:
      return "estimated cycles";
    case SuiteMetric::kWallTime:
      return "wall time";
  }
  return "unknown";
}

SuiteChangeBuilder::SuiteChangeBuilder(SuiteMetric metric, double unchanged_pct)
    : metric_(metric), unchanged_pct_(unchanged_pct) {}

void SuiteChangeBuilder::Add(double a, double b) {
  const double limit = unchanged_pct_ / 100 * std::fabs(a);
  if (b - a > limit) {
    ++up_;
  } else if (a - b > limit) {
    ++down_;
  } else {
    ++unchanged_;
  }
  if (a > 0 && b > 0 && std::isfinite(a) && std::isfinite(b))
    log_ratios_.push_back(std::log(b / a));
}

void SuiteChangeBuilder::AddTime(const TimeComparison& comparison) {
  by_verdict_ = true;
  if (comparison.verdict == TimeVerdict::kTooFewRounds ||
      comparison.verdict == TimeVerdict::kUnusable) {
    ++no_verdict_;
    return;
  }
  up_ += comparison.verdict == TimeVerdict::kSlower;
  down_ += comparison.verdict == TimeVerdict::kFaster;
  unchanged_ += comparison.verdict == TimeVerdict::kUnchanged;
  const double ratio = 1 + comparison.delta_pct / 100;
  if (ratio > 0 && std::isfinite(ratio)) log_ratios_.push_back(std::log(ratio));
}

SuiteChange SuiteChangeBuilder::Summarize() const {
  SuiteChange change;
  change.metric = metric_;
  change.cases = static_cast<int>(log_ratios_.size());
  change.up = up_;
  change.down = down_;
  change.unchanged = unchanged_;
  change.unchanged_pct = unchanged_pct_;
  change.by_verdict = by_verdict_;
  change.only_a = only_a_;
  change.only_b = only_b_;
  change.no_verdict = no_verdict_;
  if (log_ratios_.empty()) return change;
  const size_t n = log_ratios_.size();
  double sum = 0;
  for (double x : log_ratios_) sum += x;
  change.geomean_pct = ToPct(sum / static_cast<double>(n));
  if (!change.has_interval()) return change;
  // Percentile bootstrap over cases. The generator's raw output (not a
  // std:: distribution, whose results differ between standard libraries)
  // picks the cases, so the interval is the same everywhere.
  std::mt19937_64 random(kSeed);
  std::vector<double> means(kResamples);
  for (double& mean : means) {
    double resampled = 0;
    for (size_t i = 0; i < n; ++i) resampled += log_ratios_[random() % n];
    mean = resampled / static_cast<double>(n);
  }
  std::sort(means.begin(), means.end());
  change.ci_low_pct = ToPct(means[static_cast<size_t>(0.025 * (kResamples - 1))]);
  change.ci_high_pct = ToPct(means[static_cast<size_t>(std::ceil(0.975 * (kResamples - 1)))]);
  return change;
}

CaseValues CaseValuesOf(const timer::InstructionCounts* a, const timer::InstructionCounts* b,
                        const TimeComparison* time) {
  CaseValues values;
  if (a != nullptr) {
    values.a_instructions = a->counts_per_run;
    values.a_allocations = a->allocations_per_run;
    values.a_cycles = a->estimated_cycles_per_run;
  }
  if (b != nullptr) {
    values.b_instructions = b->counts_per_run;
    values.b_allocations = b->allocations_per_run;
    values.b_cycles = b->estimated_cycles_per_run;
  }
  values.time = time;
  return values;
}

std::optional<CaseComparison> CompareCase(const CaseValues& values) {
  CaseComparison comparison;
  if (values.a_instructions && values.b_instructions) {
    comparison.counts_delta_pct = PercentChange(*values.a_instructions, *values.b_instructions);
  }
  if (values.a_allocations && values.b_allocations) {
    comparison.allocations_delta = *values.b_allocations - *values.a_allocations;
  }
  if (values.a_cycles && values.b_cycles) {
    comparison.cycles_delta_pct = PercentChange(*values.a_cycles, *values.b_cycles);
  }
  comparison.time = values.time;
  if (!comparison.counts_delta_pct.has_value() && comparison.time == nullptr) return std::nullopt;
  return comparison;
}

std::vector<SuiteChange> SummarizeSuite(const std::vector<CaseValues>& cases) {
  SuiteChangeBuilder instructions(SuiteMetric::kInstructions, /*unchanged_pct=*/0.1);
  SuiteChangeBuilder allocations(SuiteMetric::kAllocations, /*unchanged_pct=*/0);
  SuiteChangeBuilder cycles(SuiteMetric::kEstimatedCycles, /*unchanged_pct=*/0.1);
  SuiteChangeBuilder wall_time(SuiteMetric::kWallTime, /*unchanged_pct=*/0);
  bool simulated = false;
  bool allocated = false;
  bool timed = false;
  for (const CaseValues& c : cases) {
    if (c.a_instructions && c.b_instructions) {
      instructions.Add(*c.a_instructions, *c.b_instructions);
    } else if (c.a_instructions) {
      instructions.AddOnlyA();
    } else if (c.b_instructions) {
      instructions.AddOnlyB();
    }
    if (c.a_allocations && c.b_allocations) {
      allocations.Add(*c.a_allocations, *c.b_allocations);
      allocated = true;
    }
    if (c.a_cycles && c.b_cycles) {
      cycles.Add(*c.a_cycles, *c.b_cycles);
      simulated = true;
    }
    if (c.time != nullptr) {
      wall_time.AddTime(*c.time);
      timed = true;
    }
  }
  std::vector<SuiteChange> changes = {instructions.Summarize()};
  if (allocated) changes.push_back(allocations.Summarize());
  if (simulated) changes.push_back(cycles.Summarize());
  if (timed) changes.push_back(wall_time.Summarize());
  return changes;
}

std::string FormatSuiteChange(const SuiteChange& change) {
  std::string text = absl::StrCat(SuiteMetricName(change.metric), ": ");
  const int compared = change.up + change.down + change.unchanged;
  if (compared == 0) {
    absl::StrAppend(
        &text, change.no_verdict > 0 ? "no case with a verdict" : "no case measured on both sides");
  } else {
    if (change.cases > 0) {
      absl::StrAppend(&text, SignedPct(change.geomean_pct, 2), "%",
                      change.has_interval()
                          ? absl::StrCat(" [", SignedPct(change.ci_low_pct, 2), ", ",
                                         SignedPct(change.ci_high_pct, 2), "]")
                          : "",
                      " over ", base::CountOf(change.cases, "case"));
    } else {
      absl::StrAppend(&text, "no geometric mean (no case above 0 on both sides)");
    }
    if (change.by_verdict) {
      // Each case's own verdict, from its rounds: the interval above is
      // over cases, so a suite can shift with no case significant alone.
      absl::StrAppend(&text, " (case by case: ", change.up, " significantly slower, ",
                      change.down, " significantly faster, ", change.unchanged, " not)");
    } else if (change.unchanged_pct > 0) {
      absl::StrAppend(&text, " (", change.up, " up, ", change.down, " down, ", change.unchanged,
                      " within ", absl::StrFormat("%g", change.unchanged_pct), "%)");
    } else {
      absl::StrAppend(&text, " (", change.up, " up, ", change.down, " down, ", change.unchanged,
                      " the same)");
    }
    if (change.cases > 0 && change.cases < compared) {
      absl::StrAppend(&text, "; the mean leaves out ", compared - change.cases,
                      " with 0 on a side");
    }
  }
  if (change.no_verdict > 0) {
    absl::StrAppend(&text, "; ", base::CountOf(change.no_verdict, "case"),
                    " without one (too few rounds or unusable times), left out");
  }
  const int one_sided = change.only_a + change.only_b;
  if (one_sided > 0) {
    absl::StrAppend(&text, "; ", base::CountOf(one_sided, "case"), " on one side only (A ",
                    change.only_a, ", B ", change.only_b, "), left out");
  }
  return text;
}

SuiteChangeProto SuiteChangeToProto(const SuiteChange& change) {
  SuiteChangeProto proto;
  proto.set_cases(change.cases);
  if (change.cases > 0) {
    proto.set_geomean_change_pct(RoundedForJson(change.geomean_pct));
  }
  if (change.has_interval()) {
    proto.add_ci_pct(RoundedForJson(change.ci_low_pct));
    proto.add_ci_pct(RoundedForJson(change.ci_high_pct));
  }
  proto.set_up(change.up);
  proto.set_down(change.down);
  proto.set_unchanged(change.unchanged);
  if (change.by_verdict) {
    proto.set_by("significance");
    proto.set_no_verdict(change.no_verdict);
  } else {
    proto.set_unchanged_pct(change.unchanged_pct);
  }
  proto.set_only_a(change.only_a);
  proto.set_only_b(change.only_b);
  return proto;
}

SuiteSummaryProto SuiteSummaryToProto(const std::vector<SuiteChange>& changes) {
  SuiteSummaryProto proto;
  for (const SuiteChange& change : changes) {
    SuiteChangeProto* member = nullptr;
    switch (change.metric) {
      case SuiteMetric::kInstructions:
        member = proto.mutable_instructions();
        break;
      case SuiteMetric::kAllocations:
        member = proto.mutable_allocations();
        break;
      case SuiteMetric::kEstimatedCycles:
        member = proto.mutable_estimated_cycles();
        break;
      case SuiteMetric::kWallTime:
        member = proto.mutable_wall_time();
        break;
    }
    *member = SuiteChangeToProto(change);
  }
  return proto;
}

}  // namespace icount::compare
