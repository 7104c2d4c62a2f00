#ifndef ICOUNT_TOOLS_SUITE_H_
#define ICOUNT_TOOLS_SUITE_H_

// What the front ends share: loading a suite built by icount_suite(),
// choosing cases, turning them into work orders, and turning results back
// into Measurements and InstructionCounts.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/timestamp.h"
#include "expand/suite.pb.h"
#include "timer/measurement_io.h"
#include "worker/runner.h"
#include "worker/worker.pb.h"

namespace icount::tools {

struct Suite {
  expand::SuiteManifestProto manifest;
  std::string worker_path;
  std::string artifacts_directory;
};

// A suite's manifest (<bin>/<package>/<name>_sources_manifest.pb).
absl::StatusOr<expand::SuiteManifestProto> ReadSuiteManifest(const std::string& path);

// The suite `name` built in package `package` (runfiles
// "icount/<package>/<name>_..."), e.g. LoadSuite("definitions", "full_suite").
absl::StatusOr<Suite> LoadSuite(const std::string& package, const std::string& name);

// The same suite from a Bazel output tree (bazel-bin) instead of runfiles,
// e.g. one built for another LibTorch (tools/environment_suite.h).
absl::StatusOr<Suite> LoadSuiteFromDirectory(const std::string& bin_directory,
                                             const std::string& package, const std::string& name);

struct CaseFilter {
  std::string label_regex;  // RE2, searched in "A / B / C"; empty: all
  bool cpp = true;
  bool python = true;
};
// The cases the filter selects, in suite order. An error names the flag when
// the regex is invalid or nothing is left to run (a run of no cases, or a CI
// gate passed on nothing, is never what was meant).
absl::StatusOr<std::vector<expand::SuiteCaseProto>> SelectCases(const Suite& suite,
                                                                const CaseFilter& filter);

struct MeasureOptions {
  bool wall_time = true;
  double min_run_time = 0.05;
  bool instruction_counts = true;
  int64_t callgrind_number = 100;
  int callgrind_repeats = 1;
  // Each count order measures its own baseline (WorkOrderProto's
  // baseline_per_case) instead of sharing the worker's.
  bool baseline_per_case = false;
  // Each count order is measured in a template forked from its case
  // process (WorkOrderProto's template_per_case), as before worker 0.9.
  bool template_per_case = false;
  // TorchScript cases fork from a zygote that first loaded and ran
  // icount's rehearsal model (WorkOrderProto's torchscript_rehearsal):
  // much cheaper under valgrind, counts from another history.
  bool rehearse_torchscript = false;
};
// The help of main's, ci's, ab_test's and timeit's --cache_sim.
inline constexpr char kCacheSimHelp[] =
    "Also estimates cycles per run from callgrind's simulation of a fixed cache (32 KiB L1s, "
    "8 MiB last level).";
// The help of main's, ci's and ab_test's --rehearse_torchscript.
inline constexpr char kRehearseTorchScriptHelp[] =
    "Forks TorchScript cases from a zygote that already ran a built-in model: counting is faster, "
    "but their counts differ from a run without it.";

// An error naming the flag (--min_run_time, --callgrind_number, --repeats)
// whose value is out of range.
absl::Status CheckMeasureOptions(const MeasureOptions& options);

// One order per case and measurement kind, each with its case_key; ids
// (unique, for the journal) are "<case key>#counts" and "<case key>#time".
std::vector<worker::WorkOrderProto> MakeOrders(const Suite& suite,
                                               const std::vector<expand::SuiteCaseProto>& cases,
                                               const MeasureOptions& options);

// Where a case goes in the suite's tables; every table (the counts table,
// Compare's tables of a results file, the A/B delta table) places cases by
// this one mapping: a row per benchmark, a column per language and runtime.
struct CasePlace {
  std::vector<std::string> label;  // {"Pointwise", "Math", "add"}
  int num_threads = 1;
  // "Forward", "Forward + Backward"; "" for explicit cases.
  std::string autograd;
  // "Python Eager", "C++ TorchScript", ...; the language alone for
  // explicit cases ("C++").
  std::string column;
  // The label text, with " (fwd+bwd)" for backward variants.
  std::string row;
  // The label without its first part (the table), with " (fwd+bwd)" for
  // backward variants: the sub label of results files.
  std::string sub_label;
};
CasePlace PlaceCase(const expand::SuiteCaseProto& c);

// The suite's columns in reading order: Python before C++, eager before
// TorchScript (for DeltaTable's column_order, so that columns do not depend
// on which case came first).
std::vector<std::string> SuiteColumns();

// The identity of a selection of cases (a hash of their keys), which
// results files carry as suite_checksum: shards of one suite share it, and
// the gate warns when a baseline's differs.
std::string SuiteChecksum(const std::vector<expand::SuiteCaseProto>& cases);

struct SuiteResults {
  timer::ResultsFile file;                             // measurements, counts and failures
  std::map<std::string, double> counts_per_run;        // case key -> instructions
  std::map<std::string, double> allocations_per_run;   // case key -> heap allocations
  std::map<std::string, double> cycles_per_run;        // case key -> estimated cycles
  std::map<std::string, std::vector<int64_t>> counts;  // case key -> totals
};

// How a results file states case `c`'s failed `result`: the failure's kind
// and reason, then where the case is defined and its statement, e.g.
// "measure: ValueError: ...\n    at definitions/standard.cc:37, stmt: ...".
std::string CaseFailureText(const expand::SuiteCaseProto& c,
                            const worker::WorkerResultProto& result);

// Labels results so that Compare shows one table per top-level group, a
// row per case and a column per language and runtime. The results file
// records the library versions and the machine.
// `rounds`, when given, is each order's wall-time round (ab_test's paired
// rounds; -1 for none): measurements then carry it as metadata "round".
SuiteResults CollectResults(const std::vector<expand::SuiteCaseProto>& cases,
                            const std::vector<worker::WorkOrderProto>& orders,
                            const std::vector<worker::WorkerResultProto>& results,
                            const std::vector<int>* rounds = nullptr);

// Runs `orders` with `run` (RunOrders, or the executor's ExecuteOrders,
// tools/executor.h) and a progress display on stderr (a live bar on a
// terminal, plain lines otherwise).
using OrderRunner = std::function<absl::StatusOr<worker::RunnerReport>(
    const std::vector<worker::WorkOrderProto>&, const worker::RunnerOptions&)>;
absl::StatusOr<worker::RunnerReport> RunWithProgress(
    const std::vector<worker::WorkOrderProto>& orders, worker::RunnerOptions options,
    const OrderRunner& run = worker::RunOrders);

// An aligned text table of per-run instruction counts, its rows and
// columns as PlaceCase places cases, one block per thread count.
std::string CountsTable(const std::vector<expand::SuiteCaseProto>& cases,
                        const SuiteResults& results);
// The same for heap allocations per run (HeapCalls, timer/callgrind_stats.h);
// "" when no case has them.
std::string AllocationsTable(const std::vector<expand::SuiteCaseProto>& cases,
                             const SuiteResults& results);
// And for estimated cycles per run (--cache_sim); "" when no case has them.
std::string CyclesTable(const std::vector<expand::SuiteCaseProto>& cases,
                        const SuiteResults& results);

// The settings in force, for ResultsFile::settings: for counts valgrind's
// version and options and where baselines were measured; for wall time
// "wall_time_disturbances" (WallTimeDisturbances, "none found" when none).
std::map<std::string, std::string> RunSettings(const std::vector<worker::WorkOrderProto>& orders);

// The settings of counts that valgrind takes in this process's environment:
// "valgrind" (its version, asked once per process), "valgrind_options"
// (timer::CallgrindToolOptions) and, with cache_sim, timer::kCacheModelSetting.
void AddCallgrindSettings(bool cache_sim, std::map<std::string, std::string>& settings);

// The setting of wall times: WallTimeDisturbances of this machine (asked once
// per process), "; "-joined, or "none found".
inline constexpr char kWallTimeDisturbancesSetting[] = "wall_time_disturbances";
std::string WallTimeDisturbancesSetting();

// What on this machine is known to disturb wall time, one sentence each;
// empty when nothing is found: DAMON monitors that are on (a kdamond
// monitoring memory slows some measurements by half or more; see
// docs/wall_time.md). `sysfs` is /sys (a test gives a
// stand-in).
std::vector<std::string> WallTimeDisturbances(const std::string& sysfs = "/sys");
// RFC 3339 UTC timestamp of now (base/timestamp.h).
using base::NowRfc3339;

}  // namespace icount::tools

#endif  // ICOUNT_TOOLS_SUITE_H_
