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
// Each side's workers start through `/bin/sh -c '<command> && exec "$@"'`,
// so a side can also swap libraries (LD_LIBRARY_PATH) or preload one, or
// use a worker built elsewhere (--A_worker). In order:
//   0. each side's PyTorch is found and said, and built for when it is not
//      Debian's;
//   1. each side's worker reports the LibTorch it runs on
//      (worker/libtorch_version_line.h); with --backtesting, cases that declare a
//      newer min_libtorch_version than either side has are skipped (and
//      listed), so an old release can be compared with today's;
//   2. a canary case runs in each environment (all at once, up to one per
//      CPU); a broken environment stops the run with its output;
//   3. instruction counts: A and B at once, half the CPUs each (counts do
//      not depend on what runs beside them);
//   4. with --display_time, wall time in paired rounds: every round times
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
// counts are taken (with --executor=slurm, one job array per side, all at
// once), and a table shows each case's count per side and the side at
// which it first changed; --json writes {"sides": [...], "cases": [...]}.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/files.h"
#include "base/status.h"
#include "base/subprocess.h"
#include "base/text.h"
#include "cli/tool_flags.h"
#include "compare/delta_table.h"
#include "compare/node_check.h"
#include "compare/suite_summary.h"
#include "compare/time_comparison.h"
#include "environment/pytorch_install.h"
#include "expand/libtorch_version.h"
#include "timer/function_counts.h"
#include "timer/measurement_io.h"
#include "tools/environment_suite.h"
#include "tools/executor.h"
#include "tools/history_recording.h"
#include "tools/html_report.h"
#include "tools/sides.h"
#include "tools/suite.h"
#include "worker/libtorch_version_line.h"
#include "worker/runner.h"

ABSL_FLAG(std::string, A, "", "Shell command setting up environment A (required).");
ABSL_FLAG(std::string, B, "", "Shell command setting up environment B (required).");
ABSL_FLAG(std::string, A_libtorch, "",
          "A LibTorch directory (include/, lib/, share/cmake/Torch) for A instead of the torch "
          "that `import torch` loads in A; C++ cases only.");
ABSL_FLAG(std::string, B_libtorch, "", "As --A_libtorch, for B.");
ABSL_FLAG(std::string, A_worker, "",
          "Worker binary for A, used as it is; default: the suite's, built for A's PyTorch.");
ABSL_FLAG(std::string, B_worker, "", "As --A_worker, for B.");
ABSL_FLAG(bool, no_python, false, "C++ cases only.");
ABSL_FLAG(std::string, filter, "", "RE2 regex on labels: only matching cases.");
ABSL_FLAG(bool, backtesting, false,
          "Skip cases that declare a newer min_libtorch_version than A or B reports.");
ABSL_FLAG(bool, no_cpp, false, "Python cases only (e.g. when B's LibTorch has no C++ ABI match).");
ABSL_FLAG(bool, display_time, false, "Also measure and show wall time.");
ABSL_FLAG(bool, no_counts, false, "Wall time only (implies --display_time).");
ABSL_FLAG(double, min_run_time, 0.05,
          "With --display_time: seconds of wall time per case and side (more: less noise).");
ABSL_FLAG(int, time_rounds, 6,
          "With --display_time: paired rounds; each times every case on A and on B (A B, B A, "
          "...). More rounds resolve smaller changes; fewer than 3 give no verdict.");
ABSL_FLAG(bool, rehearse_torchscript, false, icount::kRehearseTorchScriptHelp);
ABSL_FLAG(bool, cache_sim, false, icount::kCacheSimHelp);
ABSL_FLAG(bool, colorize, false, "ANSI colours in the table.");
ABSL_FLAG(bool, markdown, false, "Print the table as Markdown (for pull requests).");
ABSL_FLAG(int, top, 3, "Cases whose per-function deltas are shown.");
ABSL_FLAG(std::string, json, "",
          "Write both sides' results here ({\"A\": ..., \"B\": ...}); finished results are "
          "journaled in JSON.A.*.journal and JSON.B.*.journal until then (without --json, in a "
          "directory under $TMPDIR, removed once the run finishes). A file ab_test wrote is "
          "replaced; any other file is refused before the run starts.");
ABSL_FLAG(std::string, sides, "",
          "Instead of --A/--B: a file of environment commands, one per line (\"[NAME] command\" "
          "names a side; # comments): the counts of every case in each, and the side at which "
          "each case's count first changed (backtesting nightly builds). Counts only.");
ABSL_FLAG(bool, resume, false,
          "Continue an interrupted run: the same flags and --json (an error when it left no "
          "journal).");

namespace icount {
namespace {

struct Side {
  std::string name;
  std::string command;
  EnvironmentSuite environment;  // its PyTorch, and the suite built for it
  // Whether its workers import torch (RunnerOptions::python): the same on
  // every side, false when one side's PyTorch has no torch package.
  bool workers_import_torch = true;
  LibTorchVersionReport libtorch;  // as the side's worker reports it
  expand::LibTorchVersion libtorch_version;

  const Suite& suite() const { return environment.suite; }
};

// The side's PyTorch and suite (tools/environment_suite.h); with
// --X_worker, the suite's cases with that worker, used as it is.
absl::Status SetUpSide(const Suite& own_suite, const std::string& libtorch_directory,
                       const std::string& libtorch_flag, const std::string& worker, Side& side) {
  if (worker.empty()) {
    ICOUNT_ASSIGN_OR_RETURN(
        side.environment,
        SuiteForEnvironment({side.name, side.command, libtorch_directory, libtorch_flag}, own_suite,
                            "ab_test"));
    return absl::OkStatus();
  }
  if (access(worker.c_str(), X_OK) != 0) {
    return absl::NotFoundError(
        absl::StrCat("--", side.name, "_worker=", worker, " does not exist or is not executable"));
  }
  side.environment.install = environment::SystemInstall();
  side.environment.install.how_found = absl::StrCat("--", side.name, "_worker");
  side.environment.suite = own_suite;
  side.environment.suite.worker_path = worker;
  return absl::OkStatus();
}

// Asks the side's worker, started through the side's command, which
// LibTorch it runs on. Also the first sign of a broken environment.
absl::Status ProbeLibTorch(Side& side) {
  std::vector<std::string> argv = environment::EnvironmentPrefix(side.command);
  argv.push_back(side.suite().worker_path);
  argv.push_back("--print_libtorch_version");
  absl::StatusOr<base::CommandResult> result = base::RunCommand(argv);
  if (!result.ok()) return result.status();
  std::optional<LibTorchVersionReport> report = FindLibTorchVersionLine(result->output);
  if (result->exit_code != 0 || !report.has_value()) {
    return absl::FailedPreconditionError(
        absl::StrCat("environment ", side.name, " (", side.command,
                     ") is broken: its worker could not report a LibTorch version (",
                     base::DescribeExit(*result), "):\n", result->output));
  }
  absl::StatusOr<expand::LibTorchVersion> version =
      expand::ParseLibTorchVersion(report->version, expand::VersionSuffix::kIgnored);
  if (!version.ok()) {
    const bool declared = report->source == "ICOUNT_LIBTORCH_VERSION";
    return absl::FailedPreconditionError(absl::StrCat(
        "environment ", side.name, " reports an unreadable LibTorch version (from ", report->source,
        "): ", version.status().message(),
        declared ? ""
                 : absl::StrCat("; declare the right one with `export ",
                                "ICOUNT_LIBTORCH_VERSION=<version>` in --", side.name)));
  }
  side.libtorch = *std::move(report);
  side.libtorch_version = *version;
  return absl::OkStatus();
}

// Splits `cases` into those that run on LibTorch `available` and those
// that declare a newer min_libtorch_version.
absl::Status SplitByMinLibTorch(const std::vector<expand::SuiteCaseProto>& cases,
                                const expand::LibTorchVersion& available,
                                std::vector<expand::SuiteCaseProto>& runnable,
                                std::vector<expand::SuiteCaseProto>& too_new) {
  for (const expand::SuiteCaseProto& c : cases) {
    if (!c.min_libtorch_version().empty()) {
      absl::StatusOr<expand::LibTorchVersion> needed =
          expand::ParseLibTorchVersion(c.min_libtorch_version());
      if (!needed.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(c.list_line(), " (", c.definition_file(), ":", c.definition_line(),
                         "): min_libtorch_version ", needed.status().message()));
      }
      if (available < *needed) {
        too_new.push_back(c);
        continue;
      }
    }
    runnable.push_back(c);
  }
  return absl::OkStatus();
}

RunnerOptions SideOptions(const Side& side, int jobs, std::string journal_path) {
  RunnerOptions options;
  options.worker_path = side.suite().worker_path;
  options.jobs = jobs;
  options.command_prefix = environment::EnvironmentPrefix(side.command);
  options.python = side.workers_import_torch;
  options.cache_sim = absl::GetFlag(FLAGS_cache_sim);
  options.journal_path = std::move(journal_path);
  // A case that crashes in one environment (a preloaded library, another
  // LibTorch) will crash again.
  options.retries = 0;
  return options;
}

// A trivial case that must work in the environment before anything long
// starts: counted once under valgrind when the run counts; timed briefly
// otherwise, since an A/B of wall time alone needs no valgrind.
absl::Status Canary(const Side& side, const expand::SuiteCaseProto& canary, bool counts) {
  MeasureOptions measure;
  measure.wall_time = !counts;
  measure.instruction_counts = counts;
  measure.callgrind_number = 1;
  measure.min_run_time = 0.01;
  const std::vector<worker::WorkOrderProto> orders = MakeOrders(side.suite(), {canary}, measure);
  // A canary keeps nothing: its journal lives in a directory of its own
  // under $TMPDIR, gone when it ends.
  absl::StatusOr<std::string> directory = base::MakeTemporaryDirectory("icount-canary");
  if (!directory.ok()) return directory.status();
  RunnerOptions options = SideOptions(side, 1, *directory + "/canary.journal");
  absl::StatusOr<RunnerReport> report = RunOrders(orders, options);
  base::RemoveDirectoryTree(*directory);
  if (!report.ok()) {
    // The canaries run side by side: say whose it was. Its journal, which
    // the runner's message offers, is gone: a canary keeps nothing.
    std::string why(report.status().message());
    const std::string journal_note =
        absl::StrCat("\nFinished results are kept in ", options.journal_path, ".");
    if (absl::EndsWith(why, journal_note)) why.resize(why.size() - journal_note.size());
    return absl::Status(report.status().code(),
                        absl::StrCat("environment ", side.name, " (", side.command,
                                     ") is broken: its canary could not run: ", why));
  }
  const SuiteResults results = CollectResults({canary}, orders, report->results);
  if (!results.file.failures.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("environment ", side.name, " (", side.command,
                                                      ") is broken: the canary case failed:\n",
                                                      results.file.failures.begin()->second));
  }
  return absl::OkStatus();
}

// The canary in every side, as many sides at once as there are CPUs (each
// canary is one worker on one CPU, and its result is not kept): the
// environments are checked in the time of one worker's start (~11 s under
// valgrind) instead of one after another. The first broken side, in the
// sides' order, is the error.
absl::Status CheckCanaries(const std::vector<const Side*>& sides,
                           const expand::SuiteCaseProto& canary, bool counts) {
  const size_t at_once = std::max<long>(1, sysconf(_SC_NPROCESSORS_ONLN));
  for (size_t first = 0; first < sides.size(); first += at_once) {
    const size_t end = std::min(sides.size(), first + at_once);
    std::vector<std::string> names;
    std::vector<std::future<absl::Status>> running;
    for (size_t k = first; k < end; ++k) {
      names.push_back(sides[k]->name);
      running.push_back(
          std::async(std::launch::async, [&, k] { return Canary(*sides[k], canary, counts); }));
    }
    std::fprintf(stderr, "ab_test: canary in %s%s...\n", absl::StrJoin(names, ", ").c_str(),
                 names.size() > 1 ? " at once" : "");
    absl::Status status;
    for (std::future<absl::Status>& side : running) status.Update(side.get());
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// Where a side keeps the results of one part of the run ("counts",
// "time-0", ...) until the results are written.
std::string JournalPath(const std::string& base, const std::string& side, const std::string& part) {
  return absl::StrCat(base, ".", side, ".", part, ".journal");
}

// The base of a run's journal names (JournalPath). With --json, the file
// itself, so that --resume finds them next to it; without, a fresh
// directory under $TMPDIR (base::MakeTemporaryDirectory) that a finished
// run removes (RemoveJournals) and an unfinished one keeps and names.
absl::StatusOr<std::string> JournalBase(const std::string& json_path) {
  if (!json_path.empty()) return json_path;
  ICOUNT_ASSIGN_OR_RETURN(const std::string directory, base::MakeTemporaryDirectory("icount-ab"));
  return directory + "/ab";
}

// --time_rounds, at least one.
int TimeRounds() { return absl::GetFlag(FLAGS_time_rounds); }  // >= 1 (CheckFlags)

std::string TimeRoundPart(size_t round) { return absl::StrCat("time-", round); }

// What one side has run so far: its orders and their results, in step,
// and the wall-time round of each (-1 for counts).
struct SideRun {
  std::vector<worker::WorkOrderProto> orders;
  std::vector<worker::WorkerResultProto> results;
  std::vector<int> rounds;
  std::vector<std::string> journals;
};

// Once the results are out: the sides' journals (or Slurm run
// directories), and the directory JournalBase made for them.
void RemoveJournals(const std::vector<const SideRun*>& runs, const std::string& json_path,
                    const std::string& journal_base) {
  for (const SideRun* run : runs) {
    for (const std::string& journal : run->journals) base::RemoveDirectoryTree(journal);
  }
  if (json_path.empty()) base::RemoveDirectoryTree(journal_base.substr(0, journal_base.rfind('/')));
}

// Counts (round -1) run on the chosen executor; wall-time rounds always
// here, so that both sides of a round are timed on one machine.
absl::Status RunInto(const std::vector<worker::WorkOrderProto>& orders,
                     const RunnerOptions& options, SideRun& run, int round = -1) {
  run.journals.push_back(round < 0 ? RunStatePath(orders, options) : options.journal_path);
  absl::StatusOr<RunnerReport> report =
      round < 0 ? ExecuteOrders(orders, options) : RunOrders(orders, options);
  if (!report.ok()) return report.status();
  if (report->resumed > 0) {
    std::fprintf(stderr, "ab_test: %d of %zu results resumed from %s\n", report->resumed,
                 orders.size(), options.journal_path.c_str());
  }
  run.orders.insert(run.orders.end(), orders.begin(), orders.end());
  run.results.insert(run.results.end(), report->results.begin(), report->results.end());
  run.rounds.insert(run.rounds.end(), orders.size(), round);
  return absl::OkStatus();
}

// One progress line for the sides' runs ("A 3/14, B 2/14"), at most every
// few seconds.
class SidesProgress {
 public:
  SidesProgress(std::vector<std::string> names, int orders_per_side)
      : names_(std::move(names)), sides_(names_.size()) {
    for (RunnerProgress& side : sides_) side.total = orders_per_side;
  }

  std::function<void(const RunnerProgress&)> For(int side) {
    return [this, side](const RunnerProgress& progress) {
      std::lock_guard<std::mutex> lock(mutex_);
      sides_[side] = progress;
      const bool finished = progress.done == progress.total;
      if (!finished && progress.elapsed_seconds < next_report_seconds_) return;
      next_report_seconds_ = progress.elapsed_seconds + 10;
      std::vector<std::string> parts;
      int failed = 0;
      for (size_t s = 0; s < sides_.size(); ++s) {
        parts.push_back(absl::StrCat(names_[s], " ", sides_[s].done, "/", sides_[s].total));
        failed += sides_[s].failed;
      }
      std::fprintf(stderr, "ab_test: %s: %s%s\n", progress.phase.c_str(),
                   absl::StrJoin(parts, ", ").c_str(),
                   failed > 0 ? absl::StrCat(" (", failed, " failed)").c_str() : "");
    };
  }

 private:
  std::mutex mutex_;
  const std::vector<std::string> names_;
  std::vector<RunnerProgress> sides_;
  double next_report_seconds_ = 0;
};

// Gives every later wall-time order the block size A's first round picked
// for its case: a case whose time per block sits near a power-of-ten
// boundary would otherwise be timed in blocks 10x apart from round to
// round or side to side, and per-run times of different block sizes differ
// by more than noise (0.34 against 0.46 ns a run for `stride` in C++).
// Cases A's first round did not time keep picking their own.
void FixBlockSizes(const SideRun& a_run, std::vector<worker::WorkOrderProto>& time_orders) {
  std::map<std::string, int64_t> numbers;
  for (size_t i = 0; i < a_run.results.size(); ++i) {
    const worker::WorkerResultProto& result = a_run.results[i];
    if (a_run.rounds[i] != 0 || !result.has_output() || !result.output().has_wall_time()) continue;
    numbers[a_run.orders[i].case_key()] = result.output().wall_time().number_per_run();
  }
  for (worker::WorkOrderProto& order : time_orders) {
    if (auto found = numbers.find(order.case_key()); found != numbers.end()) {
      order.set_wall_time_number(found->second);
    }
  }
}

// Runs `orders` in A and in B: counts at once, wall time in paired rounds
// (see the file comment). Journals are named after `journal_base`.
absl::Status RunBothSides(const Side& a, const Side& b,
                          const std::vector<expand::SuiteCaseProto>& cases,
                          const MeasureOptions& measure, const std::string& journal_base,
                          bool resume, SideRun& a_run, SideRun& b_run) {
  // Each side's orders name its own suite's TorchScript artifacts.
  std::vector<worker::WorkOrderProto> count_orders[2], time_orders[2];
  for (const Side* side : {&a, &b}) {
    const int k = side == &a ? 0 : 1;
    for (const worker::WorkOrderProto& order : MakeOrders(side->suite(), cases, measure)) {
      (order.callgrind() ? count_orders[k] : time_orders[k]).push_back(order);
    }
  }
  auto options = [&](const Side& side, const std::string& part, int jobs) {
    RunnerOptions o = SideOptions(side, jobs, JournalPath(journal_base, side.name, part));
    o.resume = resume;
    return o;
  };
  auto side_error = [](const Side& side, const absl::Status& status) {
    return absl::Status(status.code(), absl::StrCat(side.name, ": ", status.message()));
  };
  if (!count_orders[0].empty()) {
    const int jobs = std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)) / 2);
    std::fprintf(stderr, "ab_test: instruction counts of %zu cases in A and B at once...\n",
                 count_orders[0].size());
    SidesProgress progress({"A", "B"}, static_cast<int>(count_orders[0].size()));
    RunnerOptions a_options = options(a, "counts", jobs);
    RunnerOptions b_options = options(b, "counts", jobs);
    a_options.on_progress = progress.For(0);
    b_options.on_progress = progress.For(1);
    auto a_done =
        std::async(std::launch::async, [&] { return RunInto(count_orders[0], a_options, a_run); });
    const absl::Status b_status = RunInto(count_orders[1], b_options, b_run);
    const absl::Status a_status = a_done.get();
    if (!a_status.ok()) return side_error(a, a_status);
    if (!b_status.ok()) return side_error(b, b_status);
  }
  // Paired rounds: every round times every case on both sides, one side
  // after the other (A B, then B A, ...), each on the whole machine with
  // the runner's pinning. Timing A and B at once, each side on a core of
  // its own, was tried and measured worse on a 2-core VM: whole
  // measurements ran up to 2x slow beside the other side's processes
  // (README, "Wall time you can trust").
  const int rounds = TimeRounds();
  for (int round = 0; round < rounds && !time_orders[0].empty(); ++round) {
    const Side* first = round % 2 == 0 ? &a : &b;
    for (const Side* side : {first, first == &a ? &b : &a}) {
      const int k = side == &a ? 0 : 1;
      std::fprintf(stderr, "ab_test: wall time, round %d of %d, %s: %zu cases...\n", round + 1,
                   rounds, side->name.c_str(), time_orders[k].size());
      const absl::Status status = RunInto(time_orders[k], options(*side, TimeRoundPart(round), 0),
                                          side == &a ? a_run : b_run, round);
      if (!status.ok()) return side_error(*side, status);
      if (round == 0 && side == &a) {
        for (std::vector<worker::WorkOrderProto>& orders : time_orders) {
          FixBlockSizes(a_run, orders);
        }
      }
    }
  }
  return absl::OkStatus();
}

// What ab_test writes to --json (ComparisonJson, or SidesJson).
bool IsComparisonJson(absl::string_view text) {
  return (absl::StartsWith(text, "{\"A\": ") && absl::StrContains(text, ", \"B\": ")) ||
         absl::StartsWith(text, "{\"sides\": [");
}

// The sides of --sides, read and checked.
absl::StatusOr<std::vector<SideSpec>> ReadSidesFlag() {
  const std::string path = absl::GetFlag(FLAGS_sides);
  absl::StatusOr<std::string> text = base::ReadFileToString(path);
  if (!text.ok()) {
    return absl::Status(text.status().code(), absl::StrCat("--sides: ", text.status().message()));
  }
  return ParseSidesFile(*text, path);
}

// How side k's journals are named ("S1", "S2", ...): side names may hold
// any character.
std::string SideTag(size_t k) { return absl::StrCat("S", k + 1); }

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
  } else if (absl::GetFlag(FLAGS_A).empty() || absl::GetFlag(FLAGS_B).empty()) {
    return absl::InvalidArgumentError(
        "--A and --B are required (shell commands setting up each environment), or --sides=FILE");
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
  ICOUNT_RETURN_IF_ERROR(CheckResultsDestination(json, &IsComparisonJson),
                         absl::Status(_.code(), absl::StrCat("--json: ", _.message())));
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
    for (int round = 0; round < TimeRounds(); ++round) {
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
  for (const std::string& journal : journals) ICOUNT_RETURN_IF_ERROR(CheckNoOldJournal(journal));
  return absl::OkStatus();
}

// The sides as the flags describe them, each with its PyTorch and suite.
absl::Status MakeSides(const Suite& own_suite, Side& a, Side& b) {
  a.name = "A";
  a.command = absl::GetFlag(FLAGS_A);
  b.name = "B";
  b.command = absl::GetFlag(FLAGS_B);
  ICOUNT_RETURN_IF_ERROR(SetUpSide(own_suite, absl::GetFlag(FLAGS_A_libtorch), "A_libtorch",
                                   absl::GetFlag(FLAGS_A_worker), a));
  return SetUpSide(own_suite, absl::GetFlag(FLAGS_B_libtorch), "B_libtorch",
                   absl::GetFlag(FLAGS_B_worker), b);
}

// Whether Python cases run: not with --no_python, nor when a side's
// PyTorch is a LibTorch directory (it has no torch package to import); then
// no side's workers import torch, so that C++ cases have the same history
// on every side.
bool PythonCases(const std::vector<Side*>& sides) {
  for (const Side* side : sides) {
    if (side->environment.python_cases()) continue;
    std::fprintf(stderr,
                 "ab_test: %s: %s: Python cases are skipped, and no side's workers import "
                 "torch\n",
                 side->name.c_str(), side->environment.install.python_problem.c_str());
    for (Side* other : sides) other->workers_import_torch = false;
    return false;
  }
  return !absl::GetFlag(FLAGS_no_python);
}

// The cases --filter and --no_cpp select.
absl::StatusOr<std::vector<expand::SuiteCaseProto>> SelectedCases(const Suite& suite, bool python) {
  CaseFilter filter;
  filter.label_regex = absl::GetFlag(FLAGS_filter);
  filter.cpp = !absl::GetFlag(FLAGS_no_cpp);
  filter.python = python;
  return SelectCases(suite, filter);
}

// The selected cases every side runs: with --backtesting, those that need
// a newer LibTorch than the oldest side's go to `skipped` instead; without,
// they stay, with a warning.
absl::StatusOr<std::vector<expand::SuiteCaseProto>> CasesToRun(
    const std::vector<expand::SuiteCaseProto>& selected, const std::vector<const Side*>& sides,
    std::vector<expand::SuiteCaseProto>& skipped) {
  const Side* oldest = sides.front();
  for (const Side* side : sides) {
    if (side->libtorch_version < oldest->libtorch_version) oldest = side;
  }
  const Side& older = *oldest;
  std::vector<expand::SuiteCaseProto> runnable, too_new;
  ICOUNT_RETURN_IF_ERROR(SplitByMinLibTorch(selected, older.libtorch_version, runnable, too_new));
  if (too_new.empty()) return selected;
  const std::string why = absl::StrCat(
      too_new.size(), " of ", selected.size(), " cases ", too_new.size() == 1 ? "needs" : "need",
      " a newer LibTorch than ", older.name, "'s ", older.libtorch.version);
  if (!absl::GetFlag(FLAGS_backtesting)) {
    std::fprintf(stderr,
                 "ab_test: warning: %s (e.g. %s needs %s); they will likely fail there. "
                 "--backtesting skips them.\n",
                 why.c_str(), too_new[0].list_line().c_str(),
                 too_new[0].min_libtorch_version().c_str());
    return selected;
  }
  std::fprintf(stderr, "ab_test: --backtesting: %s; skipped:\n", why.c_str());
  for (const expand::SuiteCaseProto& c : too_new) {
    std::fprintf(stderr, "  %s (needs %s)\n", c.list_line().c_str(),
                 c.min_libtorch_version().c_str());
  }
  if (runnable.empty()) return absl::InvalidArgumentError("--backtesting leaves no case to run");
  skipped = std::move(too_new);
  return runnable;
}

// The canary: the suite's first Python case (C++ when Python cases do not
// run) that runs on every side.
absl::StatusOr<expand::SuiteCaseProto> ChooseCanary(const Suite& suite, bool python) {
  const timer::Language language = python ? timer::PYTHON : timer::CPP;
  for (const expand::SuiteCaseProto& c : suite.manifest.cases()) {
    if (c.task_spec().language() == language && c.min_libtorch_version().empty()) return c;
  }
  return absl::FailedPreconditionError(
      absl::StrCat("the suite has no ", python ? "Python" : "C++",
                   " case without a min_libtorch_version to be the canary"));
}

// Each side's results by case key.
struct SideResults {
  std::map<std::string, const InstructionCounts*> counts;
  std::map<std::string, const Measurement*> times;
  explicit SideResults(const SuiteResults& results) {
    for (const InstructionCounts& c : results.file.instruction_counts) {
      counts[c.metadata.at("case")] = &c;
    }
    for (const Measurement& m : results.file.measurements) times[m.metadata().at("case")] = &m;
  }
};

// Each case's wall time on each side per round (the median seconds per
// run of that round's measurement), paired by round: rounds that one side
// did not finish are left out. An unreadable measurement is NaN, which
// CompareWallTimes reports as unusable.
std::map<std::string, PairedRounds> PairRounds(const SideRun& a_run, const SideRun& b_run) {
  auto per_round = [](const SideRun& run) {
    std::map<std::string, std::map<int, double>> times;  // case -> round -> median
    for (size_t i = 0; i < run.orders.size(); ++i) {
      const worker::WorkerResultProto& result = run.results[i];
      if (run.rounds[i] < 0 || !result.has_output() || !result.output().has_wall_time()) continue;
      absl::StatusOr<Measurement> m = MeasurementFromProto(result.output().wall_time());
      times[run.orders[i].case_key()][run.rounds[i]] =
          m.ok() && !m->raw_times().empty() ? m->Median() : std::nan("");
    }
    return times;
  };
  const auto a_times = per_round(a_run);
  const auto b_times = per_round(b_run);
  std::map<std::string, PairedRounds> paired;
  for (const auto& [key, a_rounds] : a_times) {
    auto b_rounds = b_times.find(key);
    if (b_rounds == b_times.end()) continue;
    PairedRounds& rounds = paired[key];
    for (const auto& [round, a_median] : a_rounds) {
      auto b_median = b_rounds->second.find(round);
      if (b_median == b_rounds->second.end()) continue;
      rounds.a.push_back(a_median);
      rounds.b.push_back(b_median->second);
    }
  }
  return paired;
}

// The verdict on each case's wall time, by case key (cases timed on both
// sides only), from one correction over all of them.
std::map<std::string, TimeComparison> CompareTimes(const std::vector<expand::SuiteCaseProto>& cases,
                                                   const SideRun& a_run, const SideRun& b_run) {
  const std::map<std::string, PairedRounds> paired = PairRounds(a_run, b_run);
  std::vector<std::string> keys;
  std::vector<PairedRounds> rounds;
  for (const expand::SuiteCaseProto& c : cases) {
    auto found = paired.find(c.key());
    if (found == paired.end()) continue;
    keys.push_back(c.key());
    rounds.push_back(found->second);
  }
  const std::vector<TimeComparison> verdicts = CompareWallTimes(rounds);
  std::map<std::string, TimeComparison> by_key;
  for (size_t i = 0; i < keys.size(); ++i) by_key[keys[i]] = verdicts[i];
  return by_key;
}

// With --cache_sim: a delta table of estimated cycles per run, placed as
// the instruction counts are; "" when a side has none.
std::string CyclesTable(const std::vector<expand::SuiteCaseProto>& cases, const Side& a,
                        const Side& b, const SideResults& in_a, const SideResults& in_b) {
  DeltaTable table(absl::StrCat("Estimated cycles per run: A (LibTorch ", a.libtorch.version,
                                ") vs B (LibTorch ", b.libtorch.version, ")"),
                   BenchmarkColumns());
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
    DeltaValues& values =
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
    if (!AllocationsDiffer(*before, *after)) continue;
    lines.push_back(absl::StrCat("  ", ResultCaseTitle(b->second->task_spec), ": ",
                                 FormatAllocations(*before), " -> ", FormatAllocations(*after),
                                 " (", *after > *before ? "+" : "",
                                 FormatAllocations(*after - *before), ")"));
  }
  if (compared == 0) return "";
  if (lines.empty()) {
    return absl::StrCat("Heap allocations per run: the same on both sides in all ", compared,
                        " cases.\n");
  }
  return absl::StrCat("Heap allocations per run (A -> B) differ in ", lines.size(), " of ",
                      compared, " cases:\n", absl::StrJoin(lines, "\n"), "\n");
}

// The suite-level answer per metric (compare/suite_summary.h).
std::vector<SuiteChange> SummarizeSides(const std::vector<expand::SuiteCaseProto>& cases,
                                        const SuiteResults& a_results,
                                        const SuiteResults& b_results,
                                        const std::map<std::string, TimeComparison>& times) {
  const SideResults in_a(a_results), in_b(b_results);
  std::vector<CaseValues> values;
  for (const expand::SuiteCaseProto& c : cases) {
    auto a = in_a.counts.find(c.key());
    auto b = in_b.counts.find(c.key());
    auto time = times.find(c.key());
    values.push_back(CaseValuesOf(a == in_a.counts.end() ? nullptr : a->second,
                                  b == in_b.counts.end() ? nullptr : b->second,
                                  time == times.end() ? nullptr : &time->second));
  }
  return SummarizeSuite(values);
}

// "Overall, B against A:" and one FormatSuiteChange line per metric.
std::string RenderSummary(const std::vector<SuiteChange>& changes, bool markdown) {
  std::string text = "\nOverall, B against A (geometric mean of B / A over cases, 95% interval):\n";
  for (const SuiteChange& change : changes) {
    absl::StrAppend(&text, markdown ? "- " : "  ", FormatSuiteChange(change), "\n");
  }
  return text;
}

// The delta table, the allocation changes and the suite-level summary,
// then the per-function changes of the `--top` cases whose counts changed
// most.
std::string RenderComparison(const std::vector<expand::SuiteCaseProto>& cases, const Side& a,
                             const Side& b, const SuiteResults& a_results,
                             const SuiteResults& b_results,
                             const std::map<std::string, TimeComparison>& times, bool wall_time) {
  DeltaTable table(absl::StrCat(wall_time ? "Instructions and wall time" : "Instructions",
                                " per run: A (LibTorch ", a.libtorch.version, ") vs B (LibTorch ",
                                b.libtorch.version, ")"),
                   BenchmarkColumns());
  const SideResults in_a(a_results), in_b(b_results);
  std::vector<std::pair<double, std::string>> changes;  // (|delta per run|, key)
  for (const expand::SuiteCaseProto& c : cases) {
    CasePlace place = PlaceCase(c);
    DeltaValues& values =
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
  std::string text =
      absl::StrCat(absl::GetFlag(FLAGS_markdown) ? table.RenderMarkdown()
                                                 : table.Render(absl::GetFlag(FLAGS_colorize)),
                   "\n", CyclesTable(cases, a, b, in_a, in_b), AllocationChanges(cases, in_a, in_b),
                   RenderSummary(SummarizeSides(cases, a_results, b_results, times),
                                 absl::GetFlag(FLAGS_markdown)));
  std::sort(changes.rbegin(), changes.rend());
  for (int i = 0; i < absl::GetFlag(FLAGS_top) && i < static_cast<int>(changes.size()); ++i) {
    if (changes[i].first == 0) break;
    const InstructionCounts& before = *in_a.counts.at(changes[i].second);
    const InstructionCounts& after = *in_b.counts.at(changes[i].second);
    // Per-function change per run of the statement, B - A.
    // Both sides' exclusive counts: the subtraction cannot fail.
    FunctionCounts delta =
        *after.exclusive.Standardized().Subtract(before.exclusive.Standardized()) *
        (1.0 / static_cast<double>(after.number_per_run));
    std::vector<FunctionCount> rows = delta.rows();
    std::sort(rows.begin(), rows.end(), [](const FunctionCount& x, const FunctionCount& y) {
      return std::llabs(x.count) > std::llabs(y.count);
    });
    rows.resize(std::min<size_t>(rows.size(), 10));
    absl::StrAppendFormat(
        &text,
        "\n%s: %+.0f instructions per run; largest per-function changes (B - A, per run):\n%s\n",
        changes[i].second, after.counts_per_run - before.counts_per_run,
        FunctionCounts(rows, false).Slice(0, rows.size()).ToString());
  }
  return text;
}

// One JSON object per case measured on both sides, in suite order
// (ComparisonJson, compare/time_comparison.h).
std::string ComparisonsJson(const std::vector<expand::SuiteCaseProto>& cases,
                            const SuiteResults& a_results, const SuiteResults& b_results,
                            const std::map<std::string, TimeComparison>& times) {
  const SideResults in_a(a_results), in_b(b_results);
  std::vector<std::string> objects;
  for (const expand::SuiteCaseProto& c : cases) {
    CaseComparison comparison;
    if (in_a.counts.count(c.key()) && in_b.counts.count(c.key())) {
      const InstructionCounts& before = *in_a.counts.at(c.key());
      const InstructionCounts& after = *in_b.counts.at(c.key());
      comparison.counts_delta_pct = PercentChange(before.counts_per_run, after.counts_per_run);
      if (before.allocations_per_run && after.allocations_per_run) {
        comparison.allocations_delta = *after.allocations_per_run - *before.allocations_per_run;
      }
      if (before.estimated_cycles_per_run && after.estimated_cycles_per_run) {
        comparison.cycles_delta_pct =
            PercentChange(*before.estimated_cycles_per_run, *after.estimated_cycles_per_run);
      }
    }
    auto time = times.find(c.key());
    if (time != times.end()) comparison.time = &time->second;
    if (!comparison.counts_delta_pct.has_value() && comparison.time == nullptr) continue;
    objects.push_back(ComparisonJson(c.key(), comparison));
  }
  return absl::StrCat("[", objects.empty() ? "" : "\n", absl::StrJoin(objects, ",\n"), "]");
}

// A side's LibTorch in --json: {"version": ..., "source": ..., "install":
// ..., "fingerprint": ...} (the last for one that is not Debian's).
std::string LibTorchJson(const Side& side) {
  return absl::StrCat(
      "{\"version\": ", base::JsonString(side.libtorch.version),
      ", \"source\": ", base::JsonString(side.libtorch.source),
      ", \"install\": ", base::JsonString(environment::Describe(side.environment.install)),
      side.environment.fingerprint.empty()
          ? ""
          : absl::StrCat(", \"fingerprint\": ", base::JsonString(side.environment.fingerprint)),
      "}");
}

// The keys of the cases --backtesting skipped, as a JSON array.
std::string SkippedJson(const std::vector<expand::SuiteCaseProto>& skipped) {
  std::vector<std::string> keys;
  for (const expand::SuiteCaseProto& c : skipped) keys.push_back(c.key());
  return base::JsonStringArray(keys);
}

// {"A": results, "B": results, "libtorch": {...}, "comparisons": [...],
//  "summary": {...}, "skipped_by_backtesting": [...], "node_warnings": [...]}
std::string ComparisonJson(const Side& a, const Side& b, const SuiteResults& a_results,
                           const SuiteResults& b_results, const std::string& comparisons,
                           const std::vector<SuiteChange>& summary,
                           const std::vector<expand::SuiteCaseProto>& skipped,
                           const std::vector<std::string>& node_warnings) {
  return absl::StrCat(
      "{\"A\": ", ResultsToJson(a_results.file), ", \"B\": ", ResultsToJson(b_results.file),
      ", \"libtorch\": {\"A\": ", LibTorchJson(a), ", \"B\": ", LibTorchJson(b),
      "}, \"comparisons\": ", comparisons, ", \"summary\": ", SuiteSummaryJson(summary),
      ", \"skipped_by_backtesting\": ", SkippedJson(skipped),
      ", \"node_warnings\": ", base::JsonStringArray(node_warnings), "}\n");
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

// --sides: every side's counts (on Slurm, one job array per side, all at
// once; here one side after the other, each on every CPU), then a table of
// counts per case across the sides with the first side at which each
// changed.
int RunSides(const Suite& own_suite) {
  absl::StatusOr<std::vector<SideSpec>> specs = ReadSidesFlag();
  if (!specs.ok()) return base::Fail(specs.status());
  std::vector<Side> sides(specs->size());
  std::vector<const Side*> side_pointers;
  std::vector<Side*> mutable_sides;
  for (Side& side : sides) {
    mutable_sides.push_back(&side);
    const SideSpec& spec = (*specs)[&side - &sides[0]];
    side.name = spec.name;
    side.command = spec.command;
    absl::Status status = SetUpSide(own_suite, spec.libtorch_directory, "sides", "", side);
    if (status.ok()) status = ProbeLibTorch(side);
    if (!status.ok()) {
      return base::Fail(
          absl::StrCat(absl::GetFlag(FLAGS_sides), ":", spec.line, ": ", status.message()));
    }
    std::fprintf(stderr, "ab_test: %s runs LibTorch %s (from %s)\n", side.name.c_str(),
                 side.libtorch.version.c_str(), side.libtorch.source.c_str());
    side_pointers.push_back(&side);
  }
  const bool python = PythonCases(mutable_sides);
  absl::StatusOr<std::vector<expand::SuiteCaseProto>> selected = SelectedCases(own_suite, python);
  if (!selected.ok()) return base::Fail(selected.status());
  std::vector<expand::SuiteCaseProto> skipped;
  absl::StatusOr<std::vector<expand::SuiteCaseProto>> cases =
      CasesToRun(*selected, side_pointers, skipped);
  if (!cases.ok()) return base::Fail(cases.status());
  absl::StatusOr<expand::SuiteCaseProto> canary = ChooseCanary(own_suite, python);
  if (!canary.ok()) return base::Fail(canary.status());
  if (absl::Status status = CheckCanaries(side_pointers, *canary, /*counts=*/true); !status.ok()) {
    return base::Fail(status);
  }
  absl::StatusOr<std::optional<history::Store>> history = OpenHistoryFlag();
  if (!history.ok()) return base::Fail(history.status());

  MeasureOptions measure;
  measure.wall_time = false;
  measure.rehearse_torchscript = absl::GetFlag(FLAGS_rehearse_torchscript);
  const size_t orders_per_side = MakeOrders(own_suite, *cases, measure).size();
  const std::string json_path = absl::GetFlag(FLAGS_json);
  absl::StatusOr<std::string> journal_base_or = JournalBase(json_path);
  if (!journal_base_or.ok()) return base::Fail(journal_base_or.status());
  const std::string& journal_base = *journal_base_or;
  std::vector<std::string> names;
  for (const Side& side : sides) names.push_back(side.name);
  SidesProgress progress(names, static_cast<int>(orders_per_side));
  std::vector<SideRun> runs(sides.size());
  auto run_side = [&](size_t k) {
    RunnerOptions options =
        SideOptions(sides[k], 0, JournalPath(journal_base, SideTag(k), "counts"));
    options.resume = absl::GetFlag(FLAGS_resume);
    options.on_progress = progress.For(static_cast<int>(k));
    const absl::Status status =
        RunInto(MakeOrders(sides[k].suite(), *cases, measure), options, runs[k]);
    return status.ok()
               ? status
               : absl::Status(status.code(), absl::StrCat(sides[k].name, ": ", status.message()));
  };
  const std::string start = NowRfc3339();
  std::fprintf(stderr, "ab_test: instruction counts of %zu cases in %zu sides...\n",
               orders_per_side, sides.size());
  absl::Status status;
  if (SlurmExecutorChosen()) {
    std::vector<std::future<absl::Status>> running;
    for (size_t k = 0; k < sides.size(); ++k) {
      running.push_back(std::async(std::launch::async, run_side, k));
    }
    for (std::future<absl::Status>& side : running) status.Update(side.get());
  } else {
    for (size_t k = 0; k < sides.size() && status.ok(); ++k) status = run_side(k);
  }
  if (!status.ok()) {
    std::fprintf(stderr, "ab_test: %s\n", std::string(status.message()).c_str());
    std::vector<std::string> journals;
    for (const SideRun& run : runs) {
      journals.insert(journals.end(), run.journals.begin(), run.journals.end());
    }
    if (status.code() != absl::StatusCode::kCancelled && !journals.empty()) {
      std::fprintf(stderr, "ab_test: finished results are kept in %s\n",
                   absl::StrJoin(journals, ", ").c_str());
    }
    return 1;
  }
  const std::string end = NowRfc3339();
  std::vector<SuiteResults> results;
  std::vector<std::map<std::string, double>> counts;
  std::vector<std::map<std::string, std::string>> failures;
  for (SideRun& run : runs) {
    results.push_back(CollectResults(*cases, run.orders, run.results));
    results.back().file.start_time = start;
    results.back().file.end_time = end;
    counts.push_back(results.back().counts_per_run);
    failures.push_back(results.back().file.failures);
  }
  // Counts from nodes that count differently are compared with a warning.
  std::vector<std::string> node_warnings;
  for (size_t k = 1; k < sides.size(); ++k) {
    for (std::string& warning : CountNodeWarnings(results[k - 1].file, results[k].file,
                                                  sides[k - 1].name, sides[k].name)) {
      std::fprintf(stderr, "ab_test: warning: %s\n", warning.c_str());
      node_warnings.push_back(std::move(warning));
    }
  }
  std::vector<std::pair<std::string, std::string>> keys;
  for (const expand::SuiteCaseProto& c : *cases) keys.emplace_back(c.key(), c.list_line());
  const std::vector<CaseAcrossSides> across = CompareAcrossSides(keys, counts);
  int changed = 0;
  for (const CaseAcrossSides& c : across) changed += c.changes.empty() ? 0 : 1;
  std::printf("Instructions per run across %zu sides: %d of %zu cases changed\n%s", sides.size(),
              changed, across.size(),
              AcrossSidesTable(across, names, failures, absl::GetFlag(FLAGS_markdown)).c_str());
  int exit_code = 0;
  if (!json_path.empty()) {
    std::vector<std::string> side_objects;
    for (size_t k = 0; k < sides.size(); ++k) {
      side_objects.push_back(absl::StrCat("{\"name\": ", base::JsonString(sides[k].name),
                                          ", \"command\": ", base::JsonString(sides[k].command),
                                          ", \"libtorch\": ", LibTorchJson(sides[k]),
                                          ", \"results\": ", ResultsToJson(results[k].file), "}"));
    }
    const std::string json =
        absl::StrCat("{\"sides\": [", absl::StrJoin(side_objects, ",\n"),
                     "],\n\"cases\": ", AcrossSidesJson(across, names),
                     ",\n\"skipped_by_backtesting\": ", SkippedJson(skipped),
                     ", \"node_warnings\": ", base::JsonStringArray(node_warnings), "}\n");
    if (absl::Status s = base::WriteFileAtomically(json_path, json); !s.ok()) {
      return base::Fail(absl::StrCat(s.message(), " (the journals ", journal_base,
                                     ".S*.counts.journal keep every result)"));
    }
  }
  if (history->has_value()) {
    for (size_t k = 0; k < sides.size(); ++k) {
      if (absl::Status s = RecordHistory(**history, results[k].file, "ab_test --sides",
                                         sides[k].name, &sides[k].libtorch, json_path);
          !s.ok()) {
        std::fprintf(stderr, "ab_test: %s\n", std::string(s.message()).c_str());
        exit_code = 1;
      }
    }
  }
  for (size_t k = 0; k < sides.size(); ++k) {
    for (const auto& [key, reason] : failures[k]) {
      std::fprintf(stderr, "ab_test: %s failed in %s: %s\n", key.c_str(), sides[k].name.c_str(),
                   reason.c_str());
      exit_code = 1;
    }
  }
  std::vector<const SideRun*> finished;
  for (const SideRun& run : runs) finished.push_back(&run);
  RemoveJournals(finished, json_path, journal_base);
  return exit_code;
}

int Main(int argc, char** argv) {
  const std::vector<char*> positional = ParseToolFlags(
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
  if (absl::Status sides = MakeSides(*suite, a, b); !sides.ok()) return base::Fail(sides);
  const bool python = PythonCases({&a, &b});
  absl::StatusOr<std::vector<expand::SuiteCaseProto>> selected = SelectedCases(*suite, python);
  if (!selected.ok()) return base::Fail(selected.status());
  for (Side* side : {&a, &b}) {
    if (absl::Status status = ProbeLibTorch(*side); !status.ok()) return base::Fail(status);
    std::fprintf(stderr, "ab_test: %s runs LibTorch %s (from %s)\n", side->name.c_str(),
                 side->libtorch.version.c_str(), side->libtorch.source.c_str());
  }
  std::vector<expand::SuiteCaseProto> skipped;
  absl::StatusOr<std::vector<expand::SuiteCaseProto>> cases =
      CasesToRun(*selected, {&a, &b}, skipped);
  if (!cases.ok()) return base::Fail(cases.status());
  absl::StatusOr<expand::SuiteCaseProto> canary = ChooseCanary(*suite, python);
  if (!canary.ok()) return base::Fail(canary.status());
  if (absl::Status status = CheckCanaries({&a, &b}, *canary, !absl::GetFlag(FLAGS_no_counts));
      !status.ok()) {
    return base::Fail(status);
  }

  MeasureOptions measure;
  measure.wall_time = absl::GetFlag(FLAGS_display_time) || absl::GetFlag(FLAGS_no_counts);
  measure.instruction_counts = !absl::GetFlag(FLAGS_no_counts);
  measure.min_run_time = absl::GetFlag(FLAGS_min_run_time);
  measure.rehearse_torchscript = absl::GetFlag(FLAGS_rehearse_torchscript);
  const std::string json_path = absl::GetFlag(FLAGS_json);
  absl::StatusOr<std::string> journal_base_or = JournalBase(json_path);
  if (!journal_base_or.ok()) return base::Fail(journal_base_or.status());
  const std::string& journal_base = *journal_base_or;
  absl::StatusOr<std::optional<history::Store>> history = OpenHistoryFlag();
  if (!history.ok()) return base::Fail(history.status());
  SideRun a_run, b_run;
  const std::string start = NowRfc3339();
  if (absl::Status status = RunBothSides(a, b, *cases, measure, journal_base,
                                         absl::GetFlag(FLAGS_resume), a_run, b_run);
      !status.ok()) {
    ReportStopped(status, json_path, a_run, b_run);
    return 1;
  }
  SuiteResults a_results = CollectResults(*cases, a_run.orders, a_run.results, &a_run.rounds);
  SuiteResults b_results = CollectResults(*cases, b_run.orders, b_run.results, &b_run.rounds);
  const std::string end = NowRfc3339();
  for (SuiteResults* side : {&a_results, &b_results}) {
    side->file.start_time = start;
    side->file.end_time = end;
  }
  const std::map<std::string, TimeComparison> times = CompareTimes(*cases, a_run, b_run);
  // With --executor=slurm the sides' counts may come from different nodes.
  const std::vector<std::string> node_warnings =
      CountNodeWarnings(a_results.file, b_results.file, "A", "B");
  for (const std::string& warning : node_warnings) {
    std::fprintf(stderr, "ab_test: warning: %s\n", warning.c_str());
  }
  std::printf(
      "%s", RenderComparison(*cases, a, b, a_results, b_results, times, measure.wall_time).c_str());
  if (!json_path.empty()) {
    if (absl::Status s = base::WriteFileAtomically(
            json_path, ComparisonJson(a, b, a_results, b_results,
                                      ComparisonsJson(*cases, a_results, b_results, times),
                                      SummarizeSides(*cases, a_results, b_results, times), skipped,
                                      node_warnings));
        !s.ok()) {
      return base::Fail(absl::StrCat(s.message(), " (the journals ", journal_base,
                                     ".{A,B}.*.journal keep every result)"));
    }
  }
  int exit_code = a_results.file.failures.empty() && b_results.file.failures.empty() ? 0 : 1;
  if (history->has_value()) {
    for (const auto& [side, results] : {std::make_pair(&a, &a_results), {&b, &b_results}}) {
      if (absl::Status s =
              RecordHistory(**history, results->file, absl::StrCat("ab_test ", side->name),
                            side->name, &side->libtorch, json_path);
          !s.ok()) {
        std::fprintf(stderr, "ab_test: %s\n", std::string(s.message()).c_str());
        exit_code = 1;
      }
    }
  }
  ReportInput report;
  report.title = absl::StrCat("icount A/B: B (", b.command, ") against A (", a.command, ")");
  report.baseline = a_results.file;
  report.baseline_name = "A";
  report.current = b_results.file;
  report.current_name = "B";
  report.time_comparisons = times;
  if (history->has_value()) report.history = &**history;
  if (absl::Status s = WriteHtmlFlag(std::move(report)); !s.ok()) {
    std::fprintf(stderr, "ab_test: %s\n", std::string(s.message()).c_str());
    exit_code = 1;
  }
  for (const auto* side : {&a_results, &b_results}) {
    for (const auto& [key, reason] : side->file.failures) {
      std::fprintf(stderr, "ab_test: %s failed in %s: %s\n", key.c_str(),
                   side == &a_results ? "A" : "B", reason.c_str());
    }
  }
  RemoveJournals({&a_run, &b_run}, json_path, journal_base);
  return exit_code;
}

}  // namespace
}  // namespace icount

int main(int argc, char** argv) { return icount::Main(argc, argv); }
