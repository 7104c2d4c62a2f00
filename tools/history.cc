// //tools:history: the runs kept in a history store (see history/store.h),
// read as series per case, with their change points.
//
//   bazel run //tools:history -- --db=$PWD/h.db import $PWD/run1.json --label=nightly-1
//   bazel run //tools:history -- --db=$PWD/h.db list
//   bazel run //tools:history -- --db=$PWD/h.db show --filter='add' [--metric=time]
//   bazel run //tools:history -- --db=$PWD/h.db steps [--metric=counts|time] [--since=LABEL]
//   bazel run //tools:history -- --db=$PWD/h.db export --format=csv|bmf [--run=ID|LABEL]
//
// main, ci and ab_test record into a store with --history=DB.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/files.h"
#include "base/output_files.h"
#include "base/status.h"
#include "base/text.h"
#include "cli/tool_flags.h"
#include "compare/delta_table.h"
#include "compare/text_table.h"
#include "history/change_points.h"
#include "history/import.h"
#include "history/store.h"
#include "timer/measurement.h"
#include "tools/history_run_changes.h"

ABSL_FLAG(std::string, db, "", "The history store, an SQLite file (required).");
ABSL_FLAG(std::string, label, "",
          "import: the runs' label (e.g. a LibTorch commit); default: each file's start time.");
ABSL_FLAG(std::string, filter, "", "show, steps, export: RE2 regex on case keys and labels.");
ABSL_FLAG(std::string, metric, "",
          "show, steps: counts, allocations or time; default: show counts, steps all three.");
ABSL_FLAG(std::string, since, "", "show, steps: only runs from the first one with this label.");
ABSL_FLAG(int, functions, 5, "steps: functions shown per count step.");
ABSL_FLAG(std::string, format, "csv", "export: csv (every run) or bmf (one run, Bencher).");
ABSL_FLAG(std::string, run, "", "export --format=bmf: a run id or label; default: the latest.");
ABSL_FLAG(std::string, output, "", "export: writes here instead of stdout.");
ABSL_FLAG(double, min_effect_pct, 5.0,
          "steps, show: the smallest wall-time step reported, in percent.");
ABSL_FLAG(double, count_tolerance_pct, 0.01,
          "steps, show: a count step must change by more than this percent and more than "
          "--count_tolerance_abs.");
ABSL_FLAG(double, count_tolerance_abs, 0.5,
          "steps, show: a count step must change by more than this many instructions per run and "
          "more than --count_tolerance_pct.");

namespace icount::tools {
namespace {

using history::CaseSeries;
using history::Metric;
using history::RunRow;
using history::SeriesPoint;
using history::Step;
using history::Store;

constexpr char kUsage[] =
    "Keeps and reads runs in a history store.\n\n"
    "Usage: history --db=DB COMMAND\n"
    "  import FILE... [--label=L]   record results files (main, ci, ab_test --json)\n"
    "  list                         the runs\n"
    "  show [--filter=RE] [--metric=counts|allocations|time] [--since=LABEL]\n"
    "                               each case's series, with a sparkline\n"
    "  steps [--metric=counts|allocations|time] [--since=LABEL] [--filter=RE]\n"
    "                               change points per case and metric\n"
    "  export --format=csv|bmf [--run=ID|LABEL] [--output=FILE]";

absl::StatusOr<std::vector<Metric>> MetricsFlag(bool both_by_default) {
  const std::string metric = absl::GetFlag(FLAGS_metric);
  if (metric.empty()) {
    return both_by_default
               ? std::vector<Metric>{Metric::kCounts, Metric::kAllocations, Metric::kTime}
               : std::vector<Metric>{Metric::kCounts};
  }
  for (Metric known : {Metric::kCounts, Metric::kAllocations, Metric::kTime}) {
    if (metric == history::MetricName(known)) return std::vector<Metric>{known};
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--metric=", metric, ": must be counts, allocations or time"));
}

std::string FormatValue(Metric metric, double value) {
  if (metric == Metric::kCounts) {
    return absl::StrFormat("%.1f", value);
  }
  if (metric == Metric::kAllocations) return compare::FormatAllocations(value);
  const auto [unit, scale] = timer::SelectTimeUnit(value);
  return absl::StrFormat("%.3g %s", value / scale, unit);
}

// Eight levels of block, low to high, over the series' range.
std::string Sparkline(const std::vector<SeriesPoint>& points, size_t width = 60) {
  static const char* kBlocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  const size_t begin = points.size() > width ? points.size() - width : 0;
  double low = points[begin].value, high = points[begin].value;
  for (size_t i = begin; i < points.size(); ++i) {
    low = std::min(low, points[i].value);
    high = std::max(high, points[i].value);
  }
  std::string line = begin > 0 ? "…" : "";
  for (size_t i = begin; i < points.size(); ++i) {
    const int level =
        high > low ? static_cast<int>(std::lround(7 * (points[i].value - low) / (high - low))) : 3;
    line += kBlocks[level];
  }
  return line;
}

std::vector<double> Values(const CaseSeries& series) {
  std::vector<double> values;
  for (const SeriesPoint& p : series.points) values.push_back(p.value);
  return values;
}

std::vector<Step> StepsOf(Metric metric, const CaseSeries& series) {
  history::StepOptions options;
  options.time_min_effect_pct = absl::GetFlag(FLAGS_min_effect_pct);
  options.count_tolerance_pct = absl::GetFlag(FLAGS_count_tolerance_pct);
  options.count_tolerance_abs = absl::GetFlag(FLAGS_count_tolerance_abs);
  switch (metric) {
    case Metric::kCounts:
      return history::CountSteps(Values(series), options);
    case Metric::kAllocations:
      return history::AllocationSteps(Values(series));
    case Metric::kTime:
      break;
  }
  return history::TimeSteps(Values(series), options);
}

// The series of `metric`, with a message when there is nothing to show.
absl::StatusOr<std::vector<CaseSeries>> LoadSeries(Store& store, Metric metric) {
  ICOUNT_ASSIGN_OR_RETURN(std::vector<RunRow> runs, store.Runs());
  if (runs.empty()) {
    return absl::NotFoundError(absl::StrCat(store.path(), " holds no runs yet"));
  }
  const std::string filter = absl::GetFlag(FLAGS_filter);
  ICOUNT_ASSIGN_OR_RETURN(std::vector<CaseSeries> series,
                          store.Series(metric, filter, absl::GetFlag(FLAGS_since)));
  return series;
}

int Import(Store& store, const std::vector<char*>& files) {
  if (files.empty()) return base::Fail("import: name the results files to import");
  int failures = 0;
  for (const char* file : files) {
    absl::StatusOr<std::vector<history::ImportedRun>> runs = history::ReadRunsToImport(file);
    if (!runs.ok()) {
      std::fprintf(stderr, "history: %s\n", std::string(runs.status().message()).c_str());
      ++failures;
      continue;
    }
    for (history::ImportedRun& run : *runs) {
      const std::string label = absl::GetFlag(FLAGS_label);
      run.info.label =
          absl::StrCat(label.empty() ? run.results.start_time : label, run.label_suffix);
      if (run.info.libtorch_version.empty()) {
        run.info.libtorch_version = MeasuredLibTorchVersion(run.results);
      }
      absl::StatusOr<int64_t> id = store.AddRun(run.results, run.info);
      if (!id.ok()) {
        std::fprintf(stderr, "history: %s: %s\n", file, std::string(id.status().message()).c_str());
        ++failures;
        continue;
      }
      std::printf("%s%s: run %lld \"%s\" (%zu counted, %zu timed measurements)\n", file,
                  run.label_suffix.c_str(), static_cast<long long>(*id), run.info.label.c_str(),
                  run.results.instruction_counts.size(), run.results.measurements.size());
    }
  }
  return failures == 0 ? 0 : 1;
}

int List(Store& store) {
  absl::StatusOr<std::vector<RunRow>> runs = store.Runs();
  if (!runs.ok()) return base::Fail(runs.status());
  if (runs->empty()) {
    std::printf("%s holds no runs yet\n", store.path().c_str());
    return 0;
  }
  compare::TextTable table({{"run", compare::Align::kRight},
                            {"label"},
                            {"started"},
                            {"source"},
                            {"cases", compare::Align::kRight},
                            {"machine"},
                            {"kernel"},
                            {"valgrind"},
                            {"LibTorch"}});
  for (const RunRow& r : *runs) {
    table.AddRow({absl::StrCat(r.id), r.label, r.start_time, r.source,
                  absl::StrCat(r.counted_cases, " / ", r.timed_cases),
                  absl::StrCat(r.host, r.host.empty() ? "" : ", ", r.cores, " CPUs, ", r.cpu_model),
                  r.kernel.empty() ? "?" : r.kernel, r.valgrind.empty() ? "-" : r.valgrind,
                  r.libtorch_version.empty() ? "?" : r.libtorch_version});
  }
  std::printf("%s", table.RenderText({}).c_str());
  std::printf("%zu run%s in %s (cases: counted / timed)\n", runs->size(),
              runs->size() == 1 ? "" : "s", store.path().c_str());
  return 0;
}

// What a metric's values are, for people.
const char* Quantity(Metric metric) {
  switch (metric) {
    case Metric::kCounts:
      return "instructions per run";
    case Metric::kAllocations:
      return "heap allocations per run";
    case Metric::kTime:
      return "wall time per run";
  }
  return "";
}

int Show(Store& store) {
  absl::StatusOr<std::vector<Metric>> metrics = MetricsFlag(false);
  if (!metrics.ok()) return base::Fail(metrics.status());
  for (Metric metric : *metrics) {
    absl::StatusOr<std::vector<CaseSeries>> all = LoadSeries(store, metric);
    if (!all.ok()) return base::Fail(all.status());
    if (all->empty()) {
      return base::Fail(
          absl::StrCat("no case has ", history::MetricName(metric),
                       absl::GetFlag(FLAGS_filter).empty()
                           ? ""
                           : absl::StrCat(" matching --filter=", absl::GetFlag(FLAGS_filter)),
                       " in ", store.path()));
    }
    for (const CaseSeries& series : *all) {
      const std::vector<Step> steps = StepsOf(metric, series);
      std::printf("%s  (%s)\n  %s  %zu run%s\n", series.label.c_str(), Quantity(metric),
                  Sparkline(series.points).c_str(), series.points.size(),
                  series.points.size() == 1 ? "" : "s");
      compare::TextTable table({{"run", compare::Align::kRight},
                                {"label"},
                                {history::MetricName(metric), compare::Align::kRight},
                                {"change", compare::Align::kRight},
                                {""}});
      for (size_t i = 0; i < series.points.size(); ++i) {
        const SeriesPoint& p = series.points[i];
        std::string change;
        if (i > 0 && series.points[i - 1].value != 0) {
          change = absl::StrFormat("%+.2f%%", 100 * (p.value / series.points[i - 1].value - 1));
        }
        std::string mark;
        for (const Step& s : steps) {
          if (s.index == i) mark = absl::StrFormat("step %+.2f%%", s.change_pct);
        }
        table.AddRow(
            {absl::StrCat(p.run_id), p.run_label, FormatValue(metric, p.value), change, mark});
      }
      std::printf("%s\n", base::Indent(table.RenderText({}), "  ").c_str());
    }
  }
  return 0;
}

// The functions whose exclusive counts changed most between two runs, per
// run of the statement; "*" marks a function kept in only one of them (its
// delta is an upper bound: the other run kept only its top functions).
absl::StatusOr<std::string> FunctionChanges(Store& store, const std::string& key,
                                            int64_t before_run, int64_t after_run) {
  ICOUNT_ASSIGN_OR_RETURN(timer::FunctionCounts before, store.TopFunctions(before_run, key));
  ICOUNT_ASSIGN_OR_RETURN(timer::FunctionCounts after, store.TopFunctions(after_run, key));
  ICOUNT_ASSIGN_OR_RETURN(int64_t number, store.CountsNumberPerRun(after_run, key));
  ICOUNT_ASSIGN_OR_RETURN(timer::FunctionCounts delta, after.Subtract(before));
  std::vector<timer::FunctionCount> rows = delta.rows();
  std::sort(rows.begin(), rows.end(),
            [](const timer::FunctionCount& a, const timer::FunctionCount& b) {
              return std::llabs(a.count) > std::llabs(b.count);
            });
  auto kept = [](const timer::FunctionCounts& counts, const timer::FunctionKey& name) {
    for (const timer::FunctionCount& row : counts.rows()) {
      if (row.function == name) return true;
    }
    return false;
  };
  std::string out;
  const int shown = std::min<int>(absl::GetFlag(FLAGS_functions), static_cast<int>(rows.size()));
  for (int i = 0; i < shown; ++i) {
    const bool partial = !kept(before, rows[i].function) || !kept(after, rows[i].function);
    absl::StrAppendFormat(&out, "      %+12.1f%s  %s\n",
                          static_cast<double>(rows[i].count) / static_cast<double>(number),
                          partial ? "*" : " ", rows[i].function.text());
  }
  return out;
}

// One metric's steps, for people: for each case with steps its label, then
// a line per step (for counts, with the functions that changed most).
struct StepsReport {
  int step_count = 0;
  int cases_with_steps = 0;
  std::string body;
  bool any_partial = false;  // a function kept in only one of a step's two runs
};

// Step k of a case's series: its runs and levels, for wall time how long
// the new level held, for counts the functions behind it.
absl::Status AppendStep(Store& store, const std::map<int64_t, RunRow>& runs, Metric metric,
                        const CaseSeries& series, const std::vector<Step>& steps, size_t k,
                        StepsReport& report) {
  const Step& s = steps[k];
  const SeriesPoint& at = series.points[s.index];
  const SeriesPoint& previous = series.points[s.index - 1];
  const size_t level_end = k + 1 < steps.size() ? steps[k + 1].index : series.points.size();
  absl::StrAppendFormat(&report.body,
                        "  at run %lld \"%s\" (after run %lld \"%s\"): %s -> %s (%+.2f%%)",
                        static_cast<long long>(at.run_id), at.run_label,
                        static_cast<long long>(previous.run_id), previous.run_label,
                        FormatValue(metric, s.before), FormatValue(metric, s.after), s.change_pct);
  if (metric == Metric::kTime) {
    absl::StrAppendFormat(&report.body, ", held %d runs", static_cast<int>(level_end - s.index));
  }
  absl::StrAppend(&report.body, "\n");
  const auto before = runs.find(previous.run_id);
  const auto after = runs.find(at.run_id);
  if (before != runs.end() && after != runs.end()) {
    if (std::vector<std::string> changes = SetupChanges(metric, before->second, after->second);
        !changes.empty()) {
      absl::StrAppend(&report.body, "    the runs differ in more than the code (",
                      absl::StrJoin(changes, "; "), "): the step may come from that\n");
    }
  }
  if (metric == Metric::kCounts) {
    ICOUNT_ASSIGN_OR_RETURN(std::string functions,
                            FunctionChanges(store, series.key, previous.run_id, at.run_id));
    report.any_partial = report.any_partial || functions.find("* ") != std::string::npos;
    absl::StrAppend(&report.body, functions);
  }
  return absl::OkStatus();
}

absl::StatusOr<StepsReport> ReportSteps(Store& store, Metric metric,
                                        const std::vector<CaseSeries>& all) {
  ICOUNT_ASSIGN_OR_RETURN(std::vector<RunRow> rows, store.Runs());
  std::map<int64_t, RunRow> runs;
  for (RunRow& row : rows) runs[row.id] = std::move(row);
  StepsReport report;
  for (const CaseSeries& series : all) {
    const std::vector<Step> steps = StepsOf(metric, series);
    if (steps.empty()) continue;
    ++report.cases_with_steps;
    report.step_count += static_cast<int>(steps.size());
    absl::StrAppend(&report.body, series.label, "\n");
    for (size_t k = 0; k < steps.size(); ++k) {
      ICOUNT_RETURN_IF_ERROR(AppendStep(store, runs, metric, series, steps, k, report));
    }
  }
  return report;
}

// The report's heading (steps in how many of `cases` cases), its body and
// the note on functions kept in only one run.
void PrintSteps(Metric metric, size_t cases, const StepsReport& report) {
  std::printf(
      "%s: %s in %d of %s%s\n%s", history::MetricName(metric),
      base::CountOf(report.step_count, "step").c_str(), report.cases_with_steps,
      base::CountOf(cases, "case").c_str(),
      metric == Metric::kCounts ? " (functions: exclusive instructions per run, "
                                  "largest changes)"
      : metric == Metric::kAllocations
          ? " (heap allocations per run)"
          : absl::StrFormat(" (levels differing by >= %.1f%%)", absl::GetFlag(FLAGS_min_effect_pct))
                .c_str(),
      report.body.c_str());
  if (report.any_partial) {
    std::printf(
        "  * kept in only one of the two runs (the %d most expensive functions are "
        "kept per run): the change is at most this\n",
        history::kTopFunctions);
  }
  std::printf("\n");
}

// The series of each metric, all loaded before any is reported.
absl::StatusOr<std::vector<std::vector<CaseSeries>>> LoadSeriesOf(
    Store& store, const std::vector<Metric>& metrics) {
  std::vector<std::vector<CaseSeries>> series_of(metrics.size());
  for (size_t m = 0; m < metrics.size(); ++m) {
    ICOUNT_ASSIGN_OR_RETURN(series_of[m], LoadSeries(store, metrics[m]));
  }
  return series_of;
}

int Steps(Store& store) {
  absl::StatusOr<std::vector<Metric>> metrics = MetricsFlag(true);
  if (!metrics.ok()) return base::Fail(metrics.status());
  absl::StatusOr<std::vector<std::vector<CaseSeries>>> series_of = LoadSeriesOf(store, *metrics);
  if (!series_of.ok()) return base::Fail(series_of.status());
  const bool any_series =
      std::any_of(series_of->begin(), series_of->end(),
                  [](const std::vector<CaseSeries>& all) { return !all.empty(); });
  if (!any_series) {
    return base::Fail(absl::StrCat("no case matches --filter=", absl::GetFlag(FLAGS_filter), " in ",
                                   store.path()));
  }
  for (size_t m = 0; m < metrics->size(); ++m) {
    const Metric metric = (*metrics)[m];
    const std::vector<CaseSeries>& all = (*series_of)[m];
    // Runs recorded before icount counted allocations have none: say
    // nothing rather than "0 steps in 0 cases".
    if (metric == Metric::kAllocations && all.empty() && metrics->size() > 1) continue;
    absl::StatusOr<StepsReport> report = ReportSteps(store, metric, all);
    if (!report.ok()) return base::Fail(report.status());
    PrintSteps(metric, all.size(), *report);
  }
  return 0;
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

constexpr absl::string_view kCsvHeader = "run,label,start_time,case,title,metric,value,low,high\n";

absl::StatusOr<std::string> ExportCsv(Store& store, const std::vector<RunRow>& runs) {
  std::string out(kCsvHeader);
  std::map<int64_t, std::string> start;
  for (const RunRow& r : runs) start[r.id] = r.start_time;
  for (Metric metric : {Metric::kCounts, Metric::kAllocations, Metric::kTime}) {
    ICOUNT_ASSIGN_OR_RETURN(std::vector<CaseSeries> all,
                            store.Series(metric, absl::GetFlag(FLAGS_filter)));
    const char* name = metric == Metric::kCounts        ? "instructions_per_run"
                       : metric == Metric::kAllocations ? "allocations_per_run"
                                                        : "seconds_per_run";
    for (const CaseSeries& series : all) {
      for (const SeriesPoint& p : series.points) {
        absl::StrAppendFormat(&out, "%d,%s,%s,%s,%s,%s,%.15g,%.15g,%.15g\n", p.run_id,
                              CsvField(p.run_label), start[p.run_id], CsvField(series.key),
                              CsvField(series.label), name, p.value, p.low, p.high);
      }
    }
  }
  return out;
}

// Bencher Metric Format: {"benchmark": {"measure": {"value": v, "lower_value":
// l, "upper_value": u}}}, one run; instructions per run and latency in ns.
absl::StatusOr<std::string> ExportBmf(Store& store, const std::vector<RunRow>& runs) {
  const std::string wanted = absl::GetFlag(FLAGS_run);
  const RunRow* run = nullptr;
  for (const RunRow& r : runs) {
    if (wanted.empty() || r.label == wanted || absl::StrCat(r.id) == wanted) run = &r;
  }
  if (run == nullptr) {
    return absl::NotFoundError(absl::StrCat("--run=", wanted, ": no run has that id or label (",
                                            "`history list` shows them)"));
  }
  std::map<std::string, std::vector<std::string>> measures;  // title -> measure objects
  for (Metric metric : {Metric::kCounts, Metric::kAllocations, Metric::kTime}) {
    ICOUNT_ASSIGN_OR_RETURN(std::vector<CaseSeries> all,
                            store.Series(metric, absl::GetFlag(FLAGS_filter)));
    const double scale = metric == Metric::kTime ? 1e9 : 1;
    for (const CaseSeries& series : all) {
      for (const SeriesPoint& p : series.points) {
        if (p.run_id != run->id) continue;
        measures[series.label].push_back(absl::StrFormat(
            "%s: {\"value\": %.15g, \"lower_value\": %.15g, \"upper_value\": %.15g}",
            base::JsonString(metric == Metric::kCounts        ? "instructions"
                             : metric == Metric::kAllocations ? "allocations"
                                                              : "latency"),
            p.value * scale, p.low * scale, p.high * scale));
      }
    }
  }
  std::vector<std::string> benchmarks;
  for (const auto& [title, objects] : measures) {
    benchmarks.push_back(
        absl::StrCat("  ", base::JsonString(title), ": {", absl::StrJoin(objects, ", "), "}"));
  }
  return absl::StrCat("{\n", absl::StrJoin(benchmarks, ",\n"), "\n}\n");
}

// Whether a file is an export --output may replace: CSV with ExportCsv's
// header, or Bencher Metric Format whose measures are ExportBmf's.
absl::Status IsCsvExport(absl::string_view text) {
  return absl::StartsWith(text, kCsvHeader)
             ? absl::OkStatus()
             : absl::FailedPreconditionError("is not a CSV export of an icount history store");
}

absl::Status IsBmfExport(absl::string_view text) {
  google::protobuf::Struct benchmarks;
  bool ours = google::protobuf::util::JsonStringToMessage(
                  google::protobuf::StringPiece(text.data(), text.size()), &benchmarks)
                  .ok();
  for (const auto& [title, measures] : benchmarks.fields()) {
    ours = ours && measures.has_struct_value();
    for (const auto& [name, measure] : measures.struct_value().fields()) {
      ours = ours && (name == "instructions" || name == "allocations" || name == "latency") &&
             measure.struct_value().fields().contains("value");
    }
  }
  return ours ? absl::OkStatus()
              : absl::FailedPreconditionError(
                    "is not a Bencher Metric Format export of an icount history store");
}

int Export(Store& store) {
  const std::string output = absl::GetFlag(FLAGS_output);
  if (absl::Status s = base::CheckOutputPath("output", output); !s.ok()) return base::Fail(s);
  if (absl::Status s = base::CheckDistinctOutputs({{"db", store.path()}, {"output", output}});
      !s.ok()) {
    return base::Fail(s);
  }
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "csv" && format != "bmf") {
    return base::Fail(absl::StrCat("--format=", format, ": must be csv or bmf"));
  }
  if (!output.empty()) {
    absl::Status replaceable = base::CheckReplaceable(
        output, "exports", format == "csv" ? IsCsvExport : IsBmfExport);
    if (!replaceable.ok()) return base::Fail(base::WithContext(replaceable, "--output"));
  }
  absl::StatusOr<std::vector<RunRow>> runs = store.Runs();
  if (!runs.ok()) return base::Fail(runs.status());
  if (runs->empty()) return base::Fail(absl::StrCat(store.path(), " holds no runs yet"));
  absl::StatusOr<std::string> text;
  if (format == "csv") {
    text = ExportCsv(store, *runs);
  } else {
    text = ExportBmf(store, *runs);
  }
  if (!text.ok()) return base::Fail(text.status());
  if (output.empty()) {
    std::printf("%s", text->c_str());
    return 0;
  }
  if (absl::Status s = base::WriteFileAtomically(output, *text); !s.ok()) return base::Fail(s);
  return 0;
}

int Main(int argc, char** argv) {
  std::vector<char*> positional = cli::ParseToolFlags(argc, argv, kUsage);
  if (positional.size() < 2) return base::Fail(absl::StrCat("name a command\n\n", kUsage));
  const std::string command = positional[1];
  const std::string db = absl::GetFlag(FLAGS_db);
  if (db.empty()) return base::Fail("--db=FILE is required (the history store)");
  if (absl::GetFlag(FLAGS_functions) < 0) return base::Fail("--functions must be >= 0");
  const std::vector<char*> rest(positional.begin() + 2, positional.end());
  if (command != "import" && !rest.empty()) {
    return base::Fail(absl::StrCat(command, " takes no arguments, got \"", rest[0], "\""));
  }
  if (command == "import") {
    absl::StatusOr<Store> store = Store::OpenForWriting(db);
    if (!store.ok()) return base::Fail(store.status());
    return Import(*store, rest);
  }
  if (command != "list" && command != "show" && command != "steps" && command != "export") {
    return base::Fail(absl::StrCat("unknown command \"", command, "\"\n\n", kUsage));
  }
  absl::StatusOr<Store> store = Store::OpenForReading(db);
  if (!store.ok()) return base::Fail(store.status());
  if (command == "list") return List(*store);
  if (command == "show") return Show(*store);
  if (command == "steps") return Steps(*store);
  return Export(*store);
}

}  // namespace
}  // namespace icount::tools

int main(int argc, char** argv) { return icount::tools::Main(argc, argv); }
