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
namespace {

// What ab_test writes to --json (AbTestFile, or SidesJson), by how it
// begins (with or without a space after the colon, as older versions wrote).
bool IsComparisonJson(absl::string_view text) {
  return absl::StartsWith(text, "{\"A\":") || absl::StartsWith(text, "{\"sides\":");
}

// The sides of --sides, read and checked.
absl::StatusOr<std::vector<SideSpec>> ReadSidesFlag() {
  const std::string path = absl::GetFlag(FLAGS_sides);
  absl::StatusOr<std::string> text = base::ReadFileToString(path);
  if (!text.ok()) {
    return base::WithContext(text.status(), "--sides");
  }
  return ParseSidesFile(*text, path);
}

// The flags that can be checked before anything runs, and journals left by
// an interrupted run (said now, not after the canaries).
absl::Status CheckFlags(const std::vector<char*>& positional) {
  ICOUNT_RETURN_IF_ERROR(base::CheckNoPositionalArguments(positional));
  ICOUNT_RETURN_IF_ERROR(CheckHtmlFlag());
  ICOUNT_RETURN_IF_ERROR(CheckExecutorFlags());
  const bool sides = !absl::GetFlag(FLAGS_sides).empty();
  if (sides) {
    if (!absl::GetFlag(FLAGS_A).empty() || !absl::GetFlag(FLAGS_B).empty() ||
        !absl::GetFlag(FLAGS_A_worker).empty() || !absl::GetFlag(FLAGS_B_worker).empty()) {
      return absl::InvalidArgumentError(
          "--sides replaces --A and --B (and their workers): give one or the other");
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
  ICOUNT_RETURN_IF_ERROR(
      base::CheckFlagPositive("min_run_time", absl::GetFlag(FLAGS_min_run_time)));
  ICOUNT_RETURN_IF_ERROR(
      base::CheckFlagAtLeast("time_rounds", absl::GetFlag(FLAGS_time_rounds), 1));
  ICOUNT_RETURN_IF_ERROR(base::CheckFlagAtLeast("top", absl::GetFlag(FLAGS_top), 0));
  if (absl::GetFlag(FLAGS_resume) && absl::GetFlag(FLAGS_json).empty()) {
    return absl::InvalidArgumentError("--resume needs the --json of the run to continue");
  }
  const std::string json = absl::GetFlag(FLAGS_json);
  if (json.empty()) return absl::OkStatus();
  ICOUNT_RETURN_IF_ERROR(base::CheckOutputPath("json", json));
  ICOUNT_RETURN_IF_ERROR(timer::CheckResultsDestination(json, &IsComparisonJson),
                         base::WithContext(_, "--json"));
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
  if (absl::GetFlag(FLAGS_resume)) {
    for (const std::string& journal : journals) {
      if (access(journal.c_str(), F_OK) == 0) return absl::OkStatus();
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "--resume: there is no journal ", json, sides ? ".S*.counts.journal" : ".{A,B}.*.journal",
        " to continue (an "
        "interrupted run with --json=",
        json, " leaves them); run without --resume to start a new run"));
  }
  for (const std::string& journal : journals)
    ICOUNT_RETURN_IF_ERROR(worker::CheckNoOldJournal(journal));
  return absl::OkStatus();
}

// What makes two sides' counts differ besides their LibTorch (which differs
// on purpose): the nodes that counted them, and the toolchains that built
// and ran their workers.
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

// The sides as the flags describe them, each with its PyTorch and suite.
absl::Status MakeSides(const Suite& own_suite, Side& a, Side& b) {
  // A side in a root runs in the root as it is, unless a command says more.
  a.name = "A";
  a.command = absl::GetFlag(FLAGS_A).empty() ? "true" : absl::GetFlag(FLAGS_A);
  b.name = "B";
  b.command = absl::GetFlag(FLAGS_B).empty() ? "true" : absl::GetFlag(FLAGS_B);
  ICOUNT_RETURN_IF_ERROR(SetUpSide(own_suite,
                                   {absl::GetFlag(FLAGS_A_libtorch), "A_libtorch",
                                    absl::GetFlag(FLAGS_A_root), "A_root",
                                    absl::GetFlag(FLAGS_A_worker)},
                                   a));
  return SetUpSide(own_suite,
                   {absl::GetFlag(FLAGS_B_libtorch), "B_libtorch", absl::GetFlag(FLAGS_B_root),
                    "B_root", absl::GetFlag(FLAGS_B_worker)},
                   b);
}

// The cases --filter and --no_cpp select.
absl::StatusOr<std::vector<expand::SuiteCaseProto>> SelectedCases(const Suite& suite, bool python) {
  CaseFilter filter;
  filter.label_regex = absl::GetFlag(FLAGS_filter);
  filter.cpp = !absl::GetFlag(FLAGS_no_cpp);
  filter.python = python;
  return SelectCases(suite, filter);
}

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
    return absl::StrCat("Heap allocations per run: the same on both sides in all ", compared,
                        " cases.\n");
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

// "Overall, B against A:" and one FormatSuiteChange line per metric.
std::string RenderSummary(const std::vector<compare::SuiteChange>& changes, bool markdown) {
  std::string text = "\nOverall, B against A (geometric mean of B / A over cases, 95% interval):\n";
  for (const compare::SuiteChange& change : changes) {
    absl::StrAppend(&text, markdown ? "- " : "  ", compare::FormatSuiteChange(change), "\n");
  }
  return text;
}

// The delta table, the allocation changes and the suite-level summary,
// then the per-function changes of the `--top` cases whose counts changed
// most.
std::string RenderComparison(const std::vector<expand::SuiteCaseProto>& cases, const Side& a,
                             const Side& b, const SuiteResults& a_results,
                             const SuiteResults& b_results,
                             const std::map<std::string, compare::TimeComparison>& times,
                             bool wall_time) {
  compare::DeltaTable table(absl::StrCat(wall_time ? "Instructions and wall time" : "Instructions",
                                         " per run: A (LibTorch ", a.libtorch.version,
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
                    absl::GetFlag(FLAGS_markdown)));
  std::sort(changes.rbegin(), changes.rend());
  for (int i = 0; i < absl::GetFlag(FLAGS_top) && i < static_cast<int>(changes.size()); ++i) {
    if (changes[i].first == 0) break;
    const timer::InstructionCounts& before = *in_a.counts.at(changes[i].second);
    const timer::InstructionCounts& after = *in_b.counts.at(changes[i].second);
    // Per-function change per run of the statement, B - A.
    // Both sides' exclusive counts: the subtraction cannot fail.
    timer::FunctionCounts delta =
        *after.exclusive.Standardized().Subtract(before.exclusive.Standardized()) *
        (1.0 / static_cast<double>(after.number_per_run));
    std::vector<timer::FunctionCount> rows = delta.rows();
    std::sort(rows.begin(), rows.end(),
              [](const timer::FunctionCount& x, const timer::FunctionCount& y) {
                return std::llabs(x.count) > std::llabs(y.count);
              });
    rows.resize(std::min<size_t>(rows.size(), 10));
    absl::StrAppendFormat(
        &text,
        "\n%s: %+.0f instructions per run; largest per-function changes (B - A, per run):\n%s\n",
        changes[i].second, after.counts_per_run - before.counts_per_run,
        timer::FunctionCounts(rows, false).Slice(0, rows.size()).ToString());
  }
  return text;
}

// A side's LibTorch in --json.
compare::AbTestLibTorchProto LibTorchProto(const Side& side) {
  compare::AbTestLibTorchProto proto;
  proto.set_version(side.libtorch.version);
  proto.set_source(side.libtorch.source);
  proto.set_install(environment::Describe(side.environment.install));
  if (!side.environment.fingerprint.empty()) proto.set_fingerprint(side.environment.fingerprint);
  const environment::PyTorchInstall& install = side.environment.install;
  proto.set_toolchain(ToolchainSetting(side.environment));
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

// What --json holds (compare/comparison_file.proto): both sides' results,
// their LibTorch, and one comparison per case measured on both sides, in
// suite order.
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

// What a run that stopped early leaves, and how to go on.
void ReportStopped(const absl::Status& status, const std::string& json_path, const SideRun& a_run,
                   const SideRun& b_run) {
  std::fprintf(stderr, "ab_test: %s\n", std::string(status.message()).c_str());
  const bool cancelled = status.code() == absl::StatusCode::kCancelled;
  // An interrupted run with --json has had the runner name its journal.
  if (!cancelled || json_path.empty()) {
    std::vector<std::string> journals = a_run.journals;
    journals.insert(journals.end(), b_run.journals.begin(), b_run.journals.end());
    std::fprintf(stderr, "ab_test: finished results are kept in %s\n",
                 absl::StrJoin(journals, ", ").c_str());
  }
  if (cancelled && json_path.empty()) {
    std::fprintf(stderr, "ab_test: (pass --json=FILE to be able to --resume a run)\n");
  }
}

// The sides --sides lists, each set up (its suite built where it needs
// one) and asked for its LibTorch; an error names the file's line.
absl::Status SetUpListedSides(const Suite& own_suite, std::vector<Side>& sides) {
  absl::StatusOr<std::vector<SideSpec>> specs = ReadSidesFlag();
  if (!specs.ok()) return specs.status();
  sides.resize(specs->size());
  for (size_t k = 0; k < sides.size(); ++k) {
    const SideSpec& spec = (*specs)[k];
    Side& side = sides[k];
    side.name = spec.name;
    side.command = spec.command;
    absl::Status status =
        SetUpSide(own_suite, {spec.libtorch_directory, "sides", spec.root, "sides", ""}, side);
    if (status.ok()) status = ProbeLibTorch(side);
    if (!status.ok()) {
      return absl::Status(status.code(), absl::StrCat(absl::GetFlag(FLAGS_sides), ":", spec.line,
                                                      ": ", status.message()));
    }
    std::fprintf(stderr, "ab_test: %s runs LibTorch %s (from %s)\n", side.name.c_str(),
                 side.libtorch.version.c_str(), side.libtorch.source.c_str());
  }
  return absl::OkStatus();
}

// How many sides count at once on this machine: up to one per CPU; none on
// Slurm, where every side is a job array of its own.
size_t SidesAtOnce(size_t sides) {
  if (SlurmExecutorChosen()) return 0;
  const size_t cpus = std::max<long>(1, sysconf(_SC_NPROCESSORS_ONLN));
  return std::min(sides, cpus);
}

// What every side of --sides counts, and how.
struct ListedSidesRun {
  const std::vector<expand::SuiteCaseProto>* cases = nullptr;
  expand::SuiteCaseProto canary;
  MeasureOptions measure;
  std::string journal_base;
};

// Every side's counts into runs[k]: on Slurm all sides at once; here in
// waves of SidesAtOnce, the first wave's canaries counted first with the
// rest (later waves' ran apart before).
absl::Status CountListedSides(const std::vector<Side>& sides, const ListedSidesRun& run,
                              SidesProgress& progress, std::vector<SideRun>& runs) {
  auto side_options = [&](size_t k, int jobs) {
    worker::RunnerOptions options =
        SideOptions(sides[k], jobs, JournalPath(run.journal_base, SideTag(k), "counts"),
                    absl::GetFlag(FLAGS_cache_sim));
    options.resume = absl::GetFlag(FLAGS_resume);
    options.on_progress = progress.For(static_cast<int>(k));
    return options;
  };
  const size_t orders_per_side = MakeOrders(sides[0].suite(), *run.cases, run.measure).size();
  const size_t at_once = SidesAtOnce(sides.size());
  absl::Status status;
  if (at_once == 0) {
    std::fprintf(stderr, "ab_test: instruction counts of %s in %zu sides...\n",
                 base::CountOf(orders_per_side, "case").c_str(), sides.size());
    std::vector<std::future<absl::Status>> running;
    for (size_t k = 0; k < sides.size(); ++k) {
      running.push_back(std::async(std::launch::async, [&, k] {
        const absl::Status counted = RunInto(MakeOrders(sides[k].suite(), *run.cases, run.measure),
                                             side_options(k, 0), runs[k]);
        return counted.ok() ? counted : SideError(sides[k], counted);
      }));
    }
    for (std::future<absl::Status>& side : running) status.Update(side.get());
    return status;
  }
  std::fprintf(stderr,
               "ab_test: instruction counts of %s in %zu sides, %zu at once, the canary first...\n",
               base::CountOf(orders_per_side, "case").c_str(), sides.size(), at_once);
  const int jobs =
      std::max<int>(1, static_cast<int>(std::max<long>(1, sysconf(_SC_NPROCESSORS_ONLN)) / at_once));
  for (size_t first = 0; first < sides.size() && status.ok(); first += at_once) {
    const size_t end = std::min(sides.size(), first + at_once);
    std::vector<const Side*> wave;
    std::vector<std::vector<worker::WorkOrderProto>> orders;
    std::vector<SideRun*> wave_runs;
    for (size_t k = first; k < end; ++k) {
      wave.push_back(&sides[k]);
      orders.push_back(MakeOrders(sides[k].suite(), *run.cases, run.measure));
      wave_runs.push_back(&runs[k]);
    }
    status = CountSidesAtOnce(wave, std::move(orders),
                              first == 0 ? std::optional(run.canary) : std::nullopt, run.measure,
                              [&](size_t i) { return side_options(first + i, jobs); }, wave_runs);
  }
  return status;
}

// Each side's results, its LibTorch's settings and the run's times with
// them.
std::vector<SuiteResults> ListedSidesResults(const std::vector<Side>& sides,
                                             const std::vector<expand::SuiteCaseProto>& cases,
                                             const std::vector<SideRun>& runs,
                                             const std::string& start) {
  const std::string end = NowRfc3339();
  std::vector<SuiteResults> results;
  for (size_t k = 0; k < sides.size(); ++k) {
    results.push_back(CollectResults(cases, runs[k].orders, runs[k].results));
    AddLibTorchSettings(sides[k].environment, results.back().file.settings);
    results.back().file.start_time = start;
    results.back().file.end_time = end;
  }
  return results;
}

// A --sides run that stopped: why, and where its finished results are.
void ReportStoppedSides(const absl::Status& status, const std::vector<SideRun>& runs) {
  std::fprintf(stderr, "ab_test: %s\n", std::string(status.message()).c_str());
  std::vector<std::string> journals;
  for (const SideRun& run : runs) {
    journals.insert(journals.end(), run.journals.begin(), run.journals.end());
  }
  if (status.code() != absl::StatusCode::kCancelled && !journals.empty()) {
    std::fprintf(stderr, "ab_test: finished results are kept in %s\n",
                 absl::StrJoin(journals, ", ").c_str());
  }
}

// Warnings for counts of neighbouring sides made on nodes that count
// differently, each printed.
std::vector<std::string> AcrossSidesWarnings(const std::vector<Side>& sides,
                                             const std::vector<SuiteResults>& results) {
  std::vector<std::string> warnings;
  for (size_t k = 1; k < sides.size(); ++k) {
    for (std::string& warning : CountWarnings(results[k - 1].file, results[k].file,
                                              sides[k - 1].name, sides[k].name)) {
      std::fprintf(stderr, "ab_test: warning: %s\n", warning.c_str());
      warnings.push_back(std::move(warning));
    }
  }
  return warnings;
}

// The --json of --sides: every side's results and each case across them.
absl::Status WriteSidesJson(const std::vector<Side>& sides,
                            const std::vector<SuiteResults>& results,
                            const std::vector<CaseAcrossSides>& across,
                            const std::vector<std::string>& names,
                            const std::vector<expand::SuiteCaseProto>& skipped,
                            const std::vector<std::string>& node_warnings,
                            const std::string& journal_base) {
  compare::AbTestSidesFileProto file;
  for (size_t k = 0; k < sides.size(); ++k) {
    compare::AbTestSideProto* side = file.add_sides();
    side->set_name(sides[k].name);
    side->set_command(sides[k].command);
    *side->mutable_libtorch() = LibTorchProto(sides[k]);
    *side->mutable_results() = timer::ResultsToProto(results[k].file);
  }
  for (const CaseAcrossSides& c : across) *file.add_cases() = AcrossSidesCaseToProto(c, names);
  for (const expand::SuiteCaseProto& c : skipped) file.add_skipped_by_backtesting(c.key());
  for (const std::string& warning : node_warnings) file.add_node_warnings(warning);
  const std::string json = base::ProtoToJsonAllFields(file) + "\n";
  if (absl::Status s = base::WriteFileAtomically(absl::GetFlag(FLAGS_json), json); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(s.message(), " (the journals ", journal_base,
                                               ".S*.counts.journal keep every result)"));
  }
  return absl::OkStatus();
}

// Records every side in --history and names every failed case; 1 when
// either happened.
int RecordSidesAndFailures(const std::vector<Side>& sides,
                           const std::vector<SuiteResults>& results,
                           std::optional<history::Store>& history) {
  int exit_code = 0;
  for (size_t k = 0; k < sides.size(); ++k) {
    if (!history.has_value()) break;
    if (absl::Status s = RecordHistory(*history, results[k].file, "ab_test --sides",
                                       sides[k].name, &sides[k].libtorch, absl::GetFlag(FLAGS_json));
        !s.ok()) {
      std::fprintf(stderr, "ab_test: %s\n", std::string(s.message()).c_str());
      exit_code = 1;
    }
  }
  for (size_t k = 0; k < sides.size(); ++k) {
    for (const auto& [key, reason] : results[k].file.failures) {
      std::fprintf(stderr, "ab_test: %s failed in %s: %s\n", key.c_str(), sides[k].name.c_str(),
                   reason.c_str());
      exit_code = 1;
    }
  }
  return exit_code;
}

// The cases --sides runs and the canary, with the canaries of the sides
// that do not count in the first wave run apart first, so that a broken
// side stops the run before anything long.
absl::Status ChooseListedSidesCases(const Suite& own_suite, std::vector<Side>& sides,
                                    std::vector<expand::SuiteCaseProto>& cases,
                                    std::vector<expand::SuiteCaseProto>& skipped,
                                    expand::SuiteCaseProto& canary) {
  std::vector<Side*> mutable_sides;
  std::vector<const Side*> side_pointers;
  for (Side& side : sides) {
    mutable_sides.push_back(&side);
    side_pointers.push_back(&side);
  }
  const bool python = PythonCases(mutable_sides, absl::GetFlag(FLAGS_no_python));
  ICOUNT_ASSIGN_OR_RETURN(const std::vector<expand::SuiteCaseProto> selected,
                          SelectedCases(own_suite, python));
  ICOUNT_ASSIGN_OR_RETURN(
      cases, CasesToRun(selected, side_pointers, absl::GetFlag(FLAGS_backtesting), skipped));
  ICOUNT_ASSIGN_OR_RETURN(canary, ChooseCanary(own_suite, python, side_pointers));
  const std::vector<const Side*> apart(side_pointers.begin() + SidesAtOnce(sides.size()),
                                       side_pointers.end());
  if (apart.empty()) return absl::OkStatus();
  return CheckCanaries(apart, canary, /*counts=*/true, absl::GetFlag(FLAGS_cache_sim));
}

// --sides: every side's counts (on Slurm, one job array per side, all at
// once; here up to one side per CPU at once, sharing the CPUs), then a table of
// counts per case across the sides with the first side at which each
// changed.
int RunSides(const Suite& own_suite) {
  std::vector<Side> sides;
  if (absl::Status status = SetUpListedSides(own_suite, sides); !status.ok()) {
    return base::Fail(status);
  }
  std::vector<expand::SuiteCaseProto> cases, skipped;
  ListedSidesRun run;
  if (absl::Status status = ChooseListedSidesCases(own_suite, sides, cases, skipped, run.canary);
      !status.ok()) {
    return base::Fail(status);
  }
  absl::StatusOr<std::optional<history::Store>> history = OpenHistoryFlag();
  if (!history.ok()) return base::Fail(history.status());
  absl::StatusOr<std::string> journal_base = JournalBase(absl::GetFlag(FLAGS_json));
  if (!journal_base.ok()) return base::Fail(journal_base.status());
  run.cases = &cases;
  run.measure.wall_time = false;
  run.measure.rehearse_torchscript = absl::GetFlag(FLAGS_rehearse_torchscript);
  run.journal_base = *journal_base;
  std::vector<std::string> names;
  for (const Side& side : sides) names.push_back(side.name);
  SidesProgress progress(names, static_cast<int>(MakeOrders(own_suite, cases, run.measure).size()));
  std::vector<SideRun> runs(sides.size());
  const std::string start = NowRfc3339();
  if (absl::Status status = CountListedSides(sides, run, progress, runs); !status.ok()) {
    ReportStoppedSides(status, runs);
    return 1;
  }
  const std::vector<SuiteResults> results = ListedSidesResults(sides, cases, runs, start);
  std::vector<std::map<std::string, double>> counts;
  std::vector<std::map<std::string, std::string>> failures;
  for (const SuiteResults& side : results) {
    counts.push_back(side.counts_per_run);
    failures.push_back(side.file.failures);
  }
  const std::vector<std::string> node_warnings = AcrossSidesWarnings(sides, results);
  std::vector<std::pair<std::string, std::string>> keys;
  for (const expand::SuiteCaseProto& c : cases) keys.emplace_back(c.key(), c.list_line());
  const std::vector<CaseAcrossSides> across = CompareAcrossSides(keys, counts);
  int changed = 0;
  for (const CaseAcrossSides& c : across) changed += c.changes.empty() ? 0 : 1;
  std::printf("Instructions per run across %zu sides: %d of %s changed\n%s", sides.size(), changed,
              base::CountOf(across.size(), "case").c_str(),
              AcrossSidesTable(across, names, failures, absl::GetFlag(FLAGS_markdown)).c_str());
  if (!absl::GetFlag(FLAGS_json).empty()) {
    if (absl::Status s = WriteSidesJson(sides, results, across, names, skipped, node_warnings,
                                        run.journal_base);
        !s.ok()) {
      return base::Fail(s);
    }
  }
  const int exit_code = RecordSidesAndFailures(sides, results, *history);
  std::vector<const SideRun*> finished;
  for (const SideRun& side_run : runs) finished.push_back(&side_run);
  RemoveJournals(finished, absl::GetFlag(FLAGS_json), run.journal_base);
  return exit_code;
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
  const bool python = PythonCases({&a, &b}, absl::GetFlag(FLAGS_no_python));
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
  std::printf("%s", RenderComparison(plan.cases, a, b, a_results, b_results, times,
                                     plan.measure.wall_time)
                        .c_str());
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
  absl::StatusOr<Suite> suite = LoadSuite("definitions", "full_suite");
  if (!suite.ok()) return base::Fail(suite.status());
  // A --filter or --no_cpp that leaves nothing is an error before any side
  // is looked at (or built for).
  if (absl::Status s = SelectedCases(*suite, !absl::GetFlag(FLAGS_no_python)).status(); !s.ok()) {
    return base::Fail(s);
  }
  if (!absl::GetFlag(FLAGS_sides).empty()) return RunSides(*suite);
  Side a, b;
  AbPlan plan;
  if (absl::Status status = PlanAb(*suite, a, b, plan); !status.ok()) return base::Fail(status);
  const std::string json_path = absl::GetFlag(FLAGS_json);
  absl::StatusOr<std::string> journal_base = JournalBase(json_path);
  if (!journal_base.ok()) return base::Fail(journal_base.status());
  absl::StatusOr<std::optional<history::Store>> history = OpenHistoryFlag();
  if (!history.ok()) return base::Fail(history.status());
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
    ReportStopped(status, json_path, a_run, b_run);
    return 1;
  }
  return ReportAb(plan, a, b, a_run, b_run, start, *journal_base, *history);
}

}  // namespace
}  // namespace icount::tools

int main(int argc, char** argv) { return icount::tools::Main(argc, argv); }
