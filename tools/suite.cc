#include "tools/suite.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/files.h"
#include "base/flags.h"
#include "base/fnv.h"
#include "base/runfiles.h"
#include "base/status.h"
#include "cli/tool_flags.h"
#include "compare/delta_table.h"
#include "compare/node_check.h"
#include "compare/text_table.h"
#include "expand/case_modes.h"
#include "expand/materialize.h"
#include "re2/re2.h"
#include "timer/cache_model.h"
#include "timer/callgrind_command.h"
#include "timer/callgrind_stats.h"
#include "timer/node.h"
#include "worker/failure.h"

namespace icount::tools {
namespace {

std::string LabelText(const expand::SuiteCaseProto& c) {
  return expand::LabelText({c.label().begin(), c.label().end()});
}

// Results files show a case in Compare's tables (compare/compare.h): one
// table per top-level group (label), a row per case (sub_label) and a
// column per language and runtime (description).
timer::TaskSpec Relabel(timer::TaskSpec spec, const CasePlace& place) {
  spec.label = place.label.empty() ? "" : place.label[0];
  spec.sub_label = place.sub_label;
  spec.description = place.column;
  return spec;
}

// A measurement's or a count's metadata: the case's key, runtime and
// autograd mode, and the node that measured it ("" for journals of workers
// older than worker 0.6, which carry none).
std::map<std::string, std::string> CaseMetadata(const expand::SuiteCaseProto& c,
                                                const std::string& node) {
  std::map<std::string, std::string> metadata = {
      {timer::kCaseMetadataKey, c.key()},
      {timer::kRuntimeMetadataKey, expand::RuntimeName(c.runtime())},
      {timer::kAutogradMetadataKey, expand::AutogradName(c.autograd())}};
  if (!node.empty()) metadata[timer::kNodeMetadataKey] = node;
  return metadata;
}

// The first line of `text`, at most 120 characters, "..." when cut.
std::string Abbreviated(const std::string& text) {
  const size_t end = std::min(text.find('\n'), size_t{120});
  return end >= text.size() ? text : absl::StrCat(text.substr(0, end), "...");
}

}  // namespace

namespace {

// The suite whose manifest, worker and artifacts directory are at these
// paths (or the first error among them).
absl::StatusOr<Suite> SuiteAt(const absl::StatusOr<std::string>& manifest_path,
                              const absl::StatusOr<std::string>& worker,
                              const absl::StatusOr<std::string>& artifacts) {
  for (const auto* status : {&manifest_path.status(), &worker.status(), &artifacts.status()}) {
    if (!status->ok()) return *status;
  }
  Suite suite;
  ICOUNT_ASSIGN_OR_RETURN(suite.manifest, ReadSuiteManifest(*manifest_path));
  suite.worker_path = *worker;
  suite.artifacts_directory = *artifacts;
  return suite;
}

}  // namespace

absl::StatusOr<expand::SuiteManifestProto> ReadSuiteManifest(const std::string& path) {
  absl::StatusOr<std::string> bytes = base::ReadFileToString(path);
  if (!bytes.ok()) return bytes.status();
  expand::SuiteManifestProto manifest;
  if (!manifest.ParseFromString(*bytes)) {
    return absl::DataLossError(absl::StrCat(path, ": corrupt suite manifest"));
  }
  return manifest;
}

absl::StatusOr<Suite> LoadSuite(const std::string& package, const std::string& name) {
  const std::string prefix = absl::StrCat("icount/", package, "/", name);
  return SuiteAt(base::FindRunfile(prefix + "_sources_manifest.pb"),
                 base::FindRunfile(prefix + "_worker"),
                 base::FindRunfile(prefix + "_sources_artifacts"));
}

absl::StatusOr<Suite> LoadSuiteFromDirectory(const std::string& bin_directory,
                                             const std::string& package, const std::string& name) {
  const std::string prefix = absl::StrCat(bin_directory, "/", package, "/", name);
  auto existing = [](const std::string& path) -> absl::StatusOr<std::string> {
    if (access(path.c_str(), F_OK) != 0) {
      return absl::NotFoundError(absl::StrCat(path, " is missing from the suite's build"));
    }
    return path;
  };
  return SuiteAt(existing(prefix + "_sources_manifest.pb"), existing(prefix + "_worker"),
                 existing(prefix + "_sources_artifacts"));
}

absl::StatusOr<std::vector<expand::SuiteCaseProto>> SelectCases(const Suite& suite,
                                                                const CaseFilter& filter) {
  if (!filter.cpp && !filter.python) {
    return absl::InvalidArgumentError(
        "--no_cpp and --no_python together leave no case to run: drop one of them");
  }
  std::optional<RE2> pattern;
  if (!filter.label_regex.empty()) {
    pattern.emplace(filter.label_regex, RE2::Quiet);  // the error is ours to report
    if (!pattern->ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--filter=", filter.label_regex, " is not a valid RE2 regex: ", pattern->error()));
    }
  }
  std::vector<expand::SuiteCaseProto> cases;
  for (const expand::SuiteCaseProto& c : suite.manifest.cases()) {
    const bool cpp = c.task_spec().language() == timer::CPP;
    if ((cpp && !filter.cpp) || (!cpp && !filter.python)) continue;
    if (pattern.has_value() && !RE2::PartialMatch(LabelText(c), *pattern)) continue;
    cases.push_back(c);
  }
  if (cases.empty()) {
    return absl::NotFoundError(absl::StrCat("no ",
                                            filter.cpp ? (filter.python ? "" : "C++ ") : "Python ",
                                            "case matches --filter=", filter.label_regex,
                                            " (it is searched in labels such as \"Pointwise / Math "
                                            "/ add\"; main --list shows them all)"));
  }
  return cases;
}

absl::Status CheckMeasureOptions(const MeasureOptions& options) {
  if (options.wall_time) {
    ICOUNT_RETURN_IF_ERROR(base::CheckFlagPositive("min_run_time", options.min_run_time));
  }
  if (options.instruction_counts) {
    ICOUNT_RETURN_IF_ERROR(base::CheckFlagAtLeast("callgrind_number", options.callgrind_number, 1));
    ICOUNT_RETURN_IF_ERROR(base::CheckFlagAtLeast("repeats", options.callgrind_repeats, 1));
  }
  return absl::OkStatus();
}

std::vector<worker::WorkOrderProto> MakeOrders(const Suite& suite,
                                               const std::vector<expand::SuiteCaseProto>& cases,
                                               const MeasureOptions& options) {
  std::vector<worker::WorkOrderProto> orders;
  for (const expand::SuiteCaseProto& c : cases) {
    worker::WorkOrderProto base;
    *base.mutable_task_spec() = c.task_spec();
    base.set_compiled_case(c.compiled_case());
    if (!c.torchscript_artifact().empty()) {
      base.set_torchscript_artifact(
          absl::StrCat(suite.artifacts_directory, "/", c.torchscript_artifact(), ".pt"));
      base.set_torchscript_rehearsal(options.rehearse_torchscript);
    }
    if (options.instruction_counts) {
      worker::WorkOrderProto order = base;
      order.set_id(c.key() + "#counts");
      order.set_case_key(c.key());
      order.set_callgrind(true);
      order.set_callgrind_number(options.callgrind_number);
      order.set_callgrind_repeats(options.callgrind_repeats);
      order.set_baseline_per_case(options.baseline_per_case);
      order.set_template_per_case(options.template_per_case);
      // Backward in a process forked after the warm-up's backward fails on
      // PyTorch 2.x: such cases warm up after the fork.
      order.set_warm_up_after_fork(c.autograd() == expand::AUTOGRAD_FORWARD_BACKWARD);
      orders.push_back(std::move(order));
    }
    if (options.wall_time) {
      worker::WorkOrderProto order = base;
      order.set_id(c.key() + "#time");
      order.set_case_key(c.key());
      order.set_wall_time(true);
      order.set_min_run_time(options.min_run_time);
      orders.push_back(std::move(order));
    }
  }
  return orders;
}

std::string SuiteChecksum(const std::vector<expand::SuiteCaseProto>& cases) {
  base::Fnv1a64 hash;
  for (const expand::SuiteCaseProto& c : cases) hash.Add(c.key());
  return hash.Hex();
}

CasePlace PlaceCase(const expand::SuiteCaseProto& c) {
  CasePlace place;
  place.label.assign(c.label().begin(), c.label().end());
  place.num_threads = c.task_spec().num_threads();
  place.autograd = expand::AutogradText(c.autograd());
  const timer::Language language =
      c.task_spec().language() == timer::CPP ? timer::Language::kCpp : timer::Language::kPython;
  place.column = c.runtime() == expand::RUNTIME_EXPLICIT
                     ? timer::LanguageName(language)
                     : compare::DeltaColumn(language, expand::RuntimeName(c.runtime()));
  const char* backward = c.autograd() == expand::AUTOGRAD_FORWARD_BACKWARD ? " (fwd+bwd)" : "";
  place.row = absl::StrCat(LabelText(c), backward);
  place.sub_label = absl::StrCat(
      absl::StrJoin(c.label().begin() + (c.label().empty() ? 0 : 1), c.label().end(), " / "),
      backward);
  return place;
}

std::vector<std::string> SuiteColumns() {
  std::vector<std::string> columns;
  for (timer::Language language : {timer::Language::kPython, timer::Language::kCpp}) {
    for (expand::Runtime runtime : {expand::RUNTIME_EAGER, expand::RUNTIME_TORCHSCRIPT}) {
      columns.push_back(compare::DeltaColumn(language, expand::RuntimeName(runtime)));
    }
  }
  return columns;
}

std::string CaseFailureText(const expand::SuiteCaseProto& c,
                            const worker::WorkerResultProto& result) {
  return absl::StrCat(worker::FailureKindName(result.failure().kind()), ": ",
                      result.failure().reason(), "\n    at ", c.definition_file(), ":",
                      c.definition_line(), ", stmt: ", Abbreviated(c.task_spec().stmt()));
}

namespace {

// A worker's output for one case as read back from its protos.
struct CaseOutput {
  std::optional<timer::Measurement> wall_time;
  std::vector<timer::CallgrindStats> repeats;  // of its instruction counts
};

// An error names the first proto that does not read back: the worker wrote
// it, so that is a bug of icount's, and the case is reported failed rather
// than shown without the measurement.
absl::StatusOr<CaseOutput> ReadCaseOutput(const worker::WorkerOutputProto& output) {
  CaseOutput read;
  if (output.has_wall_time()) {
    ICOUNT_ASSIGN_OR_RETURN(read.wall_time, timer::MeasurementFromProto(output.wall_time()),
                            absl::Status(_.code(), absl::StrCat("wall time: ", _.message())));
  }
  for (int i = 0; i < output.callgrind_size(); ++i) {
    ICOUNT_ASSIGN_OR_RETURN(
        timer::CallgrindStats stats, timer::CallgrindStatsFromProto(output.callgrind(i)),
        absl::Status(_.code(), absl::StrCat("instruction counts, repeat ", i + 1, " of ",
                                            output.callgrind_size(), ": ", _.message())));
    read.repeats.push_back(std::move(stats));
  }
  return read;
}

// A case's wall-time measurement, labelled as `place`, with its `round`
// (-1: none) in its metadata.
void AddWallTime(const timer::Measurement& m, const CasePlace& place,
                 const std::map<std::string, std::string>& metadata, int round,
                 timer::ResultsFile& file) {
  file.measurements.emplace_back(m.number_per_run(), m.raw_times(), Relabel(m.task_spec(), place),
                                 metadata);
  if (round >= 0) file.measurements.back().mutable_metadata()["round"] = absl::StrCat(round);
}

// Case `c`'s callgrind repeats summarised, labelled as `place`.
void AddInstructionCounts(const expand::SuiteCaseProto& c,
                          const std::vector<timer::CallgrindStats>& repeats,
                          const CasePlace& place,
                          const std::map<std::string, std::string>& metadata, SuiteResults& out) {
  const std::string& key = c.key();
  timer::InstructionCounts counts = timer::SummarizeInstructionCounts(repeats);
  counts.task_spec = Relabel(counts.task_spec, place);
  counts.metadata = metadata;
  counts.metadata["ci_key"] = c.ci_key();
  out.counts_per_run[key] = counts.counts_per_run;
  if (counts.allocations_per_run) out.allocations_per_run[key] = *counts.allocations_per_run;
  if (counts.estimated_cycles_per_run) {
    out.cycles_per_run[key] = *counts.estimated_cycles_per_run;
  }
  out.counts[key] = counts.counts;
  out.file.instruction_counts.push_back(std::move(counts));
}

}  // namespace

SuiteResults CollectResults(const std::vector<expand::SuiteCaseProto>& cases,
                            const std::vector<worker::WorkOrderProto>& orders,
                            const std::vector<worker::WorkerResultProto>& results,
                            const std::vector<int>* rounds) {
  std::map<std::string, const expand::SuiteCaseProto*> case_of;
  for (const expand::SuiteCaseProto& c : cases) case_of[c.key()] = &c;
  SuiteResults out;
  out.file.versions = cli::LibraryVersionMap();
  out.file.machine_node = timer::ThisMachine();
  out.file.machine = timer::DescribeMachine(out.file.machine_node);
  out.file.settings = RunSettings(orders);
  out.file.command = cli::ToolCommandLine();
  for (size_t i = 0; i < results.size() && i < orders.size(); ++i) {
    const std::string& key = orders[i].case_key();
    const expand::SuiteCaseProto* c = case_of[key];
    if (c == nullptr) continue;
    const worker::WorkerResultProto& result = results[i];
    if (result.has_failure()) {
      out.file.failures[key] = CaseFailureText(*c, result);
      continue;
    }
    absl::StatusOr<CaseOutput> output = ReadCaseOutput(result.output());
    if (!output.ok()) {
      worker::WorkerResultProto unread;
      unread.mutable_failure()->set_kind(worker::FAILURE_MEASURE);
      unread.mutable_failure()->set_reason(
          absl::StrCat("the worker's results for it do not read back (a bug of icount's; "
                       "please report it with this message): ",
                       output.status().message()));
      out.file.failures[key] = CaseFailureText(*c, unread);
      continue;
    }
    const CasePlace place = PlaceCase(*c);
    const std::map<std::string, std::string> metadata =
        CaseMetadata(*c, result.has_node() ? timer::AddNode(out.file, result.node()) : "");
    if (output->wall_time) {
      AddWallTime(*output->wall_time, place, metadata,
                  rounds != nullptr && i < rounds->size() ? (*rounds)[i] : -1, out.file);
    }
    if (!output->repeats.empty()) {
      AddInstructionCounts(*c, output->repeats, place, metadata, out);
    }
  }
  if (!out.cycles_per_run.empty()) {
    // The workers simulated caches (RunnerOptions::cache_sim).
    AddCallgrindSettings(/*cache_sim=*/true, out.file.settings);
  }
  return out;
}

absl::StatusOr<worker::RunnerReport> RunWithProgress(
    const std::vector<worker::WorkOrderProto>& orders, worker::RunnerOptions options,
    const OrderRunner& run) {
  const bool terminal = isatty(STDERR_FILENO);
  worker::ProgressLog log;
  options.on_progress = [terminal, &log](const worker::RunnerProgress& progress) {
    if (terminal) {
      std::fprintf(stderr, "\r\033[K%s", worker::FormatProgress(progress, true).c_str());
    } else if (std::optional<std::string> line = log.Line(progress)) {
      std::fprintf(stderr, "%s\n", line->c_str());
    }
  };
  if (std::any_of(orders.begin(), orders.end(),
                  [](const worker::WorkOrderProto& order) { return order.wall_time(); })) {
    for (const std::string& disturbance : WallTimeDisturbances()) {
      std::fprintf(stderr, "icount: warning: %s\n", disturbance.c_str());
    }
  }
  absl::StatusOr<worker::RunnerReport> report = run(orders, options);
  if (terminal) std::fprintf(stderr, "\n");
  return report;
}

namespace {

// A table of one per-run figure per case (`values`, by case key), placed
// as PlaceCase places cases; "failed" for failed cases, "-" for the rest.
std::string PerRunTable(const std::vector<expand::SuiteCaseProto>& cases,
                        const std::map<std::string, double>& values,
                        const std::map<std::string, std::string>& failures,
                        const std::string& title, int decimals) {
  std::vector<std::string> columns;
  std::map<int, std::vector<std::string>> rows;  // threads -> row names in order
  std::map<std::tuple<int, std::string, std::string>, std::string> cells;  // threads, row, column
  std::set<std::pair<int, std::string>> seen_rows;
  for (const expand::SuiteCaseProto& c : cases) {
    const CasePlace place = PlaceCase(c);
    if (std::find(columns.begin(), columns.end(), place.column) == columns.end()) {
      columns.push_back(place.column);
    }
    if (seen_rows.insert({place.num_threads, place.row}).second) {
      rows[place.num_threads].push_back(place.row);
    }
    auto counted = values.find(c.key());
    std::string cell = "-";
    if (counted != values.end()) {
      cell = absl::StrFormat("%.*f", decimals, counted->second);
    } else if (failures.count(c.key())) {
      cell = "failed";
    }
    cells[{place.num_threads, place.row, place.column}] = cell;
  }
  std::vector<compare::TextTable::Column> layout = {
      {title, compare::Align::kLeft, compare::Align::kLeft, /*min_width=*/10}};
  for (const std::string& column : columns) {
    layout.push_back(
        {column, compare::Align::kRight, compare::Align::kRight, /*min_width=*/12, " | "});
  }
  compare::TextTable table(std::move(layout));
  for (const auto& [threads, names] : rows) {
    table.AddGroup(absl::StrCat(threads, " thread", threads > 1 ? "s" : "", ":"));
    for (const std::string& name : names) {
      std::vector<std::string> row = {name};
      for (const std::string& column : columns) {
        auto it = cells.find({threads, name, column});
        row.push_back(it == cells.end() ? "" : it->second);
      }
      table.AddRow(row);
    }
  }
  compare::TextTable::TextOptions options;
  options.rule_under_header = true;
  return table.RenderText(options);
}

}  // namespace

std::string CountsTable(const std::vector<expand::SuiteCaseProto>& cases,
                        const SuiteResults& results) {
  return PerRunTable(cases, results.counts_per_run, results.file.failures, "Instructions per run",
                     /*decimals=*/0);
}

std::string CyclesTable(const std::vector<expand::SuiteCaseProto>& cases,
                        const SuiteResults& results) {
  if (results.cycles_per_run.empty()) return "";
  return PerRunTable(cases, results.cycles_per_run, results.file.failures,
                     "Estimated cycles per run", /*decimals=*/0);
}

std::string AllocationsTable(const std::vector<expand::SuiteCaseProto>& cases,
                             const SuiteResults& results) {
  if (results.allocations_per_run.empty()) return "";
  // Whole numbers unless some case allocates in only some of its runs.
  int decimals = 0;
  for (const auto& [key, value] : results.allocations_per_run) {
    if (value != static_cast<double>(static_cast<int64_t>(value))) decimals = 2;
  }
  return PerRunTable(cases, results.allocations_per_run, results.file.failures,
                     "Allocations per run", decimals);
}

std::vector<std::string> WallTimeDisturbances(const std::string& sysfs) {
  std::vector<std::string> found;
  const std::string kdamonds = sysfs + "/kernel/mm/damon/admin/kdamonds";
  for (int k = 0;; ++k) {
    const std::string kdamond = absl::StrCat(kdamonds, "/", k);
    absl::StatusOr<std::string> state = base::ReadFileToString(kdamond + "/state");
    if (!state.ok()) break;
    if (absl::StripAsciiWhitespace(*state) != "on") continue;
    std::vector<std::string> actions;
    for (int scheme = 0;; ++scheme) {
      absl::StatusOr<std::string> action =
          base::ReadFileToString(absl::StrCat(kdamond, "/contexts/0/schemes/", scheme, "/action"));
      if (!action.ok()) break;
      actions.push_back(std::string(absl::StripAsciiWhitespace(*action)));
    }
    found.push_back(absl::StrCat(
        "DAMON kdamond ", k, " is on", actions.empty() ? "" : " (schemes: ",
        absl::StrJoin(actions, ", "), actions.empty() ? "" : ")",
        ": while it monitors memory, whole wall-time measurements now and then run 50-90% "
        "slow; as root, `echo off > ",
        kdamond, "/state` for the run"));
  }
  return found;
}

std::string WallTimeDisturbancesSetting() {
  // Asked once per process: ab_test collects results four times.
  static const std::vector<std::string>* const disturbances =
      new std::vector<std::string>(WallTimeDisturbances());
  return disturbances->empty() ? "none found" : absl::StrJoin(*disturbances, "; ");
}

void AddCallgrindSettings(bool cache_sim, std::map<std::string, std::string>& settings) {
  const absl::StatusOr<std::string>& version = timer::ValgrindVersionOnce();
  settings["valgrind"] =
      version.ok() ? *version : absl::StrCat("unknown (", version.status().message(), ")");
  settings["valgrind_options"] = absl::StrJoin(timer::CallgrindToolOptions(cache_sim), " ");
  if (cache_sim) settings[timer::kCacheModelSetting] = timer::CacheModelDescription();
}

std::map<std::string, std::string> RunSettings(const std::vector<worker::WorkOrderProto>& orders) {
  std::map<std::string, std::string> settings;
  bool counted = false;
  bool timed = false;
  bool baseline_per_case = false;
  bool template_per_case = false;
  bool rehearsed = false;
  for (const worker::WorkOrderProto& order : orders) {
    rehearsed = rehearsed || order.torchscript_rehearsal();
    counted = counted || order.callgrind();
    timed = timed || order.wall_time();
    baseline_per_case = baseline_per_case || (order.callgrind() && order.baseline_per_case());
    template_per_case = template_per_case || (order.callgrind() && order.template_per_case());
  }
  if (rehearsed) {
    settings[compare::kTorchScriptCasesSetting] =
        "forked from a zygote that first loaded and ran icount's TorchScript rehearsal model "
        "(worker/internal/torchscript_rehearsal_model.py, forward and backward 3 times; "
        "--rehearse_torchscript): their counts are exact, but differ from an unrehearsed run's "
        "by up to ~1.5%";
  }
  if (timed) settings[kWallTimeDisturbancesSetting] = WallTimeDisturbancesSetting();
  if (!counted) return settings;
  AddCallgrindSettings(/*cache_sim=*/false, settings);
  settings["baseline"] = baseline_per_case ? "per case, in the case's own process"
                                           : "one per worker, language, number and thread count";
  settings["measuring_process"] =
      template_per_case || baseline_per_case
          ? "a template forked from each case process (worker 0.8's process tree)"
          : "each case's own process (setup, warm-up, then a fork per repeat; it exits once "
            "measured, instrumentation still on, and the worker makes its result from the "
            "order)";
  settings["zygotes"] = absl::StrCat(
      template_per_case
          ? "one per worker, valgrind's translations of the worker's start-up thrown away "
            "(worker 0.12)"
          : "two per worker: C++ cases fork from one that threw valgrind's translations of the "
            "worker's start-up away, Python cases from one that keeps them (same counts)",
      rehearsed ? "; TorchScript cases fork from another, which rehearsed TorchScript first "
                  "(see torchscript_cases)"
                : "");
  settings["dumps_parsed_by"] = "the runner, outside valgrind";
  return settings;
}

}  // namespace icount::tools
