// //tools:ab_test: the same suite in two environments, side by side.
//
//   bazel run //tools:ab_test -- --A="source /opt/torch-main/env.sh"
//       --B="export LD_LIBRARY_PATH=/opt/torch-branch/lib" [--filter=REGEX] [--no_cpp]
//       [--A_worker=PATH] [--B_worker=PATH] [--backtesting] [--display_time]
//       [--time_rounds=N] [--colorize] [--markdown] [--json=out.json [--resume]]
//
// A side is an environment, as in upstream's A/B: its PyTorch is the torch
// that `import torch` loads there (or --A_libtorch=DIR, or Debian's when
// neither gives one), and icount's worker and C++ cases are built against
// that PyTorch's headers and libraries, once (tools/environment_suite.h).
// Each side's workers start through `/bin/bash -c '<command> && exec "$@"'`,
// so a side can also swap libraries (LD_LIBRARY_PATH) or preload one, or
// use a worker built elsewhere (--A_worker). In order:
//   0. each side's PyTorch is found and said, and built for when it is not
//      Debian's;
//   1. each side's worker reports the LibTorch it runs on
//      (worker/libtorch_version_line.h); with --backtesting, cases that declare a
//      newer min_libtorch_version than either side has are skipped (and
//      listed), so an old release can be compared with today's;
//   2. instruction counts: A and B at once, half the CPUs each (counts do
//      not depend on what runs beside them), each side's first case a
//      canary (the suite's first Python case): when it fails, the side's
//      environment is broken and both sides stop, with its output; with
//      --no_counts or on Slurm, the canaries run on their own first (all at
//      once, up to one per CPU);
//   3. with --display_time, wall time in paired rounds: every round times
//      every case on A, then on B (B first in every other round), each on
//      the whole machine with the runner's pinning, in blocks of the size A's
//      first round picked for the case; per case, each round's
//      B / A gives the change and its confidence interval, and a change is
//      significant after a Benjamini-Hochberg correction over all cases
//      (compare/time_comparison.h).
// The output is a delta table of instructions per run (and wall time), then,
// for the largest count changes, the functions that account for them.
// Finished results are journaled (next to --json, so --resume continues an
// interrupted run) and the journals are removed once the results are out.
//
// Many environments (backtesting nightly builds): --sides=FILE, one shell
// command per line (tools/sides.h), instead of --A and --B. Each side's
// counts are taken (up to one side per CPU at once, each side's canary
// first; with --executor=slurm, one job array per side, all at once), and
// a table shows each case's count per side and the side at which it first
// changed; --json writes {"sides": [...], "cases": [...]}.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/files.h"
#include "base/flags.h"
#include "base/proto_json.h"
#include "base/status.h"
#include "base/text.h"
#include "cli/tool_flags.h"
#include "compare/comparison_file.pb.h"
#include "compare/delta_table.h"
#include "compare/node_check.h"
#include "compare/suite_summary.h"
#include "compare/time_comparison.h"
#include "environment/pytorch_install.h"
#include "timer/callgrind_command.h"
#include "timer/function_counts.h"
#include "timer/measurement_io.h"
#include "tools/ab_sides.h"
#include "tools/ab_test_parts.h"
#include "tools/environment_suite.h"
#include "tools/executor.h"
#include "tools/history_recording.h"
#include "tools/html_report.h"
#include "tools/sides.h"
#include "tools/suite.h"
#include "worker/runner.h"

ABSL_FLAG(std::string, A, "",
          "Shell command that sets up environment A (required unless --sides).");
ABSL_FLAG(std::string, B, "",
          "Shell command that sets up environment B (required unless --sides).");
ABSL_FLAG(std::string, A_libtorch, "",
          "LibTorch directory (include/, lib/, share/cmake/Torch) to measure for A instead of "
          "A's `import torch`; C++ cases only.");
ABSL_FLAG(std::string, B_libtorch, "", "As --A_libtorch, for B.");
ABSL_FLAG(std::string, A_root, "",
          "Root filesystem A runs in: a Debian suite (trixie, sid: made on first use and "
          "cached) or a directory; A's worker is built and run there with the root's own "
          "toolchain, and --A runs there too.");
ABSL_FLAG(std::string, B_root, "", "As --A_root, for B.");
ABSL_FLAG(std::string, A_worker, "",
          "Prebuilt worker binary for A, used as it is instead of the suite's worker built for "
          "A's PyTorch.");
ABSL_FLAG(std::string, B_worker, "", "As --A_worker, for B.");
ABSL_FLAG(bool, no_python, false, "Runs C++ cases only.");
ABSL_FLAG(std::string, filter, "",
          "Runs only cases whose label contains a match for this RE2 regex.");
ABSL_FLAG(bool, backtesting, false,
          "Skips cases that declare a newer min_libtorch_version than A or B has.");
ABSL_FLAG(bool, no_cpp, false,
          "Runs Python cases only (e.g. when B's LibTorch has no C++ ABI match).");
ABSL_FLAG(bool, display_time, false, "Also measures and shows wall time.");
ABSL_FLAG(bool, no_counts, false, "Measures wall time only (implies --display_time).");
ABSL_FLAG(double, min_run_time, 0.05,
          "With --display_time: seconds of wall time per case and side; more means less noise.");
ABSL_FLAG(int, time_rounds, 6,
          "With --display_time: paired rounds, each timing every case on A and on B; fewer than "
          "3 give no verdict.");
ABSL_FLAG(bool, rehearse_torchscript, false, icount::tools::kRehearseTorchScriptHelp);
ABSL_FLAG(bool, cache_sim, false, icount::tools::kCacheSimHelp);
ABSL_FLAG(bool, colorize, false, "Colours the table with ANSI escapes.");
ABSL_FLAG(bool, markdown, false, "Prints the table as Markdown (for pull requests).");
ABSL_FLAG(int, top, 3,
          "Number of cases, largest count change first, whose per-function deltas are shown.");
ABSL_FLAG(std::string, json, "",
          "Writes both sides' results here ({\"A\": ..., \"B\": ...}), journaling beside it for "
          "--resume; never overwrites a file ab_test did not write.");
ABSL_FLAG(std::string, sides, "",
          "Instead of --A/--B: a file of environment commands, one per line (\"[NAME] command\"); "
          "shows where each case's count first changes (counts only).");
ABSL_FLAG(bool, resume, false, "Continues an interrupted run; give the same flags and --json.");

namespace icount::tools {

std::vector<std::string> CountWarnings(const timer::ResultsFile& before,
                                       const timer::ResultsFile& after,
                                       absl::string_view before_name,
                                       absl::string_view after_name) {
  std::vector<std::string> warnings =
      compare::CountNodeWarnings(before, after, before_name, after_name);
  if (std::optional<std::string> toolchain =
          compare::ToolchainWarning(before, after, before_name, after_name)) {
    warnings.push_back(*std::move(toolchain));
  }
  return warnings;
}

absl::StatusOr<std::vector<expand::SuiteCaseProto>> SelectedCases(const Suite& suite, bool python) {
  CaseFilter filter;
  filter.label_regex = absl::GetFlag(FLAGS_filter);
  filter.cpp = !absl::GetFlag(FLAGS_no_cpp);
  filter.python = python;
  return SelectCases(suite, filter);
}

compare::AbTestLibTorchProto LibTorchProto(const Side& side) {
  compare::AbTestLibTorchProto proto;
  proto.set_version(side.libtorch.version);
  proto.set_source(side.libtorch.source);
  proto.set_install(environment::Describe(side.environment.install));
  if (!side.environment.fingerprint.empty()) proto.set_fingerprint(side.environment.fingerprint);
  const environment::PyTorchInstall& install = side.environment.install;
  proto.set_toolchain(ToolchainSetting(side.environment.install));
  if (!side.environment.valgrind_version.empty()) {
    proto.set_valgrind(side.environment.valgrind_version);
  } else if (absl::StatusOr<std::string> valgrind = timer::ValgrindVersionOnce(); valgrind.ok()) {
    proto.set_valgrind(*valgrind);
  }
  if (!install.filesystem_root.empty()) {
    proto.set_root(absl::StrCat(install.filesystem_root_name, " (", install.filesystem_root, ")"));
  }
  return proto;
}

namespace {

// What ab_test writes to --json (AbTestFile, or SidesJson), by how it
// begins (with or without a space after the colon, as older versions wrote).
bool IsComparisonJson(absl::string_view text) {
  return absl::StartsWith(text, "{\"A\":") || absl::StartsWith(text, "{\"sides\":");
}

// The flags of side A and B that are given ("--A", "--B_root"), in the
// order --help lists them.
std::vector<std::string> GivenSideFlags() {
  const std::pair<const char*, const absl::Flag<std::string>*> flags[] = {
      {"A", &FLAGS_A},
      {"A_libtorch", &FLAGS_A_libtorch},
      {"A_root", &FLAGS_A_root},
      {"A_worker", &FLAGS_A_worker},
      {"B", &FLAGS_B},
      {"B_libtorch", &FLAGS_B_libtorch},
      {"B_root", &FLAGS_B_root},
      {"B_worker", &FLAGS_B_worker},
  };
  std::vector<std::string> given;
  for (const auto& [name, flag] : flags) {
    if (!absl::GetFlag(*flag).empty()) given.push_back(absl::StrCat("--", name));
  }
  return given;
}

// A prebuilt worker runs on this machine as it is: no root or LibTorch
// directory of the side would be used.
absl::Status CheckWorkerAlone(const std::string& side, const std::string& worker,
                              const std::string& libtorch, const std::string& root) {
  if (worker.empty() || (libtorch.empty() && root.empty())) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "--", side, "_worker runs a prebuilt worker on this machine as it is, so --", side,
      root.empty() ? "_libtorch" : "_root", " would be left unused: give one or the other"));
}

// --sides against --A and --B: one or the other, and what --sides cannot do.
absl::Status CheckSideFlags(bool sides) {
  if (sides) {
    if (const std::vector<std::string> given = GivenSideFlags(); !given.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--sides replaces --A and --B and their _libtorch, _root and _worker flags (given: ",
          absl::StrJoin(given, ", "), "): give one or the other"));
    }
    if (absl::GetFlag(FLAGS_display_time) || absl::GetFlag(FLAGS_no_counts)) {
      return absl::InvalidArgumentError(
          "--sides compares instruction counts only: for wall time, compare two of its "
          "environments with --A, --B and --display_time");
    }
    if (!absl::GetFlag(FLAGS_html).empty()) {
      return absl::InvalidArgumentError(
          "--html draws two sides: with --sides, write --json and draw any two of its sides' "
          "results with //tools:report --input=... --baseline=...");
    }
  } else if ((absl::GetFlag(FLAGS_A).empty() && absl::GetFlag(FLAGS_A_root).empty()) ||
             (absl::GetFlag(FLAGS_B).empty() && absl::GetFlag(FLAGS_B_root).empty())) {
    return absl::InvalidArgumentError(
        "--A and --B are required (shell commands setting up each environment; a side in a "
        "root, --A_root or --B_root, may leave its command out), or --sides=FILE");
  }
  const bool no_counts = absl::GetFlag(FLAGS_no_counts);
  ICOUNT_RETURN_IF_ERROR(base::RefuseUnusedFlags(
      {"min_run_time", "time_rounds"}, !absl::GetFlag(FLAGS_display_time) && !no_counts,
      "applies to wall time, which ab_test measures with --display_time (or --no_counts): add "
      "--display_time, or drop it"));
  ICOUNT_RETURN_IF_ERROR(base::RefuseUnusedFlags(
      {"cache_sim", "rehearse_torchscript", "top"}, no_counts, cli::kShapesCountsBesideNoCounts));
  ICOUNT_RETURN_IF_ERROR(CheckWorkerAlone("A", absl::GetFlag(FLAGS_A_worker),
                                          absl::GetFlag(FLAGS_A_libtorch),
                                          absl::GetFlag(FLAGS_A_root)));
  ICOUNT_RETURN_IF_ERROR(CheckWorkerAlone("B", absl::GetFlag(FLAGS_B_worker),
                                          absl::GetFlag(FLAGS_B_libtorch),
                                          absl::GetFlag(FLAGS_B_root)));
  ICOUNT_RETURN_IF_ERROR(CheckRootWithoutLibTorch(
      absl::GetFlag(FLAGS_A_libtorch), "A_libtorch", absl::GetFlag(FLAGS_A_root), "A_root"));
  return CheckRootWithoutLibTorch(absl::GetFlag(FLAGS_B_libtorch), "B_libtorch",
                                  absl::GetFlag(FLAGS_B_root), "B_root");
}

// The journals a run with --json=`json` keeps: each of --sides' counts, or
// A's and B's counts and wall-time rounds.
absl::StatusOr<std::vector<std::string>> RunJournals(const std::string& json, bool sides) {
  std::vector<std::string> journals;
  if (sides) {
    ICOUNT_ASSIGN_OR_RETURN(const std::vector<SideSpec> specs, ReadSidesFlag());
    for (size_t k = 0; k < specs.size(); ++k) {
      journals.push_back(JournalPath(json, SideTag(k), "counts"));
    }
  }
  for (const char* side : {"A", "B"}) {
    if (sides) break;
    journals.push_back(JournalPath(json, side, "counts"));
    for (int round = 0; round < absl::GetFlag(FLAGS_time_rounds); ++round) {
      journals.push_back(JournalPath(json, side, TimeRoundPart(round)));
    }
  }
  return journals;
}

// With --resume, one of `journals` must be there to continue; without it,
// none may be.
absl::Status CheckJournals(const std::string& json, bool sides,
                           const std::vector<std::string>& journals) {
  if (absl::GetFlag(FLAGS_resume)) {
    for (const std::string& journal : journals) {
      if (RunStateExists(journal)) return absl::OkStatus();
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "--resume: there is no journal ", json, sides ? ".S*.counts.journal" : ".{A,B}.*.journal",
        " to continue (an "
        "interrupted run with --json=",
        json, " leaves them); run without --resume to start a new run"));
  }
  for (const std::string& journal : journals) ICOUNT_RETURN_IF_ERROR(CheckNoOldRunState(journal));
  return absl::OkStatus();
}

// The flags that can be checked before anything runs, and journals left by
// an interrupted run (said now, not after the canaries).
absl::Status CheckFlags(const std::vector<char*>& positional) {
  ICOUNT_RETURN_IF_ERROR(base::CheckNoPositionalArguments(positional));
  ICOUNT_RETURN_IF_ERROR(CheckHtmlFlag(
      {{"json", absl::GetFlag(FLAGS_json)}, {"history", absl::GetFlag(FLAGS_history)}}));
  ICOUNT_RETURN_IF_ERROR(CheckExecutorFlags());
  const bool sides = !absl::GetFlag(FLAGS_sides).empty();
  ICOUNT_RETURN_IF_ERROR(CheckSideFlags(sides));
  ICOUNT_RETURN_IF_ERROR(
      base::CheckFlagPositive("min_run_time", absl::GetFlag(FLAGS_min_run_time)));
  ICOUNT_RETURN_IF_ERROR(
      base::CheckFlagAtLeast("time_rounds", absl::GetFlag(FLAGS_time_rounds), 1));
  ICOUNT_RETURN_IF_ERROR(base::CheckFlagAtLeast("top", absl::GetFlag(FLAGS_top), 0));
  ICOUNT_RETURN_IF_ERROR(base::RefuseUnusedFlags(
      {"colorize"}, absl::GetFlag(FLAGS_markdown),
      "colours the text table, which --markdown replaces: drop one of them"));
  if (absl::GetFlag(FLAGS_resume) && absl::GetFlag(FLAGS_json).empty()) {
    return absl::InvalidArgumentError("--resume needs the --json of the run to continue");
  }
  const std::string json = absl::GetFlag(FLAGS_json);
  if (json.empty()) return absl::OkStatus();
  ICOUNT_RETURN_IF_ERROR(base::CheckOutputPath("json", json));
  ICOUNT_RETURN_IF_ERROR(timer::CheckResultsDestination(json, &IsComparisonJson),
                         base::WithContext(_, "--json"));
  ICOUNT_ASSIGN_OR_RETURN(const std::vector<std::string> journals, RunJournals(json, sides));
  return CheckJournals(json, sides, journals);
}


// The sides as the flags describe them, each with its PyTorch and suite.
absl::Status MakeSides(const Suite& own_suite, Side& a, Side& b) {
  // A side in a root runs in the root as it is, unless a command says more.
  a.name = "A";
  a.command = absl::GetFlag(FLAGS_A).empty() ? "true" : absl::GetFlag(FLAGS_A);
  b.name = "B";
  b.command = absl::GetFlag(FLAGS_B).empty() ? "true" : absl::GetFlag(FLAGS_B);
  const SideSource a_source = {absl::GetFlag(FLAGS_A_libtorch), "A_libtorch",
                               absl::GetFlag(FLAGS_A_root), "A_root",
                               absl::GetFlag(FLAGS_A_worker)};
  const SideSource b_source = {absl::GetFlag(FLAGS_B_libtorch), "B_libtorch",
                               absl::GetFlag(FLAGS_B_root), "B_root",
                               absl::GetFlag(FLAGS_B_worker)};
  ICOUNT_RETURN_IF_ERROR(CheckSide(a_source, a, absl::GetFlag(FLAGS_no_cpp)));
  ICOUNT_RETURN_IF_ERROR(CheckSide(b_source, b, absl::GetFlag(FLAGS_no_cpp)));
  ICOUNT_RETURN_IF_ERROR(SetUpSide(own_suite, a_source, a));
  return SetUpSide(own_suite, b_source, b);
}


// What an A/B run measures: its cases (and those --backtesting left out),
// how, and the canary to count first with the rest (none when it ran
// apart before).
struct AbPlan {
  std::vector<expand::SuiteCaseProto> cases;
  std::vector<expand::SuiteCaseProto> skipped;
  std::optional<expand::SuiteCaseProto> canary;
  MeasureOptions measure;
};

// A and B set up and asked for their LibTorch, the cases chosen, and the
// canary checked apart where it is not counted with the rest.
absl::Status PlanAb(const Suite& suite, Side& a, Side& b, AbPlan& plan) {
  ICOUNT_RETURN_IF_ERROR(MakeSides(suite, a, b));
  ICOUNT_ASSIGN_OR_RETURN(const bool python, PythonCases({&a, &b}, absl::GetFlag(FLAGS_no_python),
                                                         absl::GetFlag(FLAGS_no_cpp)));
  ICOUNT_ASSIGN_OR_RETURN(const std::vector<expand::SuiteCaseProto> selected,
                          SelectedCases(suite, python));
  for (Side* side : {&a, &b}) {
    ICOUNT_RETURN_IF_ERROR(ProbeLibTorch(*side));
    std::fprintf(stderr, "ab_test: %s runs LibTorch %s (from %s)\n", side->name.c_str(),
                 side->libtorch.version.c_str(), side->libtorch.source.c_str());
  }
  ICOUNT_ASSIGN_OR_RETURN(
      plan.cases, CasesToRun(selected, {&a, &b}, absl::GetFlag(FLAGS_backtesting), plan.skipped));
  ICOUNT_ASSIGN_OR_RETURN(const expand::SuiteCaseProto canary,
                          ChooseCanary(suite, python, {&a, &b}));
  plan.measure.wall_time = absl::GetFlag(FLAGS_display_time) || absl::GetFlag(FLAGS_no_counts);
  plan.measure.instruction_counts = !absl::GetFlag(FLAGS_no_counts);
  plan.measure.min_run_time = absl::GetFlag(FLAGS_min_run_time);
  plan.measure.rehearse_torchscript = absl::GetFlag(FLAGS_rehearse_torchscript);
  // Counted here, the canary runs first in the workers that count the
  // rest; otherwise on its own before anything long.
  if (!absl::GetFlag(FLAGS_no_counts) && !SlurmExecutorChosen()) {
    plan.canary = canary;
    return absl::OkStatus();
  }
  return CheckCanaries({&a, &b}, canary, !absl::GetFlag(FLAGS_no_counts),
                       absl::GetFlag(FLAGS_cache_sim));
}

// Both sides' results, their LibTorch's settings and the run's times with
// them.
std::pair<SuiteResults, SuiteResults> AbResults(const AbPlan& plan, const Side& a, const Side& b,
                                                SideRun& a_run, SideRun& b_run,
                                                const std::string& start) {
  SuiteResults a_results = CollectResults(plan.cases, a_run.orders, a_run.results, &a_run.rounds);
  SuiteResults b_results = CollectResults(plan.cases, b_run.orders, b_run.results, &b_run.rounds);
  AddLibTorchSettings(a.environment, a_results.file.settings);
  AddLibTorchSettings(b.environment, b_results.file.settings);
  const std::string end = NowRfc3339();
  for (SuiteResults* side : {&a_results, &b_results}) {
    side->file.start_time = start;
    side->file.end_time = end;
  }
  return {std::move(a_results), std::move(b_results)};
}

// Records both sides in --history and writes --html; 1 when either failed.
int RecordAbAndWriteHtml(const Side& a, const Side& b, const SuiteResults& a_results,
                         const SuiteResults& b_results,
                         const std::map<std::string, compare::TimeComparison>& times,
                         std::optional<history::Store>& history) {
  int exit_code = 0;
  if (history.has_value()) {
    // An array, not a braced list: gcc 16 takes a binding into a braced
    // list's pairs for a dangling reference (-Wdangling-reference).
    const std::pair<const Side*, const SuiteResults*> sides[] = {{&a, &a_results},
                                                                 {&b, &b_results}};
    for (const auto& [side, results] : sides) {
      if (absl::Status s =
              RecordHistory(*history, results->file, absl::StrCat("ab_test ", side->name),
                            side->name, &side->libtorch, absl::GetFlag(FLAGS_json));
          !s.ok()) {
        std::fprintf(stderr, "ab_test: %s\n", std::string(s.message()).c_str());
        exit_code = 1;
      }
    }
  }
  report::ReportInput report;
  report.title = absl::StrCat("icount A/B: B (", b.command, ") against A (", a.command, ")");
  report.baseline = a_results.file;
  report.baseline_name = "A";
  report.current = b_results.file;
  report.current_name = "B";
  report.time_comparisons = times;
  if (history.has_value()) report.history = &*history;
  if (absl::Status s = WriteHtmlFlag(std::move(report)); !s.ok()) {
    std::fprintf(stderr, "ab_test: %s\n", std::string(s.message()).c_str());
    exit_code = 1;
  }
  return exit_code;
}

// The comparison of A and B: the table, --json, --history and --html, and
// each failed case named; 1 when a case failed or an output could not be
// written.
int ReportAb(const AbPlan& plan, const Side& a, const Side& b, SideRun& a_run, SideRun& b_run,
             const std::string& start, const std::string& journal_base,
             std::optional<history::Store>& history) {
  auto [a_results, b_results] = AbResults(plan, a, b, a_run, b_run, start);
  const std::map<std::string, compare::TimeComparison> times =
      CompareTimes(plan.cases, a_run, b_run);
  // With --executor=slurm the sides' counts may come from different nodes.
  const std::vector<std::string> node_warnings =
      CountWarnings(a_results.file, b_results.file, "A", "B");
  for (const std::string& warning : node_warnings) {
    std::fprintf(stderr, "ab_test: warning: %s\n", warning.c_str());
  }
  std::printf("%s",
              RenderComparison(plan.cases, a, b, a_results, b_results, times, plan.measure).c_str());
  const std::string json_path = absl::GetFlag(FLAGS_json);
  if (!json_path.empty()) {
    if (absl::Status s = base::WriteFileAtomically(
            json_path, base::ProtoToJsonAllFields(AbTestFile(plan.cases, a, b, a_results, b_results,
                                                             times, plan.skipped, node_warnings)) +
                           "\n");
        !s.ok()) {
      return base::Fail(absl::StrCat(s.message(), " (the journals ", journal_base,
                                     ".{A,B}.*.journal keep every result)"));
    }
  }
  int exit_code = a_results.file.failures.empty() && b_results.file.failures.empty() ? 0 : 1;
  exit_code |= RecordAbAndWriteHtml(a, b, a_results, b_results, times, history);
  for (const auto* side : {&a_results, &b_results}) {
    for (const auto& [key, reason] : side->file.failures) {
      std::fprintf(stderr, "ab_test: %s failed in %s: %s\n", key.c_str(),
                   side == &a_results ? "A" : "B", reason.c_str());
    }
  }
  RemoveJournals({&a_run, &b_run}, json_path, journal_base);
  return exit_code;
}

int Main(int argc, char** argv) {
  const std::vector<char*> positional = cli::ParseToolFlags(
      argc, argv,
      "Compares the suite's instruction counts in two environments (or many).\n\nUsage: "
      "bazel run //tools:ab_test -- --A=\"<shell command>\" --B=\"<shell "
      "command>\"\n       bazel run //tools:ab_test -- --sides=FILE");
  if (absl::Status flags = CheckFlags(positional); !flags.ok()) return base::Fail(flags);
  absl::StatusOr<std::optional<history::Store>> history = OpenHistoryFlags();
  if (!history.ok()) return base::Fail(history.status());
  absl::StatusOr<Suite> suite = LoadSuite("definitions", "full_suite");
  if (!suite.ok()) return base::Fail(suite.status());
  // A --filter or --no_cpp that leaves nothing is an error before any side
  // is looked at (or built for).
  if (absl::Status s = SelectedCases(*suite, !absl::GetFlag(FLAGS_no_python)).status(); !s.ok()) {
    return base::Fail(s);
  }
  if (!absl::GetFlag(FLAGS_sides).empty()) return RunSides(*suite, *std::move(history));
  Side a, b;
  AbPlan plan;
  if (absl::Status status = PlanAb(*suite, a, b, plan); !status.ok()) return base::Fail(status);
  const std::string json_path = absl::GetFlag(FLAGS_json);
  absl::StatusOr<std::string> journal_base = JournalBase(json_path);
  if (!journal_base.ok()) return base::Fail(journal_base.status());
  SideRun a_run, b_run;
  const std::string start = NowRfc3339();
  BothSidesOptions run_options;
  run_options.journal_base = *journal_base;
  run_options.resume = absl::GetFlag(FLAGS_resume);
  run_options.time_rounds = absl::GetFlag(FLAGS_time_rounds);
  run_options.cache_sim = absl::GetFlag(FLAGS_cache_sim);
  run_options.canary = plan.canary;
  if (absl::Status status = RunBothSides(a, b, plan.cases, plan.measure, run_options, a_run, b_run);
      !status.ok()) {
    ReportStoppedRun(status, json_path, {&a_run, &b_run});
    return 1;
  }
  return ReportAb(plan, a, b, a_run, b_run, start, *journal_base, *history);
}

}  // namespace
}  // namespace icount::tools

int main(int argc, char** argv) { return icount::tools::Main(argc, argv); }
