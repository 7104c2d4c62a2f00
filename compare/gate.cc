#include "compare/gate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compare/text_table.h"
#include "re2/re2.h"

namespace icount {

double MannWhitneyPValue(const std::vector<double>& a, const std::vector<double>& b) {
  const double n1 = static_cast<double>(a.size());
  const double n2 = static_cast<double>(b.size());
  if (a.empty() || b.empty()) return 1;
  std::vector<std::pair<double, int>> all;
  for (double x : a) all.push_back({x, 0});
  for (double x : b) all.push_back({x, 1});
  std::sort(all.begin(), all.end());
  // Average ranks for ties, and the tie correction term.
  double rank_sum_a = 0;
  double tie_term = 0;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double average_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (size_t k = i; k < j; ++k) {
      if (all[k].second == 0) rank_sum_a += average_rank;
    }
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  const double u = rank_sum_a - n1 * (n1 + 1) / 2;
  const double mean = n1 * n2 / 2;
  const double n = n1 + n2;
  const double variance = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (variance <= 0) return 1;
  const double z = (std::fabs(u - mean) - 0.5) / std::sqrt(variance);
  return std::min(1.0, std::erfc(std::max(0.0, z) / std::sqrt(2.0)));
}

absl::Status CheckGateOptions(const GateOptions& options) {
  if (!(options.threshold_pct >= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("threshold_pct must be >= 0, got ", options.threshold_pct));
  }
  if (!(options.threshold_abs >= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("threshold_abs must be >= 0, got ", options.threshold_abs));
  }
  for (const auto& [pattern, pct] : options.pct_overrides) {
    RE2 re(pattern, RE2::Quiet);  // the error is ours to report
    if (!re.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("threshold override \"", pattern, "\" is not a valid regex: ", re.error()));
    }
    if (!(pct >= 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("threshold override \"", pattern, "\" must be >= 0 percent, got ", pct));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<GateReport> Gate(const ResultsFile& baseline, const ResultsFile& current,
                                const GateOptions& options) {
  if (absl::Status status = CheckGateOptions(options); !status.ok()) return status;
  std::vector<std::pair<std::unique_ptr<RE2>, double>> overrides;
  for (const auto& [pattern, pct] : options.pct_overrides) {
    overrides.emplace_back(std::make_unique<RE2>(pattern, RE2::Quiet), pct);
  }
  GateReport report;
  report.checksum_mismatch = !baseline.suite_checksum.empty() && !current.suite_checksum.empty() &&
                             baseline.suite_checksum != current.suite_checksum;
  std::map<std::string, CaseVerdict> cases;
  std::vector<std::string> order;
  auto entry = [&](const std::string& key, const TaskSpec& spec) -> CaseVerdict& {
    auto [it, inserted] = cases.try_emplace(key);
    if (inserted) {
      it->second.key = key;
      it->second.label = ResultCaseTitle(spec);
      order.push_back(key);
    }
    return it->second;
  };
  for (const InstructionCounts& c : current.instruction_counts) {
    entry(ResultCaseKey(c.metadata, c.task_spec), c.task_spec).after = c.counts_per_run;
  }
  for (const InstructionCounts& c : baseline.instruction_counts) {
    entry(ResultCaseKey(c.metadata, c.task_spec), c.task_spec).before = c.counts_per_run;
  }
  std::map<std::string, std::vector<double>> times_before;
  std::map<std::string, std::vector<double>> times_after;
  for (const Measurement& m : current.measurements) {
    const std::string key = ResultCaseKey(m.metadata(), m.task_spec());
    entry(key, m.task_spec()).time_after = m.Median();
    times_after[key] = m.Times();
  }
  for (const Measurement& m : baseline.measurements) {
    const std::string key = ResultCaseKey(m.metadata(), m.task_spec());
    entry(key, m.task_spec()).time_before = m.Median();
    times_before[key] = m.Times();
  }
  for (const std::string& key : order) {
    CaseVerdict& c = cases[key];
    c.threshold_pct = options.threshold_pct;
    for (const auto& [re, pct] : overrides) {
      if (RE2::PartialMatch(key, *re)) {
        c.threshold_pct = pct;
        break;
      }
    }
    if (times_before.count(key) && times_after.count(key)) {
      c.time_p_value = MannWhitneyPValue(times_before[key], times_after[key]);
    }
    if (!c.before.has_value() && !c.after.has_value()) {
      c.verdict = compare::VERDICT_OK;  // wall time only
    } else if (!c.before.has_value()) {
      c.verdict = compare::VERDICT_NEW;
      ++report.new_cases;
    } else if (!c.after.has_value()) {
      c.verdict = compare::VERDICT_MISSING;
      ++report.missing_cases;
    } else {
      const double delta = *c.after - *c.before;
      const double pct = *c.before != 0 ? 100 * delta / std::fabs(*c.before) : (delta ? 100 : 0);
      if (delta > options.threshold_abs && pct > c.threshold_pct) {
        c.verdict = compare::VERDICT_REGRESSION;
        ++report.regressions;
      } else if (-delta > options.threshold_abs && -pct > c.threshold_pct) {
        c.verdict = compare::VERDICT_IMPROVEMENT;
        ++report.improvements;
      } else {
        c.verdict = compare::VERDICT_OK;
      }
    }
    report.cases.push_back(c);
  }
  return report;
}

const char* VerdictName(compare::Verdict verdict) {
  switch (verdict) {
    case compare::VERDICT_OK:
      return "ok";
    case compare::VERDICT_REGRESSION:
      return "regression";
    case compare::VERDICT_IMPROVEMENT:
      return "improvement";
    case compare::VERDICT_NEW:
      return "new";
    case compare::VERDICT_MISSING:
      return "missing";
    default:
      return "unknown";
  }
}

bool TimeChanged(const CaseVerdict& verdict) {
  return verdict.time_p_value.has_value() && *verdict.time_p_value < 0.01;
}

std::string GateMarkdown(const GateReport& report, const GateOptions& options) {
  std::string md = absl::StrFormat(
      "### icount: %s\n\n", report.regressions > 0
                                ? absl::StrCat(report.regressions, " instruction-count regression",
                                               report.regressions > 1 ? "s" : "")
                                : std::string("no instruction-count regression"));
  absl::StrAppendFormat(
      &md,
      "%d cases compared; %d improved; %d new, %d missing. Thresholds: +%.2f%% "
      "and +%.0f instructions per run.%s\n\n",
      static_cast<int>(report.cases.size()), report.improvements, report.new_cases,
      report.missing_cases, options.threshold_pct, options.threshold_abs,
      report.checksum_mismatch ? " **The case sets differ** (suite checksums do not match)." : "");
  TextTable table({{"case"},
                   {"verdict"},
                   {"before", Align::kRight},
                   {"after", Align::kRight},
                   {"change", Align::kRight},
                   {"wall time (p)"}});
  for (const CaseVerdict& c : report.cases) {
    if (c.verdict == compare::VERDICT_OK && !TimeChanged(c)) continue;
    std::string change = "";
    if (c.before && c.after && *c.before != 0) {
      change = absl::StrFormat("%+.0f (%+.2f%%)", *c.after - *c.before,
                               100 * (*c.after - *c.before) / std::fabs(*c.before));
    }
    std::string time = "";
    if (c.time_before && c.time_after) {
      time =
          absl::StrFormat("%.3g -> %.3g us (p=%.3g)%s", *c.time_before * 1e6, *c.time_after * 1e6,
                          c.time_p_value.value_or(1), TimeChanged(c) ? " changed" : "");
    }
    table.AddRow({MarkdownEscape(c.label), VerdictName(c.verdict),
                  c.before ? absl::StrFormat("%.0f", *c.before) : "",
                  c.after ? absl::StrFormat("%.0f", *c.after) : "", change, MarkdownEscape(time)});
  }
  return absl::StrCat(md, table.RenderMarkdown());
}

}  // namespace icount
