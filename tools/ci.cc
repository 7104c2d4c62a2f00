// //tools:ci: the regression gate.
//
//   bazel run //tools:ci -- --destination=$PWD/out.json [--baseline=$PWD/base.json]
//       [--threshold_pct=1] [--threshold_abs=50] [--overrides='^Empty=5'] [--subset]
//       [--no_cpp | --no_python] [--time_rounds=3] [--gate_on_time] [--json=$PWD/comparisons.json]
//
// Runs the suite (instruction counts with 5 repeats, plus wall time in
// --time_rounds rounds, each round a pass over every case) and writes a
// results file with the library versions, the checksum of the measured
// case keys, start and end time, and every case's counts and times (one
// measurement per round). With --baseline it prints a Markdown summary of
// per-case verdicts and exits 3 when an instruction count regressed beyond
// the thresholds. Wall time is compared round by round with the same
// method as ab_test's, unpaired (compare/gate.h): reported, and gating only
// with --gate_on_time. --json writes the "comparisons" list. Counts from
// nodes that count differently (CPU, ATen's capability, valgrind) are
// compared with a warning; wall times from another host are not compared
// unless --compare_time_across_hosts.
// Exit codes: 0 ok, 1 error or failed cases, 3 regression. Never prompts.
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/files.h"
#include "base/flags.h"
#include "base/output_files.h"
#include "base/proto_json.h"
#include "base/status.h"
#include "base/text.h"
#include "cli/tool_flags.h"
#include "compare/gate.h"
#include "environment/pytorch_install.h"
#include "tools/environment_suite.h"
#include "tools/executor.h"
#include "tools/history_recording.h"
#include "tools/html_report.h"
#include "tools/suite.h"

ABSL_FLAG(std::string, destination, "",
          "Results file to write (required); refuses to overwrite a file that is not an icount "
          "results file.");
ABSL_FLAG(std::string, baseline, "",
          "Results file to compare against; enables the gate (exit 3 on a count regression).");
ABSL_FLAG(double, threshold_pct, 1.0,
          "A count regresses when it grows by more than this percent and by more than "
          "--threshold_abs.");
ABSL_FLAG(double, threshold_abs, 50,
          "A count regresses when it grows by more than this many instructions per run and by "
          "more than --threshold_pct.");
ABSL_FLAG(std::vector<std::string>, overrides, {},
          "Per-case --threshold_pct values as REGEX=PCT,... (regex on the case key; first match "
          "wins).");
ABSL_FLAG(bool, subset, false,
          "Runs only the first case of each top-level group, for a quick gate.");
ABSL_FLAG(std::string, filter, "",
          "Runs only cases whose label contains a match for this RE2 regex.");
ABSL_FLAG(std::string, markdown, "", "Also writes the Markdown summary to this file.");
ABSL_FLAG(bool, no_cpp, false, "Skips C++ cases.");
ABSL_FLAG(bool, no_python, false, "Skips Python cases.");
ABSL_FLAG(int, repeats, 5, "Callgrind repeats per case.");
ABSL_FLAG(bool, rehearse_torchscript, false, icount::tools::kRehearseTorchScriptHelp);
ABSL_FLAG(bool, cache_sim, false, icount::tools::kCacheSimHelp);
ABSL_FLAG(
    int, jobs, 0,
    "Worker processes per phase; 0: up to one per CPU (a count worker per ~15 s of counting).");
ABSL_FLAG(int, time_rounds, 3,
          "Wall-time rounds, each a pass over every case; comparing wall time needs at least 3 "
          "here and in the baseline.");
ABSL_FLAG(bool, gate_on_time, false,
          "With --baseline: a significant wall-time slowdown also fails the gate (exit 3).");
ABSL_FLAG(bool, compare_time_across_hosts, false,
          "With --baseline: compares wall times of cases the baseline timed on another host "
          "instead of only listing them.");
ABSL_FLAG(std::string, env, "", icount::tools::kEnvHelp);
ABSL_FLAG(std::string, libtorch, "", icount::tools::kLibTorchHelp);
ABSL_FLAG(std::string, root, "", icount::tools::kRootHelp);
ABSL_FLAG(std::string, json, "",
          "With --baseline: also writes the per-case comparisons here as JSON.");

namespace icount::tools {
namespace {

absl::StatusOr<compare::GateOptions> GateFlags() {
  compare::GateOptions gate;
  gate.threshold_pct = absl::GetFlag(FLAGS_threshold_pct);
  gate.threshold_abs = absl::GetFlag(FLAGS_threshold_abs);
  for (const std::string& item : absl::GetFlag(FLAGS_overrides)) {
    std::pair<std::string, std::string> parts = absl::StrSplit(item, absl::MaxSplits('=', 1));
    double pct = 0;
    if (parts.first.empty() || !absl::SimpleAtod(parts.second, &pct)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--overrides entry \"", item, "\" is not REGEX=PERCENT"));
    }
    gate.pct_overrides.emplace_back(parts.first, pct);
  }
  gate.gate_on_time = absl::GetFlag(FLAGS_gate_on_time);
  gate.compare_time_across_hosts = absl::GetFlag(FLAGS_compare_time_across_hosts);
  ICOUNT_RETURN_IF_ERROR(compare::CheckGateOptions(gate));
  // Checked after their values, so that a bad one is said first.
  ICOUNT_RETURN_IF_ERROR(base::RefuseUnusedFlags(
      {"threshold_pct", "threshold_abs", "overrides", "gate_on_time", "compare_time_across_hosts"},
      absl::GetFlag(FLAGS_baseline).empty(),
      "sets the gate against --baseline, and without one nothing is gated: add --baseline=FILE, "
      "or drop it"));
  return gate;
}

// The --baseline results, read before the long run: a bad file is a quick
// error. nullopt without --baseline.
absl::StatusOr<std::optional<timer::ResultsFile>> ReadBaseline() {
  const std::string path = absl::GetFlag(FLAGS_baseline);
  if (path.empty()) return std::optional<timer::ResultsFile>();
  ICOUNT_ASSIGN_OR_RETURN(timer::ResultsFile baseline, timer::ReadResultsFile(path));
  if (baseline.instruction_counts.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": has no instruction counts to compare against"));
  }
  return std::optional<timer::ResultsFile>(std::move(baseline));
}

// The cases --filter, --no_cpp and --no_python select; with --subset the
// first of each top-level group, per language.
absl::StatusOr<std::vector<expand::SuiteCaseProto>> CasesToMeasure(
    const EnvironmentSuite& environment) {
  CaseFilter filter;
  filter.label_regex = absl::GetFlag(FLAGS_filter);
  filter.cpp = !absl::GetFlag(FLAGS_no_cpp);
  filter.python = !absl::GetFlag(FLAGS_no_python);
  ICOUNT_ASSIGN_OR_RETURN(std::vector<expand::SuiteCaseProto> all,
                          SelectEnvironmentCases(environment, filter, "ci"));
  std::vector<expand::SuiteCaseProto> cases;
  std::set<std::string> groups;
  for (const expand::SuiteCaseProto& c : all) {
    const std::string group = absl::StrCat(c.label(0), "|", c.task_spec().language());
    if (!absl::GetFlag(FLAGS_subset) || groups.insert(group).second) cases.push_back(c);
  }
  return cases;
}

// Counts (--repeats) and wall time of `cases`, written to `destination`
// with the suite checksum; the journal goes once the file is written.
absl::StatusOr<SuiteResults> Measure(const EnvironmentSuite& environment,
                                     const std::vector<expand::SuiteCaseProto>& cases,
                                     const std::string& destination) {
  const Suite& suite = environment.suite;
  MeasureOptions measure;
  measure.callgrind_repeats = absl::GetFlag(FLAGS_repeats);
  measure.rehearse_torchscript = absl::GetFlag(FLAGS_rehearse_torchscript);
  // Wall time in rounds: round 0 is MakeOrders' order per case, each later
  // round a copy after all of it, so a case's rounds are a whole pass apart.
  std::vector<worker::WorkOrderProto> orders = MakeOrders(suite, cases, measure);
  std::vector<int> rounds(orders.size(), -1);
  std::vector<worker::WorkOrderProto> time_orders;
  for (size_t i = 0; i < orders.size(); ++i) {
    if (!orders[i].wall_time()) continue;
    rounds[i] = 0;
    time_orders.push_back(orders[i]);
  }
  for (int round = 1; round < absl::GetFlag(FLAGS_time_rounds); ++round) {
    for (worker::WorkOrderProto order : time_orders) {
      order.set_id(absl::StrCat(order.id(), "#round", round));
      orders.push_back(std::move(order));
      rounds.push_back(round);
    }
  }
  worker::RunnerOptions options = EnvironmentRunnerOptions(environment, absl::GetFlag(FLAGS_env));
  options.cache_sim = absl::GetFlag(FLAGS_cache_sim);
  options.jobs = absl::GetFlag(FLAGS_jobs);
  options.journal_path = destination + ".journal";
  options.resume = true;  // a rerun of an interrupted CI job continues it
  options.how_to_continue = "run the same command to continue (ci resumes by itself)";
  const std::string start = NowRfc3339();
  ICOUNT_ASSIGN_OR_RETURN(worker::RunnerReport report,
                          RunWithProgress(orders, options, ExecuteOrders));
  SuiteResults results = CollectResults(cases, orders, report.results, &rounds);
  AddLibTorchSettings(environment, results.file.settings);
  results.file.start_time = start;
  results.file.end_time = NowRfc3339();
  results.file.suite_checksum = SuiteChecksum(cases);
  ICOUNT_RETURN_IF_ERROR(timer::WriteResultsFile(destination, results.file),
                         absl::Status(_.code(), absl::StrCat(_.message(), " (every result is in ",
                                                             RunStatePath(orders, options), ")")));
  RemoveRunState(orders, options);
  std::fprintf(stderr, "ci: %s measured, results in %s\n",
               base::CountOf(cases.size(), "case").c_str(), destination.c_str());
  return results;
}

// The numbers of the run in range, before anything runs (the gate's are
// checked with --overrides, by GateFlags).
absl::Status CheckNumberFlags() {
  MeasureOptions measure;
  measure.callgrind_repeats = absl::GetFlag(FLAGS_repeats);
  ICOUNT_RETURN_IF_ERROR(CheckMeasureOptions(measure));
  ICOUNT_RETURN_IF_ERROR(
      base::CheckFlagAtLeast("time_rounds", absl::GetFlag(FLAGS_time_rounds), 1));
  return base::CheckFlagAtLeast("jobs", absl::GetFlag(FLAGS_jobs), 0);
}

// Every check of the command line, in order, before anything is read or run.
absl::Status CheckFlags(const std::vector<char*>& positional) {
  ICOUNT_RETURN_IF_ERROR(base::CheckNoPositionalArguments(positional));
  ICOUNT_RETURN_IF_ERROR(CheckNumberFlags());
  ICOUNT_RETURN_IF_ERROR(CheckExecutorFlags());
  ICOUNT_RETURN_IF_ERROR(
      CheckCppLeftOut(EnvironmentFlagsSpec(absl::GetFlag(FLAGS_env), absl::GetFlag(FLAGS_libtorch)),
                      absl::GetFlag(FLAGS_no_cpp)));
  const std::string destination = absl::GetFlag(FLAGS_destination);
  if (destination.empty()) return absl::InvalidArgumentError("--destination is required");
  for (const auto& [flag, path] : {std::pair<const char*, std::string>{"destination", destination},
                                   {"markdown", absl::GetFlag(FLAGS_markdown)},
                                   {"json", absl::GetFlag(FLAGS_json)}}) {
    ICOUNT_RETURN_IF_ERROR(base::CheckOutputPath(flag, path));
  }
  ICOUNT_RETURN_IF_ERROR(CheckHtmlFlag({{"destination", destination},
                                        {"markdown", absl::GetFlag(FLAGS_markdown)},
                                        {"json", absl::GetFlag(FLAGS_json)},
                                        {"history", absl::GetFlag(FLAGS_history)}}));
  ICOUNT_RETURN_IF_ERROR(timer::CheckResultsDestination(destination),
                         base::WithContext(_, "--destination"));
  for (const auto& [flag, path, is_ours] :
       {std::tuple{"markdown", absl::GetFlag(FLAGS_markdown), &compare::IsGateMarkdown},
        std::tuple{"json", absl::GetFlag(FLAGS_json), &compare::IsGateJson}}) {
    if (path.empty()) continue;
    ICOUNT_RETURN_IF_ERROR(base::CheckReplaceable(path, "summaries and comparison files", is_ours),
                           base::WithContext(_, absl::StrCat("--", flag)));
  }
  if (!absl::GetFlag(FLAGS_json).empty() && absl::GetFlag(FLAGS_baseline).empty()) {
    return absl::InvalidArgumentError(
        "--json writes the comparisons with the baseline: it needs --baseline");
  }
  return absl::OkStatus();
}

// Prints each failed case and a failure to record the run in --history;
// 1 when there was either, else 0.
int ReportFailuresAndRecordHistory(const SuiteResults& results, SuiteHistory& history,
                                   const std::string& destination) {
  int exit_code = 0;
  for (const auto& [key, reason] : results.file.failures) {
    std::fprintf(stderr, "ci: case failed: %s: %s\n", key.c_str(), reason.c_str());
    exit_code = 1;
  }
  if (history.store.has_value()) {
    if (absl::Status s =
            RecordHistory(*history.store, results.file, "ci", "", &history.libtorch, destination);
        !s.ok()) {
      std::fprintf(stderr, "ci: %s\n", std::string(s.message()).c_str());
      exit_code = 1;
    }
  }
  return exit_code;
}

// The gate against --baseline: --html with the baseline and the gate's wall
// time comparisons, the Markdown summary on stdout, --markdown and --json;
// 3 when the gate fails, else `exit_code`.
int GateOnBaseline(const timer::ResultsFile& baseline, const SuiteResults& results,
                   const compare::GateOptions& gate, report::ReportInput report, int exit_code) {
  absl::StatusOr<compare::GateReport> gated = compare::Gate(baseline, results.file, gate);
  if (!gated.ok()) return base::Fail(gated.status());
  for (const std::string& warning : gated->node_warnings) {
    std::fprintf(stderr, "ci: warning: %s\n", warning.c_str());
  }
  report.baseline = baseline;
  report.baseline_name = absl::GetFlag(FLAGS_baseline);
  report.time_comparisons.emplace();
  for (const compare::CaseVerdict& c : gated->cases) {
    if (c.time.has_value()) (*report.time_comparisons)[c.key] = *c.time;
  }
  if (absl::Status s = WriteHtmlFlag(std::move(report)); !s.ok()) return base::Fail(s);
  const std::string markdown = compare::GateMarkdown(*gated, gate);
  std::printf("%s", markdown.c_str());
  for (const auto& [path, text] :
       {std::make_pair(absl::GetFlag(FLAGS_markdown), markdown),
        std::make_pair(absl::GetFlag(FLAGS_json),
                       base::ProtoToJsonAllFields(compare::GateToProto(*gated)) + "\n")}) {
    if (path.empty()) continue;
    if (absl::Status s = base::WriteFileAtomically(path, text); !s.ok()) return base::Fail(s);
  }
  return compare::GateFails(*gated, gate) ? 3 : exit_code;
}

int Main(int argc, char** argv) {
  const std::vector<char*> positional = cli::ParseToolFlags(
      argc, argv,
      "Runs the suite and gates on instruction-count regressions.\n\nUsage: bazel run "
      "//tools:ci -- --destination=FILE [--baseline=FILE] [--threshold_pct=P] "
      "[--threshold_abs=N] [--subset] [--no_cpp | --no_python] [--time_rounds=N] [--gate_on_time] "
      "[--json=FILE]");
  if (absl::Status s = CheckFlags(positional); !s.ok()) return base::Fail(s);
  absl::StatusOr<std::optional<history::Store>> store = OpenHistoryFlags();
  if (!store.ok()) return base::Fail(store.status());
  const std::string destination = absl::GetFlag(FLAGS_destination);
  absl::StatusOr<compare::GateOptions> gate = GateFlags();
  if (!gate.ok()) return base::Fail(gate.status());
  absl::StatusOr<std::optional<timer::ResultsFile>> baseline = ReadBaseline();
  if (!baseline.ok()) return base::Fail(baseline.status());
  absl::StatusOr<Suite> own_suite = LoadSuite("definitions", "full_suite");
  if (!own_suite.ok()) return base::Fail(own_suite.status());
  absl::StatusOr<EnvironmentSuite> environment = SuiteForEnvironmentFlags(
      absl::GetFlag(FLAGS_env), absl::GetFlag(FLAGS_libtorch), absl::GetFlag(FLAGS_root),
      *own_suite, "ci");
  if (!environment.ok()) return base::Fail(environment.status());
  absl::StatusOr<std::vector<expand::SuiteCaseProto>> cases = CasesToMeasure(*environment);
  if (!cases.ok()) return base::Fail(cases.status());
  absl::StatusOr<SuiteHistory> history = SuiteHistoryFor(*std::move(store), environment->suite.worker_path);
  if (!history.ok()) return base::Fail(history.status());
  absl::StatusOr<SuiteResults> results = Measure(*environment, *cases, destination);
  if (!results.ok()) return base::Fail(results.status());
  const int exit_code = ReportFailuresAndRecordHistory(*results, *history, destination);
  report::ReportInput report;
  report.title = "icount ci";
  report.current = results->file;
  report.current_name = destination;
  if (history->store.has_value()) report.history = &*history->store;
  if (!baseline->has_value()) {
    if (absl::Status s = WriteHtmlFlag(std::move(report)); !s.ok()) return base::Fail(s);
    return exit_code;
  }
  return GateOnBaseline(**baseline, *results, *gate, std::move(report), exit_code);
}

}  // namespace
}  // namespace icount::tools

int main(int argc, char** argv) { return icount::tools::Main(argc, argv); }
