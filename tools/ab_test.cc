// //tools:ab_test: the same suite in two environments, side by side.
//
//   bazel run //tools:ab_test -- --A="source /opt/torch-main/env.sh"
//       --B="export LD_LIBRARY_PATH=/opt/torch-branch/lib" [--filter=REGEX] [--no_cpp]
//       [--A_worker=PATH] [--B_worker=PATH] [--display_time] [--colorize] [--markdown]
//       [--json=out.json]
//
// Each side's workers start through `/bin/sh -c '<command> && exec "$@"'`,
// so a side can load another LibTorch (LD_LIBRARY_PATH, PYTHONPATH), preload
// a library, or use a worker built against it (--A_worker). A canary case
// runs first in each environment; a broken environment stops the run with
// its output. A and B then run at the same time (half the CPUs each), so
// their wall times share whatever the machine is doing. The output is a
// delta table of instructions per run (and wall time with --display_time),
// then, for the largest count changes, the functions that account for them.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <map>
#include <string>
#include <unistd.h>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compare/delta_table.h"
#include "timer/function_counts.h"
#include "tools/suite.h"
#include "tools/versions.h"

ABSL_FLAG(std::string, A, "", "Shell command setting up environment A (required).");
ABSL_FLAG(std::string, B, "", "Shell command setting up environment B (required).");
ABSL_FLAG(std::string, A_worker, "", "Worker binary for A; default: the suite's.");
ABSL_FLAG(std::string, B_worker, "", "Worker binary for B; default: the suite's.");
ABSL_FLAG(std::string, filter, "", "RE2 regex on labels: only matching cases.");
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
  SuiteResults results;
};

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
  Side a{"A", absl::GetFlag(FLAGS_A),
         absl::GetFlag(FLAGS_A_worker).empty() ? suite->worker_path : absl::GetFlag(FLAGS_A_worker), {}};
  Side b{"B", absl::GetFlag(FLAGS_B),
         absl::GetFlag(FLAGS_B_worker).empty() ? suite->worker_path : absl::GetFlag(FLAGS_B_worker), {}};
  for (const Side* side : {&a, &b}) {
    if (access(side->worker.c_str(), X_OK) != 0) {
      return Fail(absl::StrCat("--", side->name, "_worker=", side->worker,
                               " does not exist or is not executable"));
    }
  }
  CaseFilter filter;
  filter.label_regex = absl::GetFlag(FLAGS_filter);
  filter.cpp = !absl::GetFlag(FLAGS_no_cpp);
  absl::StatusOr<std::vector<expand::SuiteCaseProto>> cases = SelectCases(*suite, filter);
  if (!cases.ok()) return Fail(std::string(cases.status().message()));
  if (cases->empty()) return Fail("no case matches the filter");
  const expand::SuiteCaseProto* canary = nullptr;
  for (const expand::SuiteCaseProto& c : suite->manifest.cases()) {
    if (c.task_spec().language() == timer::PYTHON) {
      canary = &c;
      break;
    }
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

  DeltaTable table("Instructions per run: A vs B", BenchmarkColumns());
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
    const std::string json = absl::StrCat("{\"A\": ", ResultsToJson(a_results->file), ", \"B\": ",
                                          ResultsToJson(b_results->file), "}\n");
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
