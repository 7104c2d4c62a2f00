#ifndef ICOUNT_TOOLS_AB_SIDES_H_
#define ICOUNT_TOOLS_AB_SIDES_H_

// The sides of //tools:ab_test: each an environment (a shell command) with
// its PyTorch, the suite built for that PyTorch, and the LibTorch its
// worker reports; the checks made before anything long runs; and the runs,
// journaled so that an interrupted run resumes.
//
//   Side a, b;  // name "A"/"B", command "source env_a/bin/activate", ...
//   ICOUNT_RETURN_IF_ERROR(SetUpSide(own_suite, "", "A_libtorch", "", a));
//   ICOUNT_RETURN_IF_ERROR(ProbeLibTorch(a));            // likewise for b
//   BothSidesOptions options;
//   options.journal_base = "ab.json";                    // --json
//   options.canary = canary;                             // ChooseCanary
//   SideRun a_run, b_run;
//   ICOUNT_RETURN_IF_ERROR(RunBothSides(a, b, cases, measure, options, a_run, b_run));
//   ... CollectResults(cases, a_run.orders, a_run.results, &a_run.rounds) ...
//   RemoveJournals({&a_run, &b_run}, "ab.json", options.journal_base);
//
// Messages on stderr start with "ab_test: ".

#include <functional>
#include <map>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compare/time_comparison.h"
#include "expand/libtorch_version.h"
#include "expand/suite.pb.h"
#include "tools/environment_suite.h"
#include "tools/suite.h"
#include "worker/libtorch_version_line.h"
#include "worker/runner.h"
#include "worker/worker.pb.h"

namespace icount::tools {

struct Side {
  std::string name;
  std::string command;
  EnvironmentSuite environment;            // its PyTorch, and the suite built for it
  worker::LibTorchVersionReport libtorch;  // as the side's worker reports it (ProbeLibTorch)
  expand::LibTorchVersion libtorch_version;

  const Suite& suite() const { return environment.suite; }
};

// `status` with the side's name in front of its message: "B: ...".
absl::Status SideError(const Side& side, const absl::Status& status);

// Where a side's PyTorch comes from besides its command; the flags name
// them in messages ("A_libtorch", "A_root").
struct SideSource {
  std::string libtorch_directory;  // a LibTorch directory
  std::string libtorch_flag;
  std::string root;  // a root filesystem (environment/root.h)
  std::string root_flag;
  std::string worker;  // --A_worker: a worker used as it is
};

// The side's PyTorch and suite (tools/environment_suite.h), found in the
// side's environment (inside its root, if it has one) or given by a
// LibTorch directory. With a worker (--A_worker), the suite's cases with
// that worker, used as it is.
absl::Status SetUpSide(const Suite& own_suite, const SideSource& source, Side& side);

// CheckEnvironmentSpec for the side SetUpSide would set up: run on every
// side before any is set up. With no_cpp, a LibTorch-directory side, which
// has no Python cases, is refused too:
//   "--no_cpp leaves the Python cases only, and --B_libtorch=/opt/lt has none ..."
absl::Status CheckSide(const SideSource& source, const Side& side, bool no_cpp);

// Asks the side's worker, started through the side's command, which
// LibTorch it runs on, and fills side.libtorch and side.libtorch_version.
// Also the first sign of a broken environment: FailedPrecondition with the
// worker's output.
absl::Status ProbeLibTorch(Side& side);

// Whether Python cases run: not when `no_python`, nor when a side's
// PyTorch has no torch package (a LibTorch directory). Then no side's
// workers import torch (the runner starts workers for C++ cases without
// it), which leaves C++ counts as they are. InvalidArgument when such a
// side meets `no_cpp`: nothing would be left to compare.
absl::StatusOr<bool> PythonCases(const std::vector<Side*>& sides, bool no_python, bool no_cpp);

// The selected cases every side runs. A case that declares a newer
// min_libtorch_version than the oldest side reports stays with a warning,
// or with `backtesting` goes to `skipped` instead.
absl::StatusOr<std::vector<expand::SuiteCaseProto>> CasesToRun(
    const std::vector<expand::SuiteCaseProto>& selected, const std::vector<const Side*>& sides,
    bool backtesting, std::vector<expand::SuiteCaseProto>& skipped);

// The canary: the suite's first Python case (C++ when `python` is false)
// without a min_libtorch_version that every side's worker was built with
// (not among a side's uncompiled cases).
absl::StatusOr<expand::SuiteCaseProto> ChooseCanary(const Suite& suite, bool python,
                                                    const std::vector<const Side*>& sides);

// Runs the canary in every side, as many sides at once as there are CPUs:
// counted once under valgrind when `counts`, timed briefly otherwise. The
// first broken side, in the sides' order, is the error, naming the side
// and its command.
absl::Status CheckCanaries(const std::vector<const Side*>& sides,
                           const expand::SuiteCaseProto& canary, bool counts, bool cache_sim);

// The runner's options for the side's workers: its worker, its command as
// the prefix, `jobs` workers, no retries (a case that crashes in an
// environment crashes again).
worker::RunnerOptions SideOptions(const Side& side, int jobs, std::string journal_path,
                                  bool cache_sim);

// Where a side keeps the results of one part of the run ("counts",
// TimeRoundPart(0), ...) until the results are written: "BASE.SIDE.PART.journal".
std::string JournalPath(const std::string& base, const std::string& side, const std::string& part);

// The base of a run's journal names. With --json, the file itself, so
// that --resume finds them next to it; without, "ab" in a new directory
// under $TMPDIR (base::MakeTemporaryDirectory) that RemoveJournals removes
// once the results are out.
absl::StatusOr<std::string> JournalBase(const std::string& json_path);

// The journal part of wall-time round `round`: "time-0", "time-1", ...
std::string TimeRoundPart(size_t round);

// How side k of --sides names its journals ("S1", "S2", ...): side names
// may hold any character.
std::string SideTag(size_t k);

// What one side has run so far: its orders and their results, in step,
// the wall-time round of each (-1 for counts), and where they are kept.
struct SideRun {
  std::vector<worker::WorkOrderProto> orders;
  std::vector<worker::WorkerResultProto> results;
  std::vector<int> rounds;
  std::vector<std::string> journals;
};

// A run that stopped: why, every journal (or Slurm run directory) that
// keeps the sides' finished results, and, when it was interrupted, how to
// continue it (--resume needs the --json, `json_path`).
void ReportStoppedRun(const absl::Status& status, const std::string& json_path,
                      const std::vector<const SideRun*>& runs);

// Once the results are out: the sides' journals (or Slurm run
// directories), and the directory JournalBase made when `json_path` is
// empty.
void RemoveJournals(const std::vector<const SideRun*>& runs, const std::string& json_path,
                    const std::string& journal_base);

// Runs `orders` and appends them and their results to `run`: counts
// (round -1) on the chosen executor (tools/executor.h), wall-time rounds
// always on this machine, so that both sides of a round are timed on one.
absl::Status RunInto(const std::vector<worker::WorkOrderProto>& orders,
                     const worker::RunnerOptions& options, SideRun& run, int round = -1);

// One progress line for the sides' runs ("ab_test: counts: A 3/14, B
// 2/14"), at most every 10 s of a run, and when a side finishes.
class SidesProgress {
 public:
  SidesProgress(std::vector<std::string> names, int orders_per_side);

  // The runner's progress callback for side `side`.
  std::function<void(const worker::RunnerProgress&)> For(int side);

 private:
  std::mutex mutex_;
  const std::vector<std::string> names_;
  std::vector<worker::RunnerProgress> sides_;
  // On one clock for all sides: a side that starts late (more sides than
  // CPUs) has its own elapsed time start late too.
  std::chrono::steady_clock::time_point next_report_ = std::chrono::steady_clock::now();
};

// Gives every wall-time order the block size that A's first round (round
// 0 in `a_run`) picked for its case; cases that round did not time keep
// picking their own.
void FixBlockSizes(const SideRun& a_run, std::vector<worker::WorkOrderProto>& time_orders);

// Counts `orders[k]` in side k's workers (RunInto, with side_options(k)),
// every side at once. With `canary`, each side counts it first (adding an
// order, counted once, that `runs` leaves out when the canary is not among
// the orders) and its failure is the side's error: "environment NAME
// (COMMAND) is broken: the canary case (...) failed: ...". The first side
// to fail stops the others (their finished results stay in their
// journals); the error is that side's, named ("NAME: ..."), the first in
// the sides' order when several fail on their own.
absl::Status CountSidesAtOnce(const std::vector<const Side*>& sides,
                              std::vector<std::vector<worker::WorkOrderProto>> orders,
                              const std::optional<expand::SuiteCaseProto>& canary,
                              const MeasureOptions& measure,
                              const std::function<worker::RunnerOptions(size_t)>& side_options,
                              const std::vector<SideRun*>& runs);

struct BothSidesOptions {
  std::string journal_base;  // JournalBase
  bool resume = false;       // continue from the journals
  int time_rounds = 6;       // paired wall-time rounds, at least 1
  bool cache_sim = false;    // estimated cycles with the counts
  // The canary (ChooseCanary), counted first on each side, in the workers
  // that count the rest: its failure stops both sides at once, saying
  // that the side is broken, instead of each side paying a worker's start
  // under valgrind for CheckCanaries. Counts on this machine only (the
  // runner checks the results; a Slurm run does not): unset, the caller
  // ran CheckCanaries.
  std::optional<expand::SuiteCaseProto> canary;
};

// Runs the cases in A and in B: instruction counts at once (half the CPUs
// each: counts do not depend on what runs beside them), then wall time in
// paired rounds, every round timing every case on one side and then on
// the other (A B, then B A, ...), each on the whole machine. An error
// names the side.
absl::Status RunBothSides(const Side& a, const Side& b,
                          const std::vector<expand::SuiteCaseProto>& cases,
                          const MeasureOptions& measure, const BothSidesOptions& options,
                          SideRun& a_run, SideRun& b_run);

// Each case's wall time on each side per round (the median seconds per
// run), paired by round: rounds that one side did not finish are left out;
// an unreadable measurement is NaN.
std::map<std::string, compare::PairedRounds> PairRounds(const SideRun& a_run, const SideRun& b_run);

// The verdict on each case's wall time, by case key (cases timed on both
// sides only), from one correction over all of them (CompareWallTimes).
std::map<std::string, compare::TimeComparison> CompareTimes(
    const std::vector<expand::SuiteCaseProto>& cases, const SideRun& a_run, const SideRun& b_run);

}  // namespace icount::tools

#endif  // ICOUNT_TOOLS_AB_SIDES_H_
