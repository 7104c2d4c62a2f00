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
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/proto_json.h"
#include "base/status.h"
#include "base/text.h"
#include "base/timestamp.h"
#include "compare/gate.h"
#include "compare/node_check.h"
#include "compare/suite_summary.h"
#include "history/change_points.h"
#include "report/version.h"
#include "timer/function_counts.h"
#include "timer/measurement.h"
#include "timer/node.h"

namespace icount::report {
namespace {

using base::JsonString;

// JSON numbers: enough digits for counts like 1234567.89 and times like
// 1.2345678e-06; null where there is no number.
std::string Num(double value) {
  if (!std::isfinite(value)) return "null";
  return absl::StrFormat("%.10g", value);
}
std::string Num(std::optional<double> value) { return value ? Num(*value) : "null"; }

std::string Field(const std::string& name, const std::string& json) {
  return absl::StrCat(JsonString(name), ":", json);
}
std::string Object(const std::vector<std::string>& fields) {
  return absl::StrCat("{", absl::StrJoin(fields, ","), "}");
}
std::string Array(const std::vector<std::string>& items) {
  return absl::StrCat("[", absl::StrJoin(items, ","), "]");
}
template <typename T, typename F>
std::string ArrayOf(const std::vector<T>& items, F json) {
  std::vector<std::string> out;
  out.reserve(items.size());
  for (const T& item : items) out.push_back(json(item));
  return Array(out);
}
std::string StringMap(const std::map<std::string, std::string>& map) {
  std::vector<std::string> fields;
  for (const auto& [key, value] : map) fields.push_back(Field(key, JsonString(value)));
  return Object(fields);
}

// Every function once, so that call trees refer to functions by index.
// Each is its key's fields: {"file": ..., "function": ..., "object": ...},
// and "recursion" where callgrind's level is above 1.
class FunctionTable {
 public:
  int Index(const timer::FunctionKey& key) {
    auto [it, inserted] = index_.try_emplace(key, static_cast<int>(keys_.size()));
    if (inserted) keys_.push_back(key);
    return it->second;
  }
  std::string Json() const {
    return ArrayOf(keys_, [](const timer::FunctionKey& k) {
      std::vector<std::string> fields = {Field("file", JsonString(k.file())),
                                         Field("function", JsonString(k.function())),
                                         Field("object", JsonString(k.object()))};
      if (k.recursion() > 1) fields.push_back(Field("recursion", absl::StrCat(k.recursion())));
      return Object(fields);
    });
  }

 private:
  std::map<timer::FunctionKey, int> index_;
  std::vector<timer::FunctionKey> keys_;
};

std::string TreeJson(const timer::CallTree& tree, FunctionTable& functions) {
  std::vector<std::string> parent, function, inclusive, self;
  for (const timer::CallTree::Node& node : tree.nodes) {
    parent.push_back(absl::StrCat(node.parent));
    function.push_back(absl::StrCat(functions.Index(tree.functions[node.function])));
    inclusive.push_back(absl::StrCat(node.inclusive));
    self.push_back(absl::StrCat(node.self));
  }
  return Object({Field("parent", Array(parent)), Field("function", Array(function)),
                 Field("inclusive", Array(inclusive)), Field("self", Array(self)),
                 Field("total", absl::StrCat(tree.total)),
                 Field("threshold", absl::StrCat(tree.threshold))});
}

// How the own instructions of the current tree's functions changed in the
// whole profile: exact, where a node's self is a share (timer/call_tree.h)
// that moves when something below its function changes cost. A
// "function_delta" object of the functions that changed (index -> change),
// left out when none did; "function_delta_unknown": true when a side's
// results list no functions. Functions match by key, so a library at another path reads as
// a change here; report.js then leans on the frames' own changes.
std::vector<std::string> FunctionDeltaFields(const timer::InstructionCounts& current,
                                             const timer::InstructionCounts& baseline,
                                             FunctionTable& functions) {
  if (current.exclusive.size() == 0 || baseline.exclusive.size() == 0) {
    return {Field("function_delta_unknown", "true")};
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
  std::map<int, int64_t> changed;
  for (const timer::FunctionKey& key : current.call_tree->functions) {
    const int64_t delta = count(now, key) - count(was, key);
    if (delta != 0) changed[functions.Index(key)] = delta;
  }
  std::vector<std::string> deltas;
  for (const auto& [index, delta] : changed) {
    deltas.push_back(Field(absl::StrCat(index), absl::StrCat(delta)));
  }
  if (deltas.empty()) return {};  // a 5,000-case page is 8 MB as it is
  return {Field("function_delta", Object(deltas))};
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

std::string CountsJson(const timer::InstructionCounts& c) {
  const bool identical =
      std::all_of(c.counts.begin(), c.counts.end(), [&](int64_t n) { return n == c.counts[0]; });
  return Object({Field("per_run", Num(c.counts_per_run)),
                 Field("repeats", ArrayOf(c.counts, [](int64_t n) { return absl::StrCat(n); })),
                 Field("number_per_run", absl::StrCat(c.number_per_run)),
                 Field("baseline", absl::StrCat(c.baseline)),
                 Field("repeats_identical", identical ? "true" : "false"),
                 Field("allocations_per_run", Num(c.allocations_per_run)),
                 Field("frees_per_run", Num(c.frees_per_run)),
                 Field("estimated_cycles_per_run", Num(c.estimated_cycles_per_run))});
}

std::string TimeJson(const SideCase& side) {
  std::optional<timer::Measurement> pooled = PooledTimes(side);
  if (!pooled.has_value()) return "null";
  std::vector<double> round_medians;
  for (const timer::Measurement* m : side.rounds) round_medians.push_back(m->Median());
  return Object({Field("median", Num(pooled->Median())), Field("p25", Num(pooled->P25())),
                 Field("p75", Num(pooled->P75())),
                 Field("samples", absl::StrCat(pooled->raw_times().size())),
                 Field("rounds", absl::StrCat(side.rounds.size())),
                 Field("round_medians", ArrayOf(round_medians, [](double t) { return Num(t); })),
                 Field("significant_figures",
                       absl::StrCat(pooled->SignificantFigures(timer::FiguresRule::kBlocks)))});
}

std::string TimeComparisonJson(const compare::TimeComparison& t) {
  const bool verdict = t.verdict != compare::TimeVerdict::kTooFewRounds &&
                       t.verdict != compare::TimeVerdict::kUnusable;
  return Object({Field("verdict", JsonString(compare::TimeVerdictName(t.verdict))),
                 Field("delta_pct", verdict ? Num(t.delta_pct) : "null"),
                 Field("ci_pct", verdict ? Array({Num(t.ci_low_pct), Num(t.ci_high_pct)}) : "null"),
                 Field("significant", t.significant ? "true" : "false"),
                 Field("p_value", verdict ? Num(t.p_value) : "null"),
                 Field("resolvable_pct", verdict ? Num(t.resolvable_pct) : "null"),
                 Field("rounds", absl::StrCat(t.rounds)), Field("problem", JsonString(t.problem))});
}

// Where the case is in the tables, its language, and the runtime and
// autograd mode the front ends recorded in its metadata (empty in files
// written before they did).
std::vector<std::string> PlaceFields(const SideCase& side) {
  const timer::TaskSpec& spec = *side.spec;
  auto metadata = [&](const char* key) {
    auto it = side.metadata->find(key);
    return it == side.metadata->end() ? std::string() : it->second;
  };
  return {Field("group", JsonString(spec.label.value_or(""))),
          Field("row", JsonString(spec.sub_label.value_or(spec.stmt))),
          Field("column", JsonString(spec.description.value_or(""))),
          Field("language", JsonString(timer::LanguageName(spec.language))),
          Field("runtime", JsonString(metadata(timer::kRuntimeMetadataKey))),
          Field("autograd", JsonString(metadata(timer::kAutogradMetadataKey))),
          Field("threads", absl::StrCat(spec.num_threads))};
}

// Each node that measured the file's cases, for people.
std::vector<std::string> Nodes(const timer::ResultsFile& file) {
  std::vector<std::string> nodes;
  for (const auto& [id, node] : file.nodes) {
    nodes.push_back(absl::StrCat(id, ": ", timer::DescribeNode(node)));
  }
  return nodes;
}

std::string RunJson(const timer::ResultsFile& file, const std::string& name,
                    const std::string& command) {
  std::optional<double> duration;
  const std::optional<int64_t> start = base::ParseRfc3339(file.start_time);
  const std::optional<int64_t> end = base::ParseRfc3339(file.end_time);
  if (start.has_value() && end.has_value()) duration = static_cast<double>(*end - *start);
  return Object(
      {Field("name", JsonString(name)), Field("start", JsonString(file.start_time)),
       Field("end", JsonString(file.end_time)), Field("duration_s", Num(duration)),
       Field("machine", JsonString(file.machine)), Field("nodes", ArrayOf(Nodes(file), JsonString)),
       Field("versions", StringMap(file.versions)), Field("settings", StringMap(file.settings)),
       Field("command", JsonString(command.empty() ? file.command : command)),
       Field("counted_cases", absl::StrCat(file.instruction_counts.size())),
       Field("measurements", absl::StrCat(file.measurements.size())),
       Field("failures", StringMap(file.failures))});
}

struct HistoryData {
  std::string runs_json = "[]";
  std::map<std::string, std::string> case_json;  // key -> {"counts": ..., "time": ...}
};

// The store's last `last_runs` runs; change points are found over each
// whole series and shown where they fall inside the window.
absl::StatusOr<HistoryData> LoadHistory(history::Store& store, int last_runs) {
  HistoryData data;
  ICOUNT_ASSIGN_OR_RETURN(std::vector<history::RunRow> runs, store.Runs());
  const size_t first = runs.size() > static_cast<size_t>(std::max(last_runs, 1))
                           ? runs.size() - static_cast<size_t>(std::max(last_runs, 1))
                           : 0;
  std::map<int64_t, int> run_index;  // run id -> position in the window, -1 before it
  std::vector<std::string> runs_json;
  for (size_t i = 0; i < runs.size(); ++i) {
    const history::RunRow& run = runs[i];
    run_index[run.id] = i < first ? -1 : static_cast<int>(runs_json.size());
    if (i < first) continue;
    runs_json.push_back(
        Object({Field("id", absl::StrCat(run.id)), Field("label", JsonString(run.label)),
                Field("start", JsonString(run.start_time))}));
  }
  data.runs_json = Array(runs_json);
  std::map<std::string, std::vector<std::string>> parts;
  for (history::Metric metric :
       {history::Metric::kCounts, history::Metric::kAllocations, history::Metric::kTime}) {
    ICOUNT_ASSIGN_OR_RETURN(std::vector<history::CaseSeries> all, store.Series(metric, ""));
    for (const history::CaseSeries& series : all) {
      std::vector<double> values;
      std::vector<std::string> run, value, low, high;
      size_t before_window = 0;  // points of runs before the window: a prefix
      for (const history::SeriesPoint& p : series.points) {
        values.push_back(p.value);
        const int index = run_index[p.run_id];
        if (index < 0) {
          ++before_window;
          continue;
        }
        run.push_back(absl::StrCat(index));
        value.push_back(Num(p.value));
        low.push_back(Num(p.low));
        high.push_back(Num(p.high));
      }
      const std::vector<history::Step> steps =
          metric == history::Metric::kCounts        ? history::CountSteps(values)
          : metric == history::Metric::kAllocations ? history::AllocationSteps(values)
                                                    : history::TimeSteps(values);
      std::vector<std::string> steps_json;
      for (const history::Step& step : steps) {
        if (step.index < before_window) continue;
        steps_json.push_back(Object({Field("index", absl::StrCat(step.index - before_window)),
                                     Field("change_pct", Num(step.change_pct))}));
      }
      if (run.empty()) continue;
      parts[series.key].push_back(Field(
          history::MetricName(metric),
          Object({Field("run", Array(run)), Field("value", Array(value)), Field("low", Array(low)),
                  Field("high", Array(high)), Field("steps", Array(steps_json))})));
    }
  }
  for (auto& [key, fields] : parts) data.case_json[key] = Object(fields);
  return data;
}

// What the report cannot show for these inputs, and why.
std::vector<std::string> MissingJson(const ReportInput& input, bool any_tree) {
  std::vector<std::string> missing;
  if (input.current.instruction_counts.empty()) {
    missing.push_back(JsonString(
        "instruction counts: these results have wall time only (run without --no_counts to "
        "count instructions), so there are no count columns, count charts or flamegraphs"));
  } else if (!any_tree) {
    missing.push_back(JsonString(
        "call trees: these results carry none (results record them since timer 0.5.0; rerun "
        "with this version), so there are no flamegraphs"));
  }
  if (input.current.measurements.empty()) {
    missing.push_back(JsonString(
        "wall time: these results have instruction counts only (--no_wall_time, or an A/B "
        "without --display_time), so there are no time columns or charts"));
  }
  if (input.history == nullptr) {
    missing.push_back(
        JsonString("history: no store was given (--history=DB), so there are no per-case series"));
  }
  return missing;
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

// The suite-level change against the baseline (compare/suite_summary.h):
// {"lines": ["instructions: +0.42% [...] over 201 cases ...", ...],
//  "metrics": {"instructions": {...}, ...}}; the report has null without
// a baseline.
std::string OverallJson(const FileCases& current_cases, const FileCases& baseline_cases,
                        const std::map<std::string, compare::TimeComparison>& times) {
  const std::map<std::string, SideCase>& current = current_cases.by_key;
  const std::map<std::string, SideCase>& baseline = baseline_cases.by_key;
  std::vector<compare::CaseValues> values;
  auto add = [&](const std::string& key) {
    auto b = baseline.find(key);
    auto c = current.find(key);
    auto time = times.find(key);
    values.push_back(compare::CaseValuesOf(b == baseline.end() ? nullptr : b->second.counts,
                                           c == current.end() ? nullptr : c->second.counts,
                                           time == times.end() ? nullptr : &time->second));
  };
  for (const std::string& key : current_cases.order) add(key);
  for (const std::string& key : baseline_cases.order) {
    if (!current.count(key)) add(key);
  }
  const std::vector<compare::SuiteChange> changes = compare::SummarizeSuite(values);
  return Object(
      {Field("lines", ArrayOf(changes,
                              [](const compare::SuiteChange& change) {
                                return JsonString(compare::FormatSuiteChange(change));
                              })),
       Field("metrics", base::ProtoToJsonAllFields(compare::SuiteSummaryToProto(changes)))});
}

// A case's "baseline", "delta" and "baseline_tree" fields, for a case both
// runs have.
std::vector<std::string> BaselineFields(const std::string& key, const SideCase& side,
                                        const SideCase& b,
                                        const std::map<std::string, compare::TimeComparison>& times,
                                        FunctionTable& functions) {
  std::vector<std::string> fields;
  fields.push_back(
      Field("baseline", Object({Field("counts", b.counts ? CountsJson(*b.counts) : "null"),
                                Field("time", TimeJson(b))})));
  std::optional<double> counts_delta;
  if (b.counts != nullptr && side.counts != nullptr && b.counts->counts_per_run != 0) {
    counts_delta = (side.counts->counts_per_run - b.counts->counts_per_run) /
                   std::fabs(b.counts->counts_per_run) * 100;
  }
  std::optional<double> allocations_delta;
  if (b.counts != nullptr && side.counts != nullptr && b.counts->allocations_per_run &&
      side.counts->allocations_per_run) {
    allocations_delta = *side.counts->allocations_per_run - *b.counts->allocations_per_run;
  }
  auto time = times.find(key);
  fields.push_back(Field(
      "delta",
      Object({Field("counts_pct", Num(counts_delta)), Field("allocations", Num(allocations_delta)),
              Field("time", time == times.end() ? "null" : TimeComparisonJson(time->second))})));
  if (b.counts != nullptr && b.counts->call_tree.has_value() && !b.counts->call_tree->empty()) {
    fields.push_back(Field("baseline_tree", TreeJson(*b.counts->call_tree, functions)));
    if (side.counts != nullptr && side.counts->call_tree.has_value()) {
      for (std::string& field : FunctionDeltaFields(*side.counts, *b.counts, functions)) {
        fields.push_back(std::move(field));
      }
    }
  }
  return fields;
}

}  // namespace

absl::StatusOr<std::string> ReportDataJson(const ReportInput& input) {
  const FileCases current_cases = CasesOf(input.current);
  const std::map<std::string, SideCase>& current = current_cases.by_key;
  FileCases baseline_cases;
  if (input.baseline.has_value()) baseline_cases = CasesOf(*input.baseline);
  const std::map<std::string, SideCase>& baseline = baseline_cases.by_key;

  // Wall-time comparisons: the caller's, or ci's unpaired rounds (Gate).
  std::map<std::string, compare::TimeComparison> times;
  if (input.time_comparisons.has_value()) {
    times = *input.time_comparisons;
  } else if (input.baseline.has_value()) {
    ICOUNT_ASSIGN_OR_RETURN(compare::GateReport gate,
                            compare::Gate(*input.baseline, input.current, compare::GateOptions()));
    for (const compare::CaseVerdict& c : gate.cases) {
      if (c.time.has_value()) times[c.key] = *c.time;
    }
  }

  HistoryData history;
  if (input.history != nullptr) {
    ICOUNT_ASSIGN_OR_RETURN(history, LoadHistory(*input.history, input.history_runs));
  }

  FunctionTable functions;
  std::vector<std::string> cases;
  std::vector<std::string> only_baseline;
  bool any_tree = false;
  for (const std::string& key : current_cases.order) {
    const SideCase& side = current.at(key);
    std::vector<std::string> fields = {
        Field("key", JsonString(key)),
        Field("title", JsonString(timer::ResultCaseTitle(*side.spec)))};
    for (std::string& f : PlaceFields(side)) fields.push_back(std::move(f));
    fields.push_back(Field("counts", side.counts ? CountsJson(*side.counts) : "null"));
    fields.push_back(Field("time", TimeJson(side)));
    if (side.counts != nullptr && side.counts->call_tree.has_value() &&
        !side.counts->call_tree->empty()) {
      any_tree = true;
      fields.push_back(Field("tree", TreeJson(*side.counts->call_tree, functions)));
    }
    auto before = baseline.find(key);
    if (before != baseline.end()) {
      for (std::string& f : BaselineFields(key, side, before->second, times, functions)) {
        fields.push_back(std::move(f));
      }
    }
    auto series = history.case_json.find(key);
    if (series != history.case_json.end()) fields.push_back(Field("history", series->second));
    cases.push_back(Object(fields));
  }
  std::vector<std::string> only_current;
  if (input.baseline.has_value()) {
    for (const std::string& key : baseline_cases.order) {
      if (!current.count(key)) only_baseline.push_back(JsonString(key));
    }
    for (const std::string& key : current_cases.order) {
      if (!baseline.count(key)) only_current.push_back(JsonString(key));
    }
  }

  const std::vector<std::string> missing = MissingJson(input, any_tree);
  const std::vector<std::string> node_warnings = NodeWarnings(input);
  std::vector<std::string> summary = {
      Field("current", RunJson(input.current, input.current_name, input.command))};
  std::string overall = "null";
  if (input.baseline.has_value()) {
    summary.push_back(Field("baseline", RunJson(*input.baseline, input.baseline_name, "")));
    overall = OverallJson(current_cases, baseline_cases, times);
  }
  return Object(
      {Field("report_version", JsonString(kReportVersion)), Field("title", JsonString(input.title)),
       Field("kind", JsonString(input.baseline.has_value() ? "comparison" : "run")),
       Field("generated", JsonString(base::NowRfc3339())), Field("summary", Object(summary)),
       Field("overall", overall), Field("functions", functions.Json()),
       Field("cases", Array(cases)), Field("history_runs", history.runs_json),
       Field("unmatched", Object({Field("only_current", Array(only_current)),
                                  Field("only_baseline", Array(only_baseline))})),
       Field("missing", Array(missing)),
       Field("node_warnings", ArrayOf(node_warnings, JsonString))});
}

}  // namespace icount::report
