// //tools:ab_test: the same suite in two environments, side by side.
//
//   bazel run //tools:ab_test -- --A="source /opt/torch-main/env.sh"
//       --B="export LD_LIBRARY_PATH=/opt/torch-branch/lib" [--filter=REGEX] [--no_cpp]
//       [--A_worker=PATH] [--B_worker=PATH] [--backtesting] [--display_time] [--colorize]
//       [--markdown] [--json=out.json]
//
// Each side's workers start through `/bin/sh -c '<command> && exec "$@"'`,
// so a side can load another LibTorch (LD_LIBRARY_PATH, PYTHONPATH), preload
// a library, or use a worker built against it (--A_worker). Each side's
// worker first reports the LibTorch it runs on (worker/loaded_libtorch.h);
// with --backtesting, cases that declare a newer min_libtorch_version than
// either side has are skipped (and listed), so an old release can be
// compared with today's. A canary case then runs in each environment; a
// broken environment stops the run with its output. A and B then run at the
// same time (half the CPUs each), so their wall times share whatever the
// machine is doing. The output is a delta table of instructions per run (and
// wall time with --display_time), then, for the largest count changes, the
// functions that account for them.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <map>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/tool_flags.h"
#include "compare/delta_table.h"
#include "expand/libtorch_version.h"
#include "timer/function_counts.h"
#include "timer/internal/subprocess.h"
#include "timer/internal/text.h"
#include "tools/suite.h"
#include "worker/loaded_libtorch.h"

ABSL_FLAG(std::string, A, "", "Shell command setting up environment A (required).");
ABSL_FLAG(std::string, B, "", "Shell command setting up environment B (required).");
ABSL_FLAG(std::string, A_worker, "", "Worker binary for A; default: the suite's.");
ABSL_FLAG(std::string, B_worker, "", "Worker binary for B; default: the suite's.");
ABSL_FLAG(std::string, filter, "", "RE2 regex on labels: only matching cases.");
ABSL_FLAG(bool, backtesting, false,
          "Skip cases that declare a newer min_libtorch_version than A or B reports.");
ABSL_FLAG(bool, no_cpp, false, "Python cases only (e.g. when B's LibTorch has no C++ ABI match).");
ABSL_FLAG(bool, display_time, false, "Also measure and show wall time.");
ABSL_FLAG(bool, colorize, false, "ANSI colours in the table.");
ABSL_FLAG(bool, markdown, false, "Print the table as Markdown (for pull requests).");
ABSL_FLAG(int, top, 3, "Cases whose per-function deltas are shown.");
ABSL_FLAG(std::string, json, "", "Write both sides' results here ({\"A\": ..., \"B\": ...}).");

namespace icount {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "ab_test: %s\n", message.c_str());
  return 1;
}

std::vector<std::string> ShellPrefix(const std::string& command) {
  return {"/bin/sh", "-c", absl::StrCat(command, " && exec \"$@\""), "icount-env"};
}

struct Side {
  std::string name;
  std::string command;
  std::string worker;
  LibTorchVersionReport libtorch;  // as the side's worker reports it
  expand::LibTorchVersion libtorch_version;
};

// Asks the side's worker, started through the side's command, which
// LibTorch it runs on. Also the first sign of a broken environment.
absl::Status ProbeLibTorch(Side& side) {
  std::vector<std::string> argv = ShellPrefix(side.command);
  argv.push_back(side.worker);
  argv.push_back("--print_libtorch_version");
  absl::StatusOr<timer_internal::CommandResult> result = timer_internal::RunCommand(argv);
  if (!result.ok()) return result.status();
  std::optional<LibTorchVersionReport> report = FindLibTorchVersionLine(result->output);
  if (result->exit_code != 0 || !report.has_value()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "environment ", side.name, " (", side.command, ") is broken: its worker could not ",
        "report a LibTorch version (", timer_internal::DescribeExit(*result), "):\n",
        result->output));
  }
  absl::StatusOr<expand::LibTorchVersion> version =
      expand::ParseLibTorchVersion(report->version, expand::VersionSuffix::kIgnored);
  if (!version.ok()) {
    const bool declared = report->source == "ICOUNT_LIBTORCH_VERSION";
    return absl::FailedPreconditionError(absl::StrCat(
        "environment ", side.name, " reports an unreadable LibTorch version (from ",
        report->source, "): ", version.status().message(),
        declared ? "" : absl::StrCat("; declare the right one with `export ",
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
        return absl::InvalidArgumentError(absl::StrCat(
            c.list_line(), " (", c.definition_file(), ":", c.definition_line(),
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

absl::StatusOr<SuiteResults> RunSide(const Side& side, const Suite& suite,
                                     const std::vector<expand::SuiteCaseProto>& cases,
                                     const MeasureOptions& measure, int jobs) {
  const std::vector<worker::WorkOrderProto> orders = MakeOrders(suite, cases, measure);
  RunnerOptions options;
  options.worker_path = side.worker;
  options.jobs = jobs;
  options.command_prefix = ShellPrefix(side.command);
  options.journal_path = absl::StrCat("/tmp/icount-ab-", getpid(), "-", side.name, ".journal");
  options.retries = 0;
  absl::StatusOr<RunnerReport> report = RunOrders(orders, options);
  std::remove(options.journal_path.c_str());
  if (!report.ok()) return report.status();
  return CollectResults(cases, orders, report->results);
}

// A trivial case that must work in the environment before anything long
// starts: the first Python case of the suite, counted once.
absl::Status Canary(const Side& side, const Suite& suite, const expand::SuiteCaseProto& canary) {
  MeasureOptions measure;
  measure.wall_time = false;
  measure.callgrind_number = 1;
  absl::StatusOr<SuiteResults> results = RunSide(side, suite, {canary}, measure, 1);
  if (!results.ok()) return results.status();
  if (!results->failures.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "environment ", side.name, " (", side.command, ") is broken: the canary case failed:\n",
        results->failures.begin()->second));
  }
  return absl::OkStatus();
}

int Main(int argc, char** argv) {
  ParseToolFlags(argc, argv,
                 "Compares the suite's instruction counts in two environments.\n\nUsage: bazel "
                 "run //tools:ab_test -- --A=\"<shell command>\" --B=\"<shell command>\"");
  if (absl::GetFlag(FLAGS_A).empty() || absl::GetFlag(FLAGS_B).empty()) {
    return Fail("--A and --B are required (shell commands setting up each environment)");
  }
  absl::StatusOr<Suite> suite = LoadSuite("definitions", "full_suite");
  if (!suite.ok()) return Fail(std::string(suite.status().message()));
  auto worker = [&](const std::string& flag) {
    return flag.empty() ? suite->worker_path : flag;
  };
  Side a{"A", absl::GetFlag(FLAGS_A), worker(absl::GetFlag(FLAGS_A_worker)), {}, {}};
  Side b{"B", absl::GetFlag(FLAGS_B), worker(absl::GetFlag(FLAGS_B_worker)), {}, {}};
  for (const Side* side : {&a, &b}) {
    if (access(side->worker.c_str(), X_OK) != 0) {
      return Fail(absl::StrCat("--", side->name, "_worker=", side->worker,
                               " does not exist or is not executable"));
    }
  }
  CaseFilter filter;
  filter.label_regex = absl::GetFlag(FLAGS_filter);
  filter.cpp = !absl::GetFlag(FLAGS_no_cpp);
  absl::StatusOr<std::vector<expand::SuiteCaseProto>> selected = SelectCases(*suite, filter);
  if (!selected.ok()) return Fail(std::string(selected.status().message()));
  if (selected->empty()) return Fail("no case matches the filter");

  for (Side* side : {&a, &b}) {
    if (absl::Status status = ProbeLibTorch(*side); !status.ok()) {
      return Fail(std::string(status.message()));
    }
    std::fprintf(stderr, "ab_test: %s runs LibTorch %s (from %s)\n", side->name.c_str(),
                 side->libtorch.version.c_str(), side->libtorch.source.c_str());
  }
  const Side& older = a.libtorch_version < b.libtorch_version ? a : b;
  std::vector<expand::SuiteCaseProto> runnable, too_new;
  if (absl::Status status =
          SplitByMinLibTorch(*selected, older.libtorch_version, runnable, too_new);
      !status.ok()) {
    return Fail(std::string(status.message()));
  }
  const std::vector<expand::SuiteCaseProto>* cases = &*selected;
  if (!too_new.empty()) {
    const std::string why =
        absl::StrCat(too_new.size(), " of ", selected->size(), " cases ",
                     too_new.size() == 1 ? "needs" : "need", " a newer LibTorch than ", older.name,
                     "'s ", older.libtorch.version);
    if (absl::GetFlag(FLAGS_backtesting)) {
      std::fprintf(stderr, "ab_test: --backtesting: %s; skipped:\n", why.c_str());
      for (const expand::SuiteCaseProto& c : too_new) {
        std::fprintf(stderr, "  %s (needs %s)\n", c.list_line().c_str(),
                     c.min_libtorch_version().c_str());
      }
      if (runnable.empty()) return Fail("--backtesting leaves no case to run");
      cases = &runnable;
    } else {
      std::fprintf(stderr,
                   "ab_test: warning: %s (e.g. %s needs %s); they will likely fail there. "
                   "--backtesting skips them.\n",
                   why.c_str(), too_new[0].list_line().c_str(),
                   too_new[0].min_libtorch_version().c_str());
    }
  }

  // The canary: the suite's first Python case that runs on both sides.
  const expand::SuiteCaseProto* canary = nullptr;
  for (const expand::SuiteCaseProto& c : suite->manifest.cases()) {
    if (c.task_spec().language() == timer::PYTHON && c.min_libtorch_version().empty()) {
      canary = &c;
      break;
    }
  }
  if (canary == nullptr) {
    return Fail("the suite has no Python case without a min_libtorch_version to be the canary");
  }
  for (const Side* side : {&a, &b}) {
    std::fprintf(stderr, "ab_test: canary in %s...\n", side->name.c_str());
    if (absl::Status status = Canary(*side, *suite, *canary); !status.ok()) {
      return Fail(std::string(status.message()));
    }
  }
  MeasureOptions measure;
  measure.wall_time = absl::GetFlag(FLAGS_display_time);
  const int jobs = std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)) / 2);
  std::fprintf(stderr, "ab_test: %zu cases in A and B at once...\n", cases->size());
  auto run_a = std::async(std::launch::async, [&] { return RunSide(a, *suite, *cases, measure, jobs); });
  absl::StatusOr<SuiteResults> b_results = RunSide(b, *suite, *cases, measure, jobs);
  absl::StatusOr<SuiteResults> a_results = run_a.get();
  if (!a_results.ok()) return Fail(absl::StrCat("A: ", a_results.status().message()));
  if (!b_results.ok()) return Fail(absl::StrCat("B: ", b_results.status().message()));

  DeltaTable table(absl::StrCat("Instructions per run: A (LibTorch ", a.libtorch.version,
                                ") vs B (LibTorch ", b.libtorch.version, ")"),
                   BenchmarkColumns());
  std::map<std::string, const InstructionCounts*> a_counts, b_counts;
  for (const InstructionCounts& c : a_results->file.instruction_counts) a_counts[c.metadata.at("case")] = &c;
  for (const InstructionCounts& c : b_results->file.instruction_counts) b_counts[c.metadata.at("case")] = &c;
  std::map<std::string, const Measurement*> a_times, b_times;
  for (const Measurement& m : a_results->file.measurements) a_times[m.metadata().at("case")] = &m;
  for (const Measurement& m : b_results->file.measurements) b_times[m.metadata().at("case")] = &m;
  std::vector<std::pair<double, std::string>> changes;  // (|delta per run|, key)
  for (const expand::SuiteCaseProto& c : *cases) {
    DeltaKey key;
    key.label.assign(c.label().begin(), c.label().end());
    key.num_threads = c.task_spec().num_threads();
    key.autograd = c.autograd() == "Explicit" ? "" : c.autograd();
    key.column = DeltaColumn(c.task_spec().language() == timer::CPP ? Language::kCpp
                                                                    : Language::kPython,
                             c.runtime());
    DeltaValues& values = table.Entry(key);
    if (a_counts.count(c.key())) values.a_instructions = a_counts[c.key()]->counts_per_run;
    if (b_counts.count(c.key())) values.b_instructions = b_counts[c.key()]->counts_per_run;
    if (a_times.count(c.key())) values.a_time = *a_times[c.key()];
    if (b_times.count(c.key())) values.b_time = *b_times[c.key()];
    if (values.a_instructions && values.b_instructions) {
      changes.emplace_back(std::fabs(*values.b_instructions - *values.a_instructions), c.key());
    }
  }
  std::printf("%s\n", absl::GetFlag(FLAGS_markdown) ? table.RenderMarkdown().c_str()
                                                    : table.Render(absl::GetFlag(FLAGS_colorize)).c_str());
  std::sort(changes.rbegin(), changes.rend());
  for (int i = 0; i < absl::GetFlag(FLAGS_top) && i < static_cast<int>(changes.size()); ++i) {
    if (changes[i].first == 0) break;
    const InstructionCounts& before = *a_counts[changes[i].second];
    const InstructionCounts& after = *b_counts[changes[i].second];
    // Per-function change per run of the statement, B - A.
    FunctionCounts delta = (after.exclusive.Standardized() - before.exclusive.Standardized()) *
                           (1.0 / static_cast<double>(after.number_per_run));
    std::vector<FunctionCount> rows = delta.rows();
    std::sort(rows.begin(), rows.end(), [](const FunctionCount& x, const FunctionCount& y) {
      return std::llabs(x.count) > std::llabs(y.count);
    });
    rows.resize(std::min<size_t>(rows.size(), 10));
    std::printf("\n%s: %+.0f instructions per run; largest per-function changes (B - A, per run):\n%s\n",
                changes[i].second.c_str(), after.counts_per_run - before.counts_per_run,
                FunctionCounts(rows, false).Slice(0, rows.size()).ToString().c_str());
  }
  if (!absl::GetFlag(FLAGS_json).empty()) {
    using timer_internal::JsonString;
    std::vector<std::string> skipped;
    if (cases == &runnable) {
      for (const expand::SuiteCaseProto& c : too_new) skipped.push_back(JsonString(c.key()));
    }
    auto libtorch = [](const Side& side) {
      return absl::StrCat("{\"version\": ", JsonString(side.libtorch.version),
                          ", \"source\": ", JsonString(side.libtorch.source), "}");
    };
    const std::string json = absl::StrCat(
        "{\"A\": ", ResultsToJson(a_results->file), ", \"B\": ", ResultsToJson(b_results->file),
        ", \"libtorch\": {\"A\": ", libtorch(a), ", \"B\": ", libtorch(b),
        "}, \"skipped_by_backtesting\": [", absl::StrJoin(skipped, ", "), "]}\n");
    if (absl::Status s = WriteFileAtomically(absl::GetFlag(FLAGS_json), json); !s.ok()) {
      return Fail(std::string(s.message()));
    }
  }
  for (const auto* side : {&*a_results, &*b_results}) {
    for (const auto& [key, reason] : side->failures) {
      std::fprintf(stderr, "ab_test: %s failed in %s: %s\n", key.c_str(),
                   side == &*a_results ? "A" : "B", reason.c_str());
    }
  }
  return a_results->failures.empty() && b_results->failures.empty() ? 0 : 1;
}

}  // namespace
}  // namespace icount

int main(int argc, char** argv) { return icount::Main(argc, argv); }
