#include "report/report_data.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/proto_json.h"
#include "base/status.h"
#include "base/timestamp.h"
#include "compare/gate.h"
#include "compare/node_check.h"
#include "compare/suite_summary.h"
#include "compare/time_comparison.h"
#include "history/change_points.h"
#include "report/version.h"
#include "timer/function_counts.h"
#include "timer/function_key.h"
#include "timer/measurement.h"
#include "timer/node.h"

namespace icount::report {
namespace {

// Sets an `optional double` field where there is a finite figure: the page
// shows nothing for the rest (JSON has no NaN or infinity).
template <typename Setter>
void SetFinite(std::optional<double> value, Setter set) {
  if (value.has_value() && std::isfinite(*value)) set(*value);
}

// Every function once, so that call trees refer to functions by index.
class FunctionTable {
 public:
  explicit FunctionTable(ReportDataProto& data) : data_(data) {}

  int Index(const timer::FunctionKey& key) {
    auto [it, inserted] = index_.try_emplace(key, data_.functions_size());
    if (inserted) *data_.add_functions() = timer::FunctionKeyToProto(key);
    return it->second;
  }

 private:
  ReportDataProto& data_;
  std::map<timer::FunctionKey, int> index_;
};

ReportCallTreeProto TreeProto(const timer::CallTree& tree, FunctionTable& functions) {
  ReportCallTreeProto proto;
  for (const timer::CallTree::Node& node : tree.nodes) {
    proto.add_parent(node.parent);
    proto.add_function(functions.Index(tree.functions[node.function]));
    proto.add_inclusive(static_cast<double>(node.inclusive));
    proto.add_self(static_cast<double>(node.self));
  }
  proto.set_total(static_cast<double>(tree.total));
  proto.set_threshold(static_cast<double>(tree.threshold));
  return proto;
}

// How the own instructions of the current tree's functions changed in the
// whole profile (ReportCaseProto.function_delta), or that it is unknown
// because a side's results list no functions. Functions match by key, so a
// library at another path reads as a change here; report.js then leans on
// the frames' own changes.
void SetFunctionDelta(const timer::InstructionCounts& current,
                      const timer::InstructionCounts& baseline, FunctionTable& functions,
                      ReportCaseProto& out) {
  if (current.exclusive.size() == 0 || baseline.exclusive.size() == 0) {
    out.set_function_delta_unknown(true);
    return;
  }
  using Counts = absl::flat_hash_map<timer::FunctionKey, int64_t>;
  auto flat = [](const timer::FunctionCounts& counts) {
    Counts map;
    for (const timer::FunctionCount& row : counts.rows()) map[row.function] += row.count;
    return map;
  };
  const Counts now = flat(current.exclusive);
  const Counts was = flat(baseline.exclusive);
  auto count = [](const Counts& map, const timer::FunctionKey& key) {
    auto it = map.find(key);
    return it == map.end() ? int64_t{0} : it->second;
  };
  for (const timer::FunctionKey& key : current.call_tree->functions) {
    const int64_t delta = count(now, key) - count(was, key);
    if (delta != 0) (*out.mutable_function_delta())[functions.Index(key)] = delta;
  }
}

// One side's data of a case.
struct SideCase {
  const timer::InstructionCounts* counts = nullptr;
  std::vector<const timer::Measurement*> rounds;  // one per wall-time round
  const timer::TaskSpec* spec = nullptr;
  const std::map<std::string, std::string>* metadata = nullptr;  // with `spec`
};

// A file's cases by key, and the keys in the order the file has them (the
// suite's order).
struct FileCases {
  std::map<std::string, SideCase> by_key;
  std::vector<std::string> order;

  SideCase& Add(const std::string& key) {
    auto [it, inserted] = by_key.try_emplace(key);
    if (inserted) order.push_back(key);
    return it->second;
  }
};

FileCases CasesOf(const timer::ResultsFile& file) {
  FileCases cases;
  for (const timer::InstructionCounts& c : file.instruction_counts) {
    SideCase& side = cases.Add(timer::ResultCaseKey(c.metadata, c.task_spec));
    side.counts = &c;
    side.spec = &c.task_spec;
    side.metadata = &c.metadata;
  }
  for (const timer::Measurement& m : file.measurements) {
    SideCase& side = cases.Add(timer::ResultCaseKey(m.metadata(), m.task_spec()));
    side.rounds.push_back(&m);
    if (side.spec == nullptr) {
      side.spec = &m.task_spec();
      side.metadata = &m.metadata();
    }
  }
  return cases;
}

// All of a case's per-run times as one Measurement, so that the median and
// quartiles are Measurement's (the text tables' statistics).
std::optional<timer::Measurement> PooledTimes(const SideCase& side) {
  if (side.rounds.empty()) return std::nullopt;
  // Merge pools the per-run times and keeps the blocks' size, which the
  // significant figures need.
  std::vector<timer::Measurement> rounds;
  for (const timer::Measurement* m : side.rounds) {
    rounds.emplace_back(m->number_per_run(), m->raw_times(), *side.spec);
  }
  return timer::Measurement::Merge(rounds).front();
}

ReportCountsProto CountsProto(const timer::InstructionCounts& c) {
  ReportCountsProto proto;
  proto.set_per_run(c.counts_per_run);
  for (int64_t n : c.counts) proto.add_repeats(static_cast<double>(n));
  proto.set_number_per_run(static_cast<double>(c.number_per_run));
  proto.set_baseline(static_cast<double>(c.baseline));
  proto.set_repeats_identical(
      std::all_of(c.counts.begin(), c.counts.end(), [&](int64_t n) { return n == c.counts[0]; }));
  SetFinite(c.allocations_per_run, [&](double x) { proto.set_allocations_per_run(x); });
  SetFinite(c.frees_per_run, [&](double x) { proto.set_frees_per_run(x); });
  SetFinite(c.estimated_cycles_per_run, [&](double x) { proto.set_estimated_cycles_per_run(x); });
  return proto;
}

// `time` from the side's rounds (it has some).
void SetTime(const SideCase& side, ReportTimeProto* time) {
  const std::optional<timer::Measurement> pooled = PooledTimes(side);
  if (!pooled.has_value()) return;
  time->set_median(pooled->Median());
  time->set_p25(pooled->P25());
  time->set_p75(pooled->P75());
  time->set_samples(static_cast<int>(pooled->raw_times().size()));
  time->set_rounds(static_cast<int>(side.rounds.size()));
  for (const timer::Measurement* m : side.rounds) time->add_round_medians(m->Median());
  time->set_significant_figures(pooled->SignificantFigures(timer::FiguresRule::kBlocks));
}

// Where the case is in the tables, its language, and the runtime and
// autograd mode the front ends recorded in its metadata (empty in files
// written before they did).
void SetPlace(const SideCase& side, ReportCaseProto& out) {
  const timer::TaskSpec& spec = *side.spec;
  auto metadata = [&](const char* key) {
    auto it = side.metadata->find(key);
    return it == side.metadata->end() ? std::string() : it->second;
  };
  out.set_group(spec.label.value_or(""));
  out.set_row(spec.sub_label.value_or(spec.stmt));
  out.set_column(spec.description.value_or(""));
  out.set_language(timer::LanguageName(spec.language));
  out.set_runtime(metadata(timer::kRuntimeMetadataKey));
  out.set_autograd(metadata(timer::kAutogradMetadataKey));
  out.set_threads(spec.num_threads);
}

ReportRunProto RunProto(const timer::ResultsFile& file, const std::string& name,
                        const std::string& command) {
  ReportRunProto run;
  run.set_name(name);
  run.set_start(file.start_time);
  run.set_end(file.end_time);
  const std::optional<int64_t> start = base::ParseRfc3339(file.start_time);
  const std::optional<int64_t> end = base::ParseRfc3339(file.end_time);
  if (start.has_value() && end.has_value()) run.set_duration_s(static_cast<double>(*end - *start));
  run.set_machine(file.machine);
  for (const auto& [id, node] : file.nodes) {
    run.add_nodes(absl::StrCat(id, ": ", timer::DescribeNode(node)));
  }
  run.mutable_versions()->insert(file.versions.begin(), file.versions.end());
  run.mutable_settings()->insert(file.settings.begin(), file.settings.end());
  run.set_command(command.empty() ? file.command : command);
  run.set_counted_cases(static_cast<int>(file.instruction_counts.size()));
  run.set_measurements(static_cast<int>(file.measurements.size()));
  run.mutable_failures()->insert(file.failures.begin(), file.failures.end());
  return run;
}

ReportSeriesProto* SeriesOf(history::Metric metric, ReportHistoryProto& history) {
  switch (metric) {
    case history::Metric::kCounts:
      return history.mutable_counts();
    case history::Metric::kAllocations:
      return history.mutable_allocations();
    case history::Metric::kTime:
      return history.mutable_time();
  }
  return history.mutable_counts();
}

// The store's last `last_runs` runs into `data`'s history_runs, and each
// case's series by key; change points are found over each whole series
// and shown where they fall inside the window.
absl::StatusOr<std::map<std::string, ReportHistoryProto>> LoadHistory(history::Store& store,
                                                                     int last_runs,
                                                                     ReportDataProto& data) {
  ICOUNT_ASSIGN_OR_RETURN(std::vector<history::RunRow> runs, store.Runs());
  const size_t window = static_cast<size_t>(std::max(last_runs, 1));
  const size_t first = runs.size() > window ? runs.size() - window : 0;
  std::map<int64_t, int> run_index;  // run id -> position in the window, -1 before it
  for (size_t i = 0; i < runs.size(); ++i) {
    const history::RunRow& run = runs[i];
    run_index[run.id] = i < first ? -1 : data.history_runs_size();
    if (i < first) continue;
    ReportHistoryRunProto* row = data.add_history_runs();
    row->set_id(run.id);
    row->set_label(run.label);
    row->set_start(run.start_time);
  }
  std::map<std::string, ReportHistoryProto> by_case;
  for (history::Metric metric :
       {history::Metric::kCounts, history::Metric::kAllocations, history::Metric::kTime}) {
    ICOUNT_ASSIGN_OR_RETURN(std::vector<history::CaseSeries> all, store.Series(metric, ""));
    for (const history::CaseSeries& series : all) {
      std::vector<double> values;
      ReportSeriesProto shown;
      size_t before_window = 0;  // points of runs before the window: a prefix
      for (const history::SeriesPoint& p : series.points) {
        values.push_back(p.value);
        const int index = run_index[p.run_id];
        if (index < 0) {
          ++before_window;
          continue;
        }
        shown.add_run(index);
        shown.add_value(p.value);
        shown.add_low(p.low);
        shown.add_high(p.high);
      }
      if (shown.run().empty()) continue;
      const std::vector<history::Step> steps =
          metric == history::Metric::kCounts        ? history::CountSteps(values)
          : metric == history::Metric::kAllocations ? history::AllocationSteps(values)
                                                    : history::TimeSteps(values);
      for (const history::Step& step : steps) {
        if (step.index < before_window) continue;
        ReportStepProto* shown_step = shown.add_steps();
        shown_step->set_index(static_cast<int>(step.index - before_window));
        shown_step->set_change_pct(step.change_pct);
      }
      *SeriesOf(metric, by_case[series.key]) = std::move(shown);
    }
  }
  return by_case;
}

// What the report cannot show for these inputs, and why.
void AddMissing(const ReportInput& input, bool any_tree, ReportDataProto& data) {
  if (input.current.instruction_counts.empty()) {
    data.add_missing(
        "instruction counts: these results have wall time only (run without --no_counts to "
        "count instructions), so there are no count columns, count charts or flamegraphs");
  } else if (!any_tree) {
    data.add_missing(
        "call trees: these results carry none (results record them since timer 0.5.0; rerun "
        "with this version), so there are no flamegraphs");
  }
  if (input.current.measurements.empty()) {
    data.add_missing(
        "wall time: these results have instruction counts only (--no_wall_time, or an A/B "
        "without --display_time), so there are no time columns or charts");
  }
  if (input.history == nullptr) {
    data.add_missing("history: no store was given (--history=DB), so there are no per-case series");
  }
}

// Counts from nodes that count differently, wall times from other hosts.
std::vector<std::string> NodeWarnings(const ReportInput& input) {
  std::vector<std::string> node_warnings;
  if (input.baseline.has_value()) {
    const std::string before = absl::StrCat("the baseline (", input.baseline_name, ")");
    const std::string after = absl::StrCat("this run (", input.current_name, ")");
    node_warnings = compare::CountNodeWarnings(*input.baseline, input.current, before, after);
    for (std::string& warning :
         compare::CountSettingWarnings(*input.baseline, input.current, before, after)) {
      node_warnings.push_back(std::move(warning));
    }
    compare::CasesTimedOnDifferentHosts(*input.baseline, input.current, before, after,
                                        &node_warnings);
  }
  return node_warnings;
}

// Each case's values on both sides, as the suite summary and the per-case
// comparison read them: the current run's cases, then those only the
// baseline has.
std::map<std::string, compare::CaseValues> ValuesByCase(
    const FileCases& current_cases, const FileCases& baseline_cases,
    const std::map<std::string, compare::TimeComparison>& times,
    std::vector<compare::CaseValues>* in_order) {
  std::map<std::string, compare::CaseValues> by_key;
  auto add = [&](const std::string& key) {
    auto b = baseline_cases.by_key.find(key);
    auto c = current_cases.by_key.find(key);
    auto time = times.find(key);
    compare::CaseValues values = compare::CaseValuesOf(
        b == baseline_cases.by_key.end() ? nullptr : b->second.counts,
        c == current_cases.by_key.end() ? nullptr : c->second.counts,
        time == times.end() ? nullptr : &time->second);
    in_order->push_back(values);
    by_key[key] = values;
  };
  for (const std::string& key : current_cases.order) add(key);
  for (const std::string& key : baseline_cases.order) {
    if (!current_cases.by_key.count(key)) add(key);
  }
  return by_key;
}

// The suite-level change against the baseline (compare/suite_summary.h).
ReportOverallProto OverallProto(const std::vector<compare::CaseValues>& values) {
  const std::vector<compare::SuiteChange> changes = compare::SummarizeSuite(values);
  ReportOverallProto overall;
  for (const compare::SuiteChange& change : changes) {
    overall.add_lines(compare::FormatSuiteChange(change));
  }
  *overall.mutable_metrics() = compare::SuiteSummaryToProto(changes);
  return overall;
}

// A case's baseline side, its comparison and the baseline's tree, for a
// case both runs have.
void SetBaseline(const std::string& key, const SideCase& side, const SideCase& b,
                 const compare::CaseValues& values, FunctionTable& functions,
                 ReportCaseProto& out) {
  ReportSideProto& baseline = *out.mutable_baseline();
  if (b.counts != nullptr) *baseline.mutable_counts() = CountsProto(*b.counts);
  if (!b.rounds.empty()) SetTime(b, baseline.mutable_time());
  if (std::optional<compare::CaseComparison> comparison = compare::CompareCase(values)) {
    *out.mutable_delta() = compare::CaseComparisonToProto(key, *comparison);
  }
  if (b.counts != nullptr && b.counts->call_tree.has_value() && !b.counts->call_tree->empty()) {
    *out.mutable_baseline_tree() = TreeProto(*b.counts->call_tree, functions);
    if (side.counts != nullptr && side.counts->call_tree.has_value()) {
      SetFunctionDelta(*side.counts, *b.counts, functions, out);
    }
  }
}

// Wall-time comparisons: the caller's, or ci's unpaired rounds (Gate).
absl::StatusOr<std::map<std::string, compare::TimeComparison>> TimeComparisons(
    const ReportInput& input) {
  if (input.time_comparisons.has_value()) return *input.time_comparisons;
  std::map<std::string, compare::TimeComparison> times;
  if (!input.baseline.has_value()) return times;
  ICOUNT_ASSIGN_OR_RETURN(compare::GateReport gate,
                          compare::Gate(*input.baseline, input.current, compare::GateOptions()));
  for (const compare::CaseVerdict& c : gate.cases) {
    if (c.time.has_value()) times[c.key] = *c.time;
  }
  return times;
}

// Case `key` of the current run: its place, counts, time and tree, its
// baseline side when the baseline has it, and its history. Returns whether
// it has a call tree.
bool SetCase(const std::string& key, const SideCase& side, const FileCases& baseline_cases,
             const std::map<std::string, compare::CaseValues>& values,
             std::map<std::string, ReportHistoryProto>& history, FunctionTable& functions,
             ReportCaseProto& out) {
  bool has_tree = false;
  out.set_key(key);
  out.set_title(timer::ResultCaseTitle(*side.spec));
  SetPlace(side, out);
  if (side.counts != nullptr) *out.mutable_counts() = CountsProto(*side.counts);
  if (!side.rounds.empty()) SetTime(side, out.mutable_time());
  if (side.counts != nullptr && side.counts->call_tree.has_value() &&
      !side.counts->call_tree->empty()) {
    has_tree = true;
    *out.mutable_tree() = TreeProto(*side.counts->call_tree, functions);
  }
  auto before = baseline_cases.by_key.find(key);
  if (before != baseline_cases.by_key.end()) {
    SetBaseline(key, side, before->second, values.at(key), functions, out);
  }
  auto series = history.find(key);
  if (series != history.end()) *out.mutable_history() = std::move(series->second);
  return has_tree;
}

// The cases only one run has, with a baseline.
void SetUnmatched(const FileCases& current_cases, const FileCases& baseline_cases,
                  bool has_baseline, ReportDataProto& data) {
  if (has_baseline) {
    for (const std::string& key : baseline_cases.order) {
      if (!current_cases.by_key.count(key)) data.mutable_unmatched()->add_only_baseline(key);
    }
    for (const std::string& key : current_cases.order) {
      if (!baseline_cases.by_key.count(key)) data.mutable_unmatched()->add_only_current(key);
    }
  }
  data.mutable_unmatched();  // the page reads both lists, empty or not
}

}  // namespace

absl::StatusOr<ReportDataProto> ReportData(const ReportInput& input) {
  ReportDataProto data;
  data.set_report_version(kReportVersion);
  data.set_title(input.title);
  data.set_kind(input.baseline.has_value() ? "comparison" : "run");
  data.set_generated(base::NowRfc3339());

  const FileCases current_cases = CasesOf(input.current);
  FileCases baseline_cases;
  if (input.baseline.has_value()) baseline_cases = CasesOf(*input.baseline);
  ICOUNT_ASSIGN_OR_RETURN(const auto times, TimeComparisons(input));
  std::vector<compare::CaseValues> values_in_order;
  const std::map<std::string, compare::CaseValues> values =
      ValuesByCase(current_cases, baseline_cases, times, &values_in_order);

  std::map<std::string, ReportHistoryProto> history;
  if (input.history != nullptr) {
    ICOUNT_ASSIGN_OR_RETURN(history, LoadHistory(*input.history, input.history_runs, data));
  }

  FunctionTable functions(data);
  bool any_tree = false;
  for (const std::string& key : current_cases.order) {
    const SideCase& side = current_cases.by_key.at(key);
    ReportCaseProto& out = *data.add_cases();
    if (SetCase(key, side, baseline_cases, values, history, functions, out)) any_tree = true;
  }
  SetUnmatched(current_cases, baseline_cases, input.baseline.has_value(), data);

  AddMissing(input, any_tree, data);
  for (std::string& warning : NodeWarnings(input)) data.add_node_warnings(std::move(warning));
  *data.mutable_summary()->mutable_current() =
      RunProto(input.current, input.current_name, input.command);
  if (input.baseline.has_value()) {
    *data.mutable_summary()->mutable_baseline() =
        RunProto(*input.baseline, input.baseline_name, "");
    *data.mutable_overall() = OverallProto(values_in_order);
  }
  return data;
}

absl::StatusOr<std::string> ReportDataJson(const ReportInput& input) {
  ICOUNT_ASSIGN_OR_RETURN(const ReportDataProto data, ReportData(input));
  return base::ProtoToJsonAllFields(data);
}

}  // namespace icount::report
