// //tools:main: runs the standard suite (definitions:full_suite) and prints
// tables of instructions per run and of wall time.
//
//   bazel run //tools:main                           # default run
//   bazel run //tools:main -- --list [--json]        # what would run
//   bazel run //tools:main -- --filter='^Pointwise' --output=out.json
//
// Defaults keep a full run to a few minutes on 2 cores: 1 callgrind repeat
// of 100 runs and 0.05 s of wall time per case (docs/figures.md has figures).
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/files.h"
#include "base/flags.h"
#include "base/status.h"
#include "base/text.h"
#include "cli/tool_flags.h"
#include "compare/compare.h"
#include "environment/pytorch_install.h"
#include "expand/case_modes.h"
#include "tools/environment_suite.h"
#include "tools/executor.h"
#include "tools/history_recording.h"
#include "tools/html_report.h"
#include "tools/suite.h"
#include "worker/runner.h"

ABSL_FLAG(bool, list, false,
          "Prints the suite's cases, one per line, and exits without measuring.");
ABSL_FLAG(bool, json, false,
          "With --list: prints each case as a JSON object (label, runtime, autograd, language, "
          "num_threads).");
ABSL_FLAG(std::string, filter, "",
          "Runs only cases whose label (e.g. \"Pointwise / Math / add\") contains a match for this "
          "RE2 regex.");
ABSL_FLAG(
    int, jobs, 0,
    "Worker processes per phase; 0: up to one per CPU (a count worker per ~15 s of counting).");
ABSL_FLAG(double, min_run_time, 0.05, "Seconds of wall time per case.");
ABSL_FLAG(int64_t, callgrind_number, 100, "Runs of the statement per callgrind repeat.");
ABSL_FLAG(int, repeats, 1, "Callgrind repeats per case.");
ABSL_FLAG(bool, baseline_per_case, false,
          "Measures the baseline (the empty statement) in each case's own process instead of "
          "once per worker; slower.");
ABSL_FLAG(bool, template_per_case, false,
          "Measures in a template forked from each case process, and Python cases without the "
          "zygote's kept translations; same counts, slower.");
ABSL_FLAG(bool, rehearse_torchscript, false, icount::tools::kRehearseTorchScriptHelp);
ABSL_FLAG(bool, cache_sim, false, icount::tools::kCacheSimHelp);
ABSL_FLAG(bool, no_cpp, false, "Skips C++ cases.");
ABSL_FLAG(bool, no_python, false, "Skips Python cases.");
ABSL_FLAG(bool, no_wall_time, false, "Measures instruction counts only, no wall time.");
ABSL_FLAG(bool, no_counts, false, "Measures wall time only, no instruction counts.");
ABSL_FLAG(std::string, output, "",
          "Writes the results (JSON) here when the run ends; refuses to overwrite a file that is "
          "not an icount results file.");
ABSL_FLAG(bool, resume, false,
          "Continues an interrupted run from its journal; give the same --output.");
ABSL_FLAG(double, timeout, 300, "Seconds a case may run before it is killed and reported.");
ABSL_FLAG(std::string, env, "", icount::tools::kEnvHelp);
ABSL_FLAG(std::string, libtorch, "", icount::tools::kLibTorchHelp);
ABSL_FLAG(std::string, root, "", icount::tools::kRootHelp);

namespace icount::tools {
namespace {

// {"label": ["Pointwise", "Math", "add"], "runtime": "Eager", "autograd":
// "Forward", "language": "Python", "num_threads": 1}: the case key of
// upstream's CI, flat. Explicit modes are "" as upstream writes them. A
// case that declares a minimum LibTorch adds "min_libtorch_version": "1.9".
// (The manifest's ci_key keeps upstream's exact str(WorkOrder) form, with
// the modes nested under "autolabels".)
std::string ListJson(const expand::SuiteCaseProto& c) {
  auto quote = &base::JsonString;
  std::vector<std::string> parts;
  for (const std::string& part : c.label()) parts.push_back(quote(part));
  return absl::StrCat(
      "{\"label\": [", absl::StrJoin(parts, ", "),
      "], \"runtime\": ", quote(expand::RuntimeText(c.runtime())),
      ", \"autograd\": ", quote(expand::AutogradText(c.autograd())),
      ", \"language\": ", quote(c.task_spec().language() == timer::CPP ? "C++" : "Python"),
      ", \"num_threads\": ", c.task_spec().num_threads(),
      c.min_libtorch_version().empty()
          ? ""
          : absl::StrCat(", \"min_libtorch_version\": ", quote(c.min_libtorch_version())),
      "}");
}

MeasureOptions MeasureFlags() {
  MeasureOptions measure;
  measure.wall_time = !absl::GetFlag(FLAGS_no_wall_time);
  measure.instruction_counts = !absl::GetFlag(FLAGS_no_counts);
  measure.min_run_time = absl::GetFlag(FLAGS_min_run_time);
  measure.callgrind_number = absl::GetFlag(FLAGS_callgrind_number);
  measure.callgrind_repeats = absl::GetFlag(FLAGS_repeats);
  measure.baseline_per_case = absl::GetFlag(FLAGS_baseline_per_case);
  measure.template_per_case = absl::GetFlag(FLAGS_template_per_case);
  measure.rehearse_torchscript = absl::GetFlag(FLAGS_rehearse_torchscript);
  return measure;
}

// --list chooses cases and prints them; every flag of a run is refused
// beside it, and --json needs it.
absl::Status CheckListFlags() {
  const bool list = absl::GetFlag(FLAGS_list);
  ICOUNT_RETURN_IF_ERROR(base::RefuseUnusedFlags(
      {"json"}, !list, "prints --list's lines as JSON: give --list too, or drop --json"));
  return base::RefuseUnusedFlags(
      {"output", "resume", "html", "history", "history_label", "jobs", "timeout", "min_run_time",
       "callgrind_number", "repeats", "baseline_per_case", "template_per_case",
       "rehearse_torchscript", "cache_sim", "no_wall_time", "no_counts", "env", "libtorch",
       "root", "executor", "shared_dir", "shards", "slurm_partition", "slurm_constraint",
       "slurm_submissions"},
      list,
      "shapes a run, and --list runs nothing (it lists the same cases in every environment): "
      "drop one of them");
}

// The flags that can be checked before the suite loads: numbers in range, and an --output that may
// be written (and, with --resume, continued).
absl::Status CheckFlags(const std::vector<char*>& positional) {
  ICOUNT_RETURN_IF_ERROR(base::CheckNoPositionalArguments(positional));
  ICOUNT_RETURN_IF_ERROR(CheckListFlags());
  ICOUNT_RETURN_IF_ERROR(CheckHtmlFlag(
      {{"output", absl::GetFlag(FLAGS_output)}, {"history", absl::GetFlag(FLAGS_history)}}));
  ICOUNT_RETURN_IF_ERROR(CheckExecutorFlags());
  ICOUNT_RETURN_IF_ERROR(
      CheckCppLeftOut(EnvironmentFlagsSpec(absl::GetFlag(FLAGS_env), absl::GetFlag(FLAGS_libtorch)),
                      absl::GetFlag(FLAGS_no_cpp)));
  if (absl::GetFlag(FLAGS_no_counts) && absl::GetFlag(FLAGS_no_wall_time)) {
    return absl::InvalidArgumentError(
        "--no_counts and --no_wall_time together leave nothing to measure: drop one of them");
  }
  ICOUNT_RETURN_IF_ERROR(base::RefuseUnusedFlags(
      {"callgrind_number", "repeats", "cache_sim", "baseline_per_case", "template_per_case",
       "rehearse_torchscript"},
      absl::GetFlag(FLAGS_no_counts), cli::kShapesCountsBesideNoCounts));
  ICOUNT_RETURN_IF_ERROR(base::RefuseUnusedFlags(
      {"min_run_time"}, absl::GetFlag(FLAGS_no_wall_time),
      "shapes the wall time, which --no_wall_time leaves out: drop one of them"));
  ICOUNT_RETURN_IF_ERROR(CheckMeasureOptions(MeasureFlags()));
  ICOUNT_RETURN_IF_ERROR(base::CheckFlagAtLeast("jobs", absl::GetFlag(FLAGS_jobs), 0));
  ICOUNT_RETURN_IF_ERROR(base::CheckFlagPositive("timeout", absl::GetFlag(FLAGS_timeout)));
  const std::string output = absl::GetFlag(FLAGS_output);
  if (absl::GetFlag(FLAGS_resume) && output.empty()) {
    return absl::InvalidArgumentError("--resume needs the --output of the run to continue");
  }
  if (output.empty()) return absl::OkStatus();
  // The results, their journal and lock all go beside --output.
  ICOUNT_RETURN_IF_ERROR(base::CheckOutputPath("output", output));
  ICOUNT_RETURN_IF_ERROR(timer::CheckResultsDestination(output),
                         base::WithContext(_, "--output"));
  const std::string journal = output + ".journal";
  if (!absl::GetFlag(FLAGS_resume)) {
    // Another run writing it, or one's left: said now, not after the build.
    return CheckNoOldRunState(journal);
  }
  if (!RunStateExists(journal)) {
    return absl::FailedPreconditionError(
        absl::StrCat("--resume: there is no journal ", journal,
                     " to continue (an interrupted run with --output=", output,
                     " leaves one, or on Slurm its note ", journal,
                     ".slurm); run without --resume to start a new run"));
  }
  return absl::OkStatus();
}

worker::RunnerOptions RunnerFlags(const EnvironmentSuite& environment) {
  const std::string output = absl::GetFlag(FLAGS_output);
  worker::RunnerOptions options = EnvironmentRunnerOptions(environment, absl::GetFlag(FLAGS_env));
  options.jobs = absl::GetFlag(FLAGS_jobs);
  options.timeout_seconds = absl::GetFlag(FLAGS_timeout);
  options.resume = absl::GetFlag(FLAGS_resume);
  // Without --output the journal only guards this run: under $TMPDIR.
  options.journal_path = output.empty() ? absl::StrCat(base::TemporaryParentDirectory(),
                                                       "/icount-main-", getpid(), ".journal")
                                        : output + ".journal";
  if (output.empty()) options.how_to_continue = "pass --output=FILE to be able to --resume a run";
  return options;
}

// Runs the orders; on success the results file is written (with --output)
// and the journal removed.
absl::StatusOr<SuiteResults> Run(const std::vector<expand::SuiteCaseProto>& cases,
                                 const std::vector<worker::WorkOrderProto>& orders,
                                 const worker::RunnerOptions& options,
                                 const EnvironmentSuite& environment) {
  const std::string output = absl::GetFlag(FLAGS_output);
  const std::string state = RunStatePath(orders, options);
  std::fprintf(stderr, "icount: %s, %s; finished results kept in %s\n",
               base::CountOf(cases.size(), "case").c_str(),
               base::CountOf(orders.size(), "work order").c_str(), state.c_str());
  const std::string start = NowRfc3339();
  absl::StatusOr<worker::RunnerReport> report = RunWithProgress(orders, options, ExecuteOrders);
  if (!report.ok()) return report.status();
  if (report->resumed > 0) {
    std::fprintf(stderr, "icount: %d of %zu results resumed from %s%s\n", report->resumed,
                 orders.size(), state.c_str(),
                 report->dropped_cut_off_line
                     ? " (its last line was cut off mid-write and was dropped: that case ran again)"
                     : "");
  }
  SuiteResults results = CollectResults(cases, orders, report->results);
  AddLibTorchSettings(environment, results.file.settings);
  results.file.start_time = start;
  results.file.end_time = NowRfc3339();
  if (!output.empty()) {
    ICOUNT_RETURN_IF_ERROR(
        timer::WriteResultsFile(output, results.file),
        absl::Status(_.code(), absl::StrCat(_.message(), " (", state, " keeps every result)")));
    std::fprintf(stderr, "icount: results written to %s\n", output.c_str());
  }
  RemoveRunState(orders, options);
  return results;
}

// The counts and allocations tables, Compare's wall-time tables, then the
// failures; returns
// the exit code.
int Report(const std::vector<expand::SuiteCaseProto>& cases, const MeasureOptions& measure,
           const SuiteResults& results) {
  if (measure.instruction_counts) {
    std::printf("%s\n", CountsTable(cases, results).c_str());
    for (const std::string& table :
         {AllocationsTable(cases, results), CyclesTable(cases, results)}) {
      if (!table.empty()) std::printf("%s\n", table.c_str());
    }
  }
  if (measure.wall_time && !results.file.measurements.empty()) {
    compare::Compare compare(results.file.measurements);
    compare.TrimSignificantFigures(timer::FiguresRule::kBlocks);
    compare.Print();
  }
  if (results.file.failures.empty()) return 0;
  std::printf("\n%zu case%s failed:\n", results.file.failures.size(),
              results.file.failures.size() > 1 ? "s" : "");
  for (const auto& [key, reason] : results.file.failures) {
    std::printf("  %s\n    %s\n", key.c_str(), reason.substr(0, 2000).c_str());
  }
  return 1;
}

int Main(int argc, char** argv) {
  const std::vector<char*> positional = cli::ParseToolFlags(
      argc, argv,
      "Runs icount's standard suite: instruction counts (callgrind) and wall time "
      "for every case.\n\nUsage: bazel run //tools:main -- [flags]",
      {"baseline_per_case", "template_per_case"});
  if (absl::Status flags = CheckFlags(positional); !flags.ok()) return base::Fail(flags);
  absl::StatusOr<std::optional<history::Store>> store = OpenHistoryFlags();
  if (!store.ok()) return base::Fail(store.status());
  absl::StatusOr<Suite> own_suite = LoadSuite("definitions", "full_suite");
  if (!own_suite.ok()) return base::Fail(own_suite.status());
  CaseFilter filter;
  filter.label_regex = absl::GetFlag(FLAGS_filter);
  filter.cpp = !absl::GetFlag(FLAGS_no_cpp);
  filter.python = !absl::GetFlag(FLAGS_no_python);
  // --list needs no environment: the cases are the same in every one.
  absl::StatusOr<EnvironmentSuite> environment =
      absl::GetFlag(FLAGS_list)
          ? SuiteForEnvironmentFlags("", "", "", *own_suite, "icount")
          : SuiteForEnvironmentFlags(absl::GetFlag(FLAGS_env), absl::GetFlag(FLAGS_libtorch),
                                     absl::GetFlag(FLAGS_root),
                                     *own_suite, "icount");
  if (!environment.ok()) return base::Fail(environment.status());
  const Suite* suite = &environment->suite;
  absl::StatusOr<std::vector<expand::SuiteCaseProto>> cases =
      SelectEnvironmentCases(*environment, filter, "icount");
  if (!cases.ok()) return base::Fail(cases.status());
  if (absl::GetFlag(FLAGS_list)) {
    for (const expand::SuiteCaseProto& c : *cases) {
      std::printf("%s\n", absl::GetFlag(FLAGS_json) ? ListJson(c).c_str() : c.list_line().c_str());
    }
    return 0;
  }
  absl::StatusOr<SuiteHistory> history = SuiteHistoryFor(*std::move(store), suite->worker_path);
  if (!history.ok()) return base::Fail(history.status());
  const MeasureOptions measure = MeasureFlags();
  worker::RunnerOptions runner = RunnerFlags(*environment);
  runner.cache_sim = absl::GetFlag(FLAGS_cache_sim);
  absl::StatusOr<SuiteResults> results =
      Run(*cases, MakeOrders(*suite, *cases, measure), runner, *environment);
  if (!results.ok()) return base::Fail(results.status());
  const int exit_code = Report(*cases, measure, *results);
  if (history->store.has_value()) {
    if (absl::Status s = RecordHistory(*history->store, results->file, "main", "",
                                       &history->libtorch, absl::GetFlag(FLAGS_output));
        !s.ok()) {
      return base::Fail(s);
    }
  }
  report::ReportInput report;
  report.title = "icount main";
  report.current = results->file;
  if (!absl::GetFlag(FLAGS_output).empty()) report.current_name = absl::GetFlag(FLAGS_output);
  if (history->store.has_value()) report.history = &*history->store;
  if (absl::Status s = WriteHtmlFlag(std::move(report)); !s.ok()) return base::Fail(s);
  return exit_code;
}

}  // namespace
}  // namespace icount::tools

int main(int argc, char** argv) { return icount::tools::Main(argc, argv); }
