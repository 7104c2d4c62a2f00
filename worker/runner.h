#ifndef ICOUNT_WORKER_RUNNER_H_
#define ICOUNT_WORKER_RUNNER_H_

// The runner: schedules work orders over a pool of worker processes sized to
// the machine, and keeps every finished result on disk as it arrives.
//
//   RunnerOptions options;
//   options.worker_path = "bazel-bin/worker/worker";
//   options.journal_path = "results.journal";
//   absl::StatusOr<RunnerReport> report = RunOrders(orders, options);
//
// Phases: instruction-count orders first, on up to `jobs` workers under
// valgrind (each pays LibTorch's start-up under valgrind once, then forks
// per case, so a small run counts in fewer workers than it has CPUs);
// then wall-time orders on native workers, one per CPU and pinned to it, so
// no two wall-time measurements, and no valgrind process, share a core.
// Orders with num_threads > 1 are timed last, alone, on that many CPUs.
// The wall-time workers start while the last counts finish (each valgrind
// worker left with nothing to do makes way for one) and measure only once
// the counts are all done; a wall-time phase's own end is waited for.
//
// Durability: the journal (JSON lines: a header, then one
// WorkerResultProto per finished order, each appended with one write and
// fsync) survives crashes and Ctrl-C; RunOrders with `resume` skips the
// orders it already holds (a last line cut off by a crash mid-write is
// dropped and its order rerun). One run writes a journal at a time: a
// second run on the same journal is refused, naming the first's pid. On SIGINT every worker's
// process group is killed (no orphaned valgrind) and RunOrders returns Cancelled with how to
// resume.
//
// Failures: a case that throws, crashes or hangs is a result with a
// WorkerFailureProto; crashes, timeouts and lost workers are retried
// (`retries`), exceptions are not (they would fail again).

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "worker/internal/journal.h"
#include "worker/progress.h"
#include "worker/worker.pb.h"

namespace icount::worker {

struct RunnerOptions {
  std::string worker_path;
  // Worker processes per phase. 0: one wall-time worker per CPU available,
  // and as many count workers as the counting keeps busy for a start-up
  // each (CountWorkersFor in worker/order_cost.h), up to one per CPU.
  int jobs = 0;
  std::string journal_path;
  bool resume = false;
  // What an interrupted run's message tells the user to do next (after the
  // journal it names); empty: nothing.
  std::string how_to_continue = "run the same command with --resume to continue";
  int retries = 1;
  // Default per-order timeout when an order has none.
  double timeout_seconds = 300;
  // Sets up the environment workers run in, e.g. {"/bin/bash", "-c",
  // "source env.sh && exec \"$@\"", "icount-env"} (ab_test's sides, --env):
  // run before each worker starts, which then starts directly in the
  // environment it left (its exported variables; not its other effects,
  // such as a `cd`).
  std::vector<std::string> command_prefix;
  // Runs every worker through this command prefix, which execs the
  // worker's command line (valgrind's included) as given, keeping its pid,
  // environment and file descriptors: a root side's enter_root ... --
  // (environment/root.h), so that workers run on the root's libraries,
  // Python and valgrind. command_prefix then runs there too. Empty: none.
  std::vector<std::string> launcher;
  // What the count workers' valgrind says of itself ("valgrind-3.24.0"),
  // recorded with every count; empty: the valgrind this process finds
  // (timer::ValgrindVersionOnce), which a launcher may replace.
  std::string valgrind_version;
  // Workers of a phase with Python cases import torch into their embedded
  // Python before the first case (so Python cases share that cost); a
  // phase of C++ cases only never does. false: never (--python=false), for
  // runs beside a LibTorch without a torch package, whose workers cannot.
  // C++ counts are the same either way (WorkerOptions::python).
  bool python = true;
  // C++ cases the worker was built without because they do not compile
  // against its LibTorch, by compiled_case key, each with the compiler's
  // first error: their orders are journaled as FAILURE_COMPILE results
  // without running, and every other order runs.
  std::map<std::string, std::string> uncompiled_cases;
  // Count workers simulate caches too (timer/cache_model.h): counts carry
  // estimated cycles; counting takes ~20% longer.
  bool cache_sim = false;
  // Called for each finished result and at least once a second.
  std::function<void(const RunnerProgress&)> on_progress;
  // Called with each finished result once it is in the journal, before
  // on_progress counts it; an error stops the run (every worker stopped)
  // and RunOrders returns it, saying where the finished results are kept.
  // Orders are handed out in the order given, so a check on the first
  // order (ab_test's canary, a case that must work before the rest is
  // worth running) stops a broken environment's run in the time of one
  // case.
  std::function<absl::Status(const WorkOrderProto&, const WorkerResultProto&)> check_result;
  // Asked at least once a second; once it returns true the run stops as
  // on an interrupt (every worker stopped, finished results kept) and
  // RunOrders returns Cancelled. For runs side by side, one of which
  // failed.
  std::function<bool()> stop_requested;
};

struct RunnerReport {
  // One result per order (resumed ones included), in order of `orders`.
  std::vector<WorkerResultProto> results;
  int resumed = 0;  // results taken from the journal
  // The journal ended in a line cut off mid-write (the earlier run died
  // appending it): it was dropped and its order ran again.
  bool dropped_cut_off_line = false;
};

// Each order must ask for exactly one of wall_time and callgrind (make two
// orders with different ids for both) and have a unique id.
absl::StatusOr<RunnerReport> RunOrders(const std::vector<WorkOrderProto>& orders,
                                       const RunnerOptions& options);

// Held by the one run that writes an output's journal: RunOrders holds it,
// and so does an executor that runs the orders elsewhere (slurm's), so that
// a second run on the same output is refused alike, naming the first one's
// pid:
//
//   ICOUNT_ASSIGN_OR_RETURN(RunOutputLock lock, RunOutputLock::Acquire(journal_path));
using RunOutputLock = internal::JournalLock;

// Unavailable, naming its pid, when another run is writing `journal_path`;
// AlreadyExists, saying to pass --resume or remove it, when the journal is
// left from an earlier run: what RunOrders says without `resume`, for
// callers that want to say it before any long work starts.
absl::Status CheckNoOldJournal(const std::string& journal_path);

// The results in a journal, keyed as written; a clear error (file and line)
// when it is corrupt. Never modifies the file.
absl::StatusOr<std::vector<WorkerResultProto>> ReadJournal(const std::string& path);

}  // namespace icount::worker

#endif  // ICOUNT_WORKER_RUNNER_H_
