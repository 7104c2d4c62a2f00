#include "compare/gate.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/util/json_util.h>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/text.h"
#include "compare/delta_table.h"
#include "compare/node_check.h"
#include "compare/text_table.h"
#include "compare/time_comparison.h"
#include "re2/re2.h"

namespace icount::compare {
namespace {

// `value` (in its unit) to three significant figures, never in scientific
// notation: 904, 90.4, 9.04, 0.904, 0.0904.
std::string ThreeFigures(double value) {
  if (value == 0) return "0";
  // Rounded first, so that 0.99999 counts one whole digit ("1.00").
  const double rounded = std::strtod(absl::StrFormat("%.2e", value).c_str(), nullptr);
  const int whole_digits = static_cast<int>(std::floor(std::log10(std::fabs(rounded)))) + 1;
  return absl::StrFormat("%.*f", std::clamp(3 - whole_digits, 0, 9), rounded);
}

// Two wall times in one unit, the one that suits the larger:
// "0.904 -> 1.13 us" (not "904 -> 1.13e+03 ns").
std::string FormatTimePair(double before_seconds, double after_seconds) {
  const auto [unit, scale] = timer::SelectTimeUnit(std::max(before_seconds, after_seconds));
  return absl::StrCat(ThreeFigures(before_seconds / scale), " -> ",
                      ThreeFigures(after_seconds / scale), " ", unit);
}

std::optional<double> AllocationsDelta(const CaseVerdict& verdict) {
  if (!verdict.allocations_before || !verdict.allocations_after) return std::nullopt;
  return *verdict.allocations_after - *verdict.allocations_before;
}

bool AllocationsCounted(const std::vector<CaseVerdict>& cases) {
  return std::any_of(cases.begin(), cases.end(),
                     [](const CaseVerdict& c) { return AllocationsDelta(c).has_value(); });
}

// The case's values: the baseline's as A, this run's as B.
CaseValues ValuesOf(const CaseVerdict& c) {
  return {c.before,        c.after,        c.allocations_before,       c.allocations_after,
          c.cycles_before, c.cycles_after, c.time ? &*c.time : nullptr};
}

std::vector<SuiteChange> Summarize(const std::vector<CaseVerdict>& cases) {
  std::vector<CaseValues> values;
  for (const CaseVerdict& c : cases) values.push_back(ValuesOf(c));
  return SummarizeSuite(values);
}

// The cases of both files by key, with each case's wall-time rounds.
struct GateCases {
  std::map<std::string, CaseVerdict> by_key;
  std::vector<std::string> order;  // first seen first
  // Each measurement of a case is one round; its median is the round's time.
  std::map<std::string, UnpairedRounds> rounds;

  // The case `key`, added (titled after `spec`) when first seen.
  CaseVerdict& Entry(const std::string& key, const timer::TaskSpec& spec) {
    auto [it, inserted] = by_key.try_emplace(key);
    if (inserted) {
      it->second.key = key;
      it->second.label = timer::ResultCaseTitle(spec);
      order.push_back(key);
    }
    return it->second;
  }
};

GateCases CollectCases(const timer::ResultsFile& baseline, const timer::ResultsFile& current) {
  GateCases cases;
  for (const timer::InstructionCounts& c : current.instruction_counts) {
    CaseVerdict& verdict = cases.Entry(timer::ResultCaseKey(c.metadata, c.task_spec), c.task_spec);
    verdict.after = c.counts_per_run;
    verdict.allocations_after = c.allocations_per_run;
    verdict.cycles_after = c.estimated_cycles_per_run;
  }
  for (const timer::InstructionCounts& c : baseline.instruction_counts) {
    CaseVerdict& verdict = cases.Entry(timer::ResultCaseKey(c.metadata, c.task_spec), c.task_spec);
    verdict.before = c.counts_per_run;
    verdict.allocations_before = c.allocations_per_run;
    verdict.cycles_before = c.estimated_cycles_per_run;
  }
  for (const timer::Measurement& m : baseline.measurements) {
    const std::string key = timer::ResultCaseKey(m.metadata(), m.task_spec());
    cases.Entry(key, m.task_spec());
    cases.rounds[key].a.push_back(m.Median());
  }
  for (const timer::Measurement& m : current.measurements) {
    const std::string key = timer::ResultCaseKey(m.metadata(), m.task_spec());
    cases.Entry(key, m.task_spec());
    cases.rounds[key].b.push_back(m.Median());
  }
  return cases;
}

// Sets `warnings` to those about the nodes that counted and the hosts that
// timed; returns the cases timed on different hosts.
std::set<std::string> WarnAboutNodes(const timer::ResultsFile& baseline,
                                     const timer::ResultsFile& current, const GateOptions& options,
                                     std::vector<std::string>* warnings) {
  *warnings = CountNodeWarnings(baseline, current, "the baseline", "this run");
  for (std::string& warning : CountSettingWarnings(baseline, current, "the baseline", "this run")) {
    warnings->push_back(std::move(warning));
  }
  const std::set<std::string> across_hosts =
      CasesTimedOnDifferentHosts(baseline, current, "the baseline", "this run", warnings);
  if (!across_hosts.empty()) {
    warnings->back() += options.compare_time_across_hosts
                            ? " (compared anyway: --compare_time_across_hosts)"
                            : " (not compared; --compare_time_across_hosts compares them)";
  }
  return across_hosts;
}

// Compares the wall times of the cases that both files timed (on one host,
// unless told otherwise), and counts the verdicts in `report`.
void CompareTimes(const std::set<std::string>& across_hosts, const GateOptions& options,
                  GateCases* cases, GateReport* report) {
  std::vector<std::string> timed;
  std::vector<UnpairedRounds> timed_rounds;
  for (const std::string& key : cases->order) {
    auto it = cases->rounds.find(key);
    if (it == cases->rounds.end() || it->second.a.empty() || it->second.b.empty()) continue;
    if (across_hosts.count(key) && !options.compare_time_across_hosts) {
      ++report->time_across_hosts;
      continue;
    }
    timed.push_back(key);
    timed_rounds.push_back(it->second);
  }
  const std::vector<TimeComparison> times = CompareUnpairedWallTimes(timed_rounds, options.time);
  for (size_t k = 0; k < timed.size(); ++k) {
    cases->by_key[timed[k]].time = times[k];
    report->time_regressions += times[k].verdict == TimeVerdict::kSlower;
    report->time_improvements += times[k].verdict == TimeVerdict::kFaster;
  }
}

// The percent threshold for case `key`: that of the first override whose
// regex matches it, else the default.
double ThresholdPctFor(const std::string& key,
                       const std::vector<std::pair<std::unique_ptr<RE2>, double>>& overrides,
                       const GateOptions& options) {
  for (const auto& [re, pct] : overrides) {
    if (RE2::PartialMatch(key, *re)) return pct;
  }
  return options.threshold_pct;
}

// Sets `c`'s verdict from its instruction counts and counts it in `report`.
void JudgeCounts(const GateOptions& options, CaseVerdict* c, GateReport* report) {
  if (!c->before.has_value() && !c->after.has_value()) {
    c->verdict = VERDICT_OK;  // wall time only
  } else if (!c->before.has_value()) {
    c->verdict = VERDICT_NEW;
    ++report->new_cases;
  } else if (!c->after.has_value()) {
    c->verdict = VERDICT_MISSING;
    ++report->missing_cases;
  } else {
    const double delta = *c->after - *c->before;
    const double pct = *c->before != 0 ? 100 * delta / std::fabs(*c->before) : (delta ? 100 : 0);
    if (delta > options.threshold_abs && pct > c->threshold_pct) {
      c->verdict = VERDICT_REGRESSION;
      ++report->regressions;
    } else if (-delta > options.threshold_abs && -pct > c->threshold_pct) {
      c->verdict = VERDICT_IMPROVEMENT;
      ++report->improvements;
    } else {
      c->verdict = VERDICT_OK;
    }
  }
}

// "2 instruction-count regressions, 1 wall-time slowdown (reported, not
// gating)".
std::string Headline(const GateReport& report, const GateOptions& options) {
  std::string headline = report.regressions > 0
                             ? absl::StrCat(report.regressions, " instruction-count regression",
                                            report.regressions > 1 ? "s" : "")
                             : std::string("no instruction-count regression");
  if (report.time_regressions > 0) {
    absl::StrAppend(&headline, ", ", report.time_regressions, " wall-time slowdown",
                    report.time_regressions > 1 ? "s" : "",
                    options.gate_on_time ? "" : " (reported, not gating)");
  }
  return headline;
}

// The suite-level changes as a list, or nothing when there are none.
std::string SuiteSummaryMarkdown(const std::vector<SuiteChange>& summary) {
  if (summary.empty()) return "";
  std::string md =
      "Overall, this run against the baseline (geometric mean over cases, 95% "
      "interval):\n\n";
  for (const SuiteChange& change : summary) {
    absl::StrAppend(&md, "- ", MarkdownEscape(FormatSuiteChange(change)), "\n");
  }
  absl::StrAppend(&md, "\n");
  return md;
}

// A case's row in the table of cases worth reading.
std::vector<std::string> CaseRow(const CaseVerdict& c, bool allocations_counted) {
  std::string change = "";
  if (c.before && c.after && *c.before != 0) {
    change = absl::StrFormat("%+.0f (%+.2f%%)", *c.after - *c.before,
                             100 * (*c.after - *c.before) / std::fabs(*c.before));
  }
  std::string time = "";
  if (c.time.has_value()) {
    const TimeComparison& t = *c.time;
    time = t.a_seconds > 0 && t.b_seconds > 0
               ? absl::StrCat(FormatTimePair(t.a_seconds, t.b_seconds), ", ")
               : std::string();
    absl::StrAppend(&time, FormatTimeChange(t), t.significant ? " *" : "");
  }
  std::vector<std::string> row = {MarkdownEscape(c.label), VerdictName(c.verdict),
                                  c.before ? absl::StrFormat("%.0f", *c.before) : "",
                                  c.after ? absl::StrFormat("%.0f", *c.after) : "", change};
  if (allocations_counted) {
    row.push_back(AllocationsChanged(c)
                      ? absl::StrCat(FormatAllocations(*c.allocations_before), " -> ",
                                     FormatAllocations(*c.allocations_after))
                  : c.allocations_after ? FormatAllocations(*c.allocations_after)
                                        : "");
  }
  row.push_back(MarkdownEscape(time));
  return row;
}

// The table of the cases worth reading: every verdict but ok, and wall-time
// and allocation changes.
std::string CaseTableMarkdown(const std::vector<CaseVerdict>& cases, bool allocations_counted) {
  std::vector<TextTable::Column> columns = {{"case"},
                                            {"verdict"},
                                            {"before", Align::kRight},
                                            {"after", Align::kRight},
                                            {"change", Align::kRight}};
  if (allocations_counted) columns.push_back({"allocations per run", Align::kRight});
  columns.push_back({"wall time (95% CI)"});
  TextTable table(std::move(columns));
  for (const CaseVerdict& c : cases) {
    if (c.verdict == VERDICT_OK && !TimeChanged(c) && !AllocationsChanged(c)) continue;
    table.AddRow(CaseRow(c, allocations_counted));
  }
  return table.RenderMarkdown();
}

}  // namespace

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

absl::StatusOr<GateReport> Gate(const timer::ResultsFile& baseline,
                                const timer::ResultsFile& current, const GateOptions& options) {
  if (absl::Status status = CheckGateOptions(options); !status.ok()) return status;
  std::vector<std::pair<std::unique_ptr<RE2>, double>> overrides;
  for (const auto& [pattern, pct] : options.pct_overrides) {
    overrides.emplace_back(std::make_unique<RE2>(pattern, RE2::Quiet), pct);
  }
  GateReport report;
  report.checksum_mismatch = !baseline.suite_checksum.empty() && !current.suite_checksum.empty() &&
                             baseline.suite_checksum != current.suite_checksum;
  GateCases cases = CollectCases(baseline, current);
  const std::set<std::string> across_hosts =
      WarnAboutNodes(baseline, current, options, &report.node_warnings);
  CompareTimes(across_hosts, options, &cases, &report);
  for (const std::string& key : cases.order) {
    CaseVerdict& c = cases.by_key[key];
    c.threshold_pct = ThresholdPctFor(key, overrides, options);
    JudgeCounts(options, &c, &report);
    report.allocation_changes += AllocationsChanged(c);
    report.cases.push_back(c);
  }
  report.summary = Summarize(report.cases);
  return report;
}

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case VERDICT_OK:
      return "ok";
    case VERDICT_REGRESSION:
      return "regression";
    case VERDICT_IMPROVEMENT:
      return "improvement";
    case VERDICT_NEW:
      return "new";
    case VERDICT_MISSING:
      return "missing";
    default:
      return "unknown";
  }
}

bool TimeChanged(const CaseVerdict& verdict) {
  return verdict.time.has_value() && verdict.time->significant;
}

bool AllocationsChanged(const CaseVerdict& verdict) {
  return verdict.allocations_before.has_value() && verdict.allocations_after.has_value() &&
         AllocationsDiffer(*verdict.allocations_before, *verdict.allocations_after);
}

bool GateFails(const GateReport& report, const GateOptions& options) {
  return report.regressions > 0 || (options.gate_on_time && report.time_regressions > 0);
}

CiFileProto GateToProto(const GateReport& report) {
  CiFileProto proto;
  proto.set_regressions(report.regressions);
  proto.set_time_regressions(report.time_regressions);
  for (const std::string& warning : report.node_warnings) proto.add_node_warnings(warning);
  *proto.mutable_summary() = SuiteSummaryToProto(report.summary);
  for (const CaseVerdict& c : report.cases) {
    if (std::optional<CaseComparison> comparison = CompareCase(ValuesOf(c))) {
      *proto.add_comparisons() = CaseComparisonToProto(c.key, *comparison);
    }
  }
  return proto;
}

std::string GateMarkdown(const GateReport& report, const GateOptions& options) {
  std::string md = absl::StrFormat("### icount: %s\n\n", Headline(report, options));
  if (!report.node_warnings.empty()) {
    std::vector<std::string> quoted;
    for (const std::string& warning : report.node_warnings) {
      quoted.push_back(absl::StrCat("> **Warning:** ", MarkdownEscape(warning)));
    }
    absl::StrAppend(&md, absl::StrJoin(quoted, "\n>\n"), "\n\n");
  }
  // Heap allocations appear where both files counted them (results written
  // before icount counted them have none).
  const bool allocations_counted = AllocationsCounted(report.cases);
  absl::StrAppendFormat(
      &md,
      "%s compared; %d improved; %d new, %d missing%s. Thresholds: +%.2f%% "
      "and +%.0f instructions per run.%s\n\n",
      base::CountOf(report.cases.size(), "case"), report.improvements, report.new_cases,
      report.missing_cases,
      allocations_counted ? absl::StrCat("; ", report.allocation_changes, " allocate differently")
                          : "",
      options.threshold_pct, options.threshold_abs,
      report.checksum_mismatch ? " **The case sets differ** (suite checksums do not match)." : "");
  absl::StrAppendFormat(
      &md,
      "Wall time: each case's rounds against the baseline's, Welch's t-test on log times, "
      "95%% intervals; `*` significant after Benjamini-Hochberg over all cases at 5%% and at "
      "least %.0f%%; %d slower, %d faster.%s\n\n",
      options.time.min_effect_pct, report.time_regressions, report.time_improvements,
      options.gate_on_time ? " A significant slowdown fails the gate." : "");
  absl::StrAppend(&md, SuiteSummaryMarkdown(report.summary));
  return absl::StrCat(md, CaseTableMarkdown(report.cases, allocations_counted));
}

absl::Status IsGateMarkdown(absl::string_view text) {
  return absl::StartsWith(text, "### icount: ")
             ? absl::OkStatus()
             : absl::FailedPreconditionError("is not a summary ci wrote");
}

absl::Status IsGateJson(absl::string_view text) {
  CiFileProto proto;
  return google::protobuf::util::JsonStringToMessage(
             google::protobuf::StringPiece(text.data(), text.size()), &proto)
                 .ok()
             ? absl::OkStatus()
             : absl::FailedPreconditionError("is not a comparison file ci wrote");
}

}  // namespace icount::compare
