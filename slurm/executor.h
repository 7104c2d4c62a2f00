#ifndef ICOUNT_SLURM_EXECUTOR_H_
#define ICOUNT_SLURM_EXECUTOR_H_

// Runs work orders as one Slurm job array: the orders are split into shards
// balanced by expected time, each array task runs its shard with the local
// runner on a node of its own (//slurm:shard_task), and the driver merges
// what the tasks' journals hold into one RunnerReport, in the form RunOrders
// returns, so the front ends write the same results file as a local run.
//
//   SlurmOptions slurm;
//   slurm.shared_dir = "/shared/icount";  // every node reads and writes it
//   slurm.shard_task_path = "<runfiles>/icount/slurm/shard_task";
//   slurm.shards = 8;
//   RunnerOptions runner;  // worker_path, retries, timeout, command_prefix,
//                          // on_progress and resume are used
//   absl::StatusOr<RunnerReport> report = RunOnSlurm(orders, runner, slurm);
//
// The shared directory holds a run directory per set of orders
// (SlurmRunDirectory): shard_K.task (what task K runs), shard_K.journal
// (its finished results, written as it goes), shard_K.log (its output over
// every submission) and `jobs` (the arrays submitted). Everything a
// finished order produced is in a journal, so nothing is lost when a task,
// a node or the driver dies:
// - a task that ends with orders unfinished (failed, cancelled, node lost,
//   time limit) is resubmitted, resuming its journal, up to
//   max_submissions in all; after that its unfinished orders are failures
//   carrying Slurm's state and the tail of the task's log, and the other
//   shards are merged as usual;
// - Ctrl-C cancels the arrays; `resume` (the front ends' --resume) reads
//   the run directory back, waits for tasks still queued or running (a
//   driver killed outright leaves them running) and submits only the shards
//   with orders that have no result.
// The caller removes the run directory (RemoveSlurmRun) once it has
// written the results.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "worker/runner.h"
#include "worker/worker.pb.h"

namespace icount::slurm {

struct SlurmOptions {
  // A directory every node sees at this path, writable by the tasks.
  std::string shared_dir;
  // Array tasks; 0: one per node of the partition. Never more than orders.
  int shards = 0;
  std::string partition;   // sbatch --partition; empty: the default one
  std::string constraint;  // sbatch --constraint (node features)
  // The //slurm:shard_task binary, at a path every node sees.
  std::string shard_task_path;
  // Submissions of one shard before its unfinished orders are given up.
  int max_submissions = 3;
  // How often squeue is asked.
  double poll_seconds = 2;
  // How long squeue may fail in a row (a controller restarting, or a backup
  // controller taking over: Slurm's SlurmctldTimeout is 120 s by default)
  // before the driver stops waiting; the tasks go on, and `resume` waits
  // for them again.
  double query_patience_seconds = 300;
};

// What can be checked before anything is submitted: Slurm's commands on
// PATH, the shared directory (exists, a directory, writable), the shard
// task binary, the shard count.
absl::Status CheckSlurmOptions(const SlurmOptions& slurm);

// Where a run of `orders` with these runner options keeps its state under
// shared_dir: the same orders, worker, command prefix and journal give the
// same directory, which is how --resume finds it.
std::string SlurmRunDirectory(const std::vector<worker::WorkOrderProto>& orders,
                              const worker::RunnerOptions& runner, const SlurmOptions& slurm);

absl::StatusOr<worker::RunnerReport> RunOnSlurm(const std::vector<worker::WorkOrderProto>& orders,
                                                const worker::RunnerOptions& runner,
                                                const SlurmOptions& slurm);

// Where a driver notes the run directory it made, beside the journal a
// local run would write (RunnerOptions::journal_path): "<journal>.slurm",
// holding the directory's path. A tool finds an interrupted Slurm run of
// its output there before it knows the orders (--resume, or a refusal to
// start over it).
std::string SlurmRunNotePath(const std::string& journal_path);

// Removes a finished run's directory (tasks' journals and logs) and its
// note.
void RemoveSlurmRun(const std::vector<worker::WorkOrderProto>& orders,
                    const worker::RunnerOptions& runner, const SlurmOptions& slurm);

}  // namespace icount::slurm

#endif  // ICOUNT_SLURM_EXECUTOR_H_
