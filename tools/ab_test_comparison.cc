// ab_test's comparison of A and B: the tables it prints and what --json
// holds (see ab_test_parts.h).
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/text.h"
#include "compare/comparison_file.pb.h"
#include "compare/delta_table.h"
#include "compare/suite_summary.h"
#include "compare/time_comparison.h"
#include "timer/function_counts.h"
#include "timer/measurement_io.h"
#include "tools/ab_sides.h"
#include "tools/ab_test_parts.h"
#include "tools/function_rows.h"
#include "tools/suite.h"

namespace icount::tools {
namespace {

// Each side's results by case key.
struct SideResults {
  std::map<std::string, const timer::InstructionCounts*> counts;
  std::map<std::string, const timer::Measurement*> times;
  explicit SideResults(const SuiteResults& results) {
    for (const timer::InstructionCounts& c : results.file.instruction_counts) {
      counts[c.metadata.at("case")] = &c;
    }
    for (const timer::Measurement& m : results.file.measurements)
      times[m.metadata().at("case")] = &m;
  }
};

// With --cache_sim: a delta table of estimated cycles per run, placed as
// the instruction counts are; "" when a side has none.
std::string CyclesTable(const std::vector<expand::SuiteCaseProto>& cases, const Side& a,
                        const Side& b, const SideResults& in_a, const SideResults& in_b) {
  compare::DeltaTable table(
      absl::StrCat("Estimated cycles per run: A (LibTorch ", a.libtorch.version,
                   ") vs B (LibTorch ", b.libtorch.version, ")"),
      SuiteColumns());
  table.set_quantity("Estimated cycles per run (cache model, docs/metrics.md)");
  bool any = false;
  for (const expand::SuiteCaseProto& c : cases) {
    auto found_a = in_a.counts.find(c.key());
    auto found_b = in_b.counts.find(c.key());
    const std::optional<double> before =
        found_a == in_a.counts.end() ? std::nullopt : found_a->second->estimated_cycles_per_run;
    const std::optional<double> after =
        found_b == in_b.counts.end() ? std::nullopt : found_b->second->estimated_cycles_per_run;
    if (!before && !after) continue;
    any = true;
    CasePlace place = PlaceCase(c);
    compare::DeltaValues& values =
        table.Entry({std::move(place.label), place.num_threads, place.autograd, place.column});
    values.a_instructions = before;
    values.b_instructions = after;
  }
  if (!any) return "";
  return absl::StrCat(absl::GetFlag(FLAGS_markdown) ? table.RenderMarkdown()
                                                    : table.Render(absl::GetFlag(FLAGS_colorize)),
                      "\n");
}

// The cases whose heap allocations per run differ between the sides, one
// line each ("Pointwise / add [C++ Eager, 1T]: 4 -> 5 allocations per run
// (+1)"), whatever their instruction counts did; or "" when none differ.
std::string AllocationChanges(const std::vector<expand::SuiteCaseProto>& cases,
                              const SideResults& in_a, const SideResults& in_b) {
  std::vector<std::string> lines;
  int compared = 0;
  for (const expand::SuiteCaseProto& c : cases) {
    auto a = in_a.counts.find(c.key());
    auto b = in_b.counts.find(c.key());
    if (a == in_a.counts.end() || b == in_b.counts.end()) continue;
    const std::optional<double>& before = a->second->allocations_per_run;
    const std::optional<double>& after = b->second->allocations_per_run;
    if (!before || !after) continue;
    ++compared;
    if (!compare::AllocationsDiffer(*before, *after)) continue;
    lines.push_back(absl::StrCat(
        "  ", timer::ResultCaseTitle(b->second->task_spec), ": ",
        compare::FormatAllocations(*before), " -> ", compare::FormatAllocations(*after), " (",
        *after > *before ? "+" : "", compare::FormatAllocations(*after - *before), ")"));
  }
  if (compared == 0) return "";
  if (lines.empty()) {
    return absl::StrCat("Heap allocations per run: the same on both sides in ",
                        compared == 1 ? "the one case" : absl::StrCat("all ", compared, " cases"),
                        ".\n");
  }
  return absl::StrCat("Heap allocations per run (A -> B) differ in ", lines.size(), " of ",
                      compared, " cases:\n", absl::StrJoin(lines, "\n"), "\n");
}

// Each case's values on both sides, in the order of `cases`.
std::vector<compare::CaseValues> SideCaseValues(
    const std::vector<expand::SuiteCaseProto>& cases, const SuiteResults& a_results,
    const SuiteResults& b_results, const std::map<std::string, compare::TimeComparison>& times) {
  const SideResults in_a(a_results), in_b(b_results);
  std::vector<compare::CaseValues> values;
  for (const expand::SuiteCaseProto& c : cases) {
    auto a = in_a.counts.find(c.key());
    auto b = in_b.counts.find(c.key());
    auto time = times.find(c.key());
    values.push_back(compare::CaseValuesOf(a == in_a.counts.end() ? nullptr : a->second,
                                           b == in_b.counts.end() ? nullptr : b->second,
                                           time == times.end() ? nullptr : &time->second));
  }
  return values;
}

// "Overall, B against A:" and one FormatSuiteChange line per metric
// `measure` measured.
std::string RenderSummary(const std::vector<compare::SuiteChange>& changes,
                          const MeasureOptions& measure, bool markdown) {
  std::string text = "\nOverall, B against A (geometric mean of B / A over cases, 95% interval):\n";
  for (const compare::SuiteChange& change : changes) {
    const bool measured = change.metric == compare::SuiteMetric::kWallTime
                              ? measure.wall_time
                              : measure.instruction_counts;
    if (!measured) continue;
    absl::StrAppend(&text, markdown ? "- " : "  ", compare::FormatSuiteChange(change), "\n");
  }
  return text;
}

// A case's count change and the functions that moved it most (B - A, per
// run of the statement): ten at most, the rest summed on a line of its own.
std::string PerFunctionChanges(const std::string& key, const timer::InstructionCounts& before,
                               const timer::InstructionCounts& after) {
  // Both sides' exclusive counts: the subtraction cannot fail.
  timer::FunctionCounts delta =
      *after.exclusive.Standardized().Subtract(before.exclusive.Standardized()) *
      (1.0 / static_cast<double>(after.number_per_run));
  // No "Total:": the sum of the rows shown is not the case's change, which
  // the heading gives.
  return absl::StrFormat(
      "\n%s: %+.0f instructions per run; largest per-function changes (B - A, per run):\n%s\n", key,
      after.counts_per_run - before.counts_per_run,
      LargestFunctionRows(delta, 10, RestSum::kSigned));
}

}  // namespace

std::string RenderComparison(const std::vector<expand::SuiteCaseProto>& cases, const Side& a,
                             const Side& b, const SuiteResults& a_results,
                             const SuiteResults& b_results,
                             const std::map<std::string, compare::TimeComparison>& times,
                             const MeasureOptions& measure) {
  const char* measured = !measure.instruction_counts ? "Wall time"
                         : measure.wall_time         ? "Instructions and wall time"
                                                     : "Instructions";
  compare::DeltaTable table(absl::StrCat(measured, " per run: A (LibTorch ", a.libtorch.version,
                                         ") vs B (LibTorch ", b.libtorch.version, ")"),
                            SuiteColumns());
  const SideResults in_a(a_results), in_b(b_results);
  std::vector<std::pair<double, std::string>> changes;  // (|delta per run|, key)
  for (const expand::SuiteCaseProto& c : cases) {
    CasePlace place = PlaceCase(c);
    compare::DeltaValues& values =
        table.Entry({std::move(place.label), place.num_threads, place.autograd, place.column});
    if (in_a.counts.count(c.key())) values.a_instructions = in_a.counts.at(c.key())->counts_per_run;
    if (in_b.counts.count(c.key())) values.b_instructions = in_b.counts.at(c.key())->counts_per_run;
    if (in_a.times.count(c.key())) values.a_time = *in_a.times.at(c.key());
    if (in_b.times.count(c.key())) values.b_time = *in_b.times.at(c.key());
    if (auto verdict = times.find(c.key()); verdict != times.end()) {
      values.time_comparison = verdict->second;
    }
    if (values.a_instructions && values.b_instructions) {
      changes.emplace_back(std::fabs(*values.b_instructions - *values.a_instructions), c.key());
    }
  }
  std::string text = absl::StrCat(
      absl::GetFlag(FLAGS_markdown) ? table.RenderMarkdown()
                                    : table.Render(absl::GetFlag(FLAGS_colorize)),
      "\n", CyclesTable(cases, a, b, in_a, in_b), AllocationChanges(cases, in_a, in_b),
      RenderSummary(compare::SummarizeSuite(SideCaseValues(cases, a_results, b_results, times)),
                    measure, absl::GetFlag(FLAGS_markdown)));
  std::sort(changes.rbegin(), changes.rend());
  for (int i = 0; i < absl::GetFlag(FLAGS_top) && i < static_cast<int>(changes.size()); ++i) {
    if (changes[i].first == 0) break;
    absl::StrAppend(&text, PerFunctionChanges(changes[i].second,
                                              *in_a.counts.at(changes[i].second),
                                              *in_b.counts.at(changes[i].second)));
  }
  return text;
}


compare::AbTestFileProto AbTestFile(const std::vector<expand::SuiteCaseProto>& cases, const Side& a,
                                    const Side& b, const SuiteResults& a_results,
                                    const SuiteResults& b_results,
                                    const std::map<std::string, compare::TimeComparison>& times,
                                    const std::vector<expand::SuiteCaseProto>& skipped,
                                    const std::vector<std::string>& node_warnings) {
  compare::AbTestFileProto file;
  *file.mutable_a() = timer::ResultsToProto(a_results.file);
  *file.mutable_b() = timer::ResultsToProto(b_results.file);
  *file.mutable_libtorch()->mutable_a() = LibTorchProto(a);
  *file.mutable_libtorch()->mutable_b() = LibTorchProto(b);
  const std::vector<compare::CaseValues> values =
      SideCaseValues(cases, a_results, b_results, times);
  for (size_t i = 0; i < cases.size(); ++i) {
    if (std::optional<compare::CaseComparison> comparison = compare::CompareCase(values[i])) {
      *file.add_comparisons() = compare::CaseComparisonToProto(cases[i].key(), *comparison);
    }
  }
  *file.mutable_summary() = compare::SuiteSummaryToProto(compare::SummarizeSuite(values));
  for (const expand::SuiteCaseProto& c : skipped) file.add_skipped_by_backtesting(c.key());
  for (const std::string& warning : node_warnings) file.add_node_warnings(warning);
  return file;
}

}  // namespace icount::tools
