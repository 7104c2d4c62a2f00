#ifndef ICOUNT_TOOLS_EXECUTOR_H_
#define ICOUNT_TOOLS_EXECUTOR_H_

// Where the front ends (main, ci, ab_test) run their work orders:
// --executor=local (the runner on this machine, the default) or
// --executor=slurm (one Slurm job array; slurm/executor.h), with the Slurm
// flags --shared_dir, --shards, --slurm_partition, --slurm_constraint and
// --slurm_submissions. The flags live here, once, for every front end that
// links this library.
//
//   ICOUNT_RETURN_IF_ERROR(CheckExecutorFlags());      // before any work
//   absl::StatusOr<RunnerReport> report = ExecuteOrders(orders, options);
//   ... write the results file ...
//   RemoveRunState(orders, options);                   // journal or run directory

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "worker/runner.h"
#include "worker/worker.pb.h"

namespace icount::tools {

// The executor's flags, checked before anything runs: the --executor value,
// and for Slurm its commands on PATH, --shared_dir writable, the shard task
// binary in this tool's runfiles.
absl::Status CheckExecutorFlags();

// Whether --executor=slurm.
bool SlurmExecutorChosen();

// Runs the orders on the chosen executor. Locally, RunOrders with
// `options`; on Slurm, RunOnSlurm with `options`' worker, retries, timeout,
// command prefix, progress callback and resume (the journal path is then
// unused: the shards' journals are in the run directory).
absl::StatusOr<worker::RunnerReport> ExecuteOrders(
    const std::vector<worker::WorkOrderProto>& orders, const worker::RunnerOptions& options);

// Where a run keeps its finished results until the results file is
// written: the journal, or the Slurm run directory.
std::string RunStatePath(const std::vector<worker::WorkOrderProto>& orders,
                         const worker::RunnerOptions& options);

// What RemoveRunState removes: RunStatePath, and on Slurm the directory's
// note beside the journal (slurm::SlurmRunNotePath).
std::vector<std::string> RunStatePaths(const std::vector<worker::WorkOrderProto>& orders,
                                       const worker::RunnerOptions& options);

// Removes that state once the results are written.
void RemoveRunState(const std::vector<worker::WorkOrderProto>& orders,
                    const worker::RunnerOptions& options);

// For a run about to write `journal_path`, before the orders are known:
// whether an interrupted run of that output left something to --resume
// (its journal, or a Slurm run's note), ...
bool RunStateExists(const std::string& journal_path);
// ... and, for a run without --resume, an error when one did (AlreadyExists,
// saying to pass --resume) or another run writes it now (Unavailable,
// naming its pid).
absl::Status CheckNoOldRunState(const std::string& journal_path);

}  // namespace icount::tools

#endif  // ICOUNT_TOOLS_EXECUTOR_H_
