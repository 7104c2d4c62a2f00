// What a shard task file carries of the runner's options, both ways: the
// executor writes a side's RunnerOptions into each shard task, and the
// array task on its node runs the shard with the same options, so a node
// runs workers as the submitting tool would (a root's launcher, the
// environment's command prefix, the cases its worker was built without).
//
//   ShardTaskProto task;
//   WriteRunnerOptions(runner, task);              // //slurm:executor
//   worker::RunnerOptions options = RunnerOptionsOf(task);  // on the node
//
// The callbacks (on_progress, check_result, ...) stay with each process.
#ifndef ICOUNT_SLURM_SHARD_TASK_OPTIONS_H_
#define ICOUNT_SLURM_SHARD_TASK_OPTIONS_H_

#include "slurm/shard_task.pb.h"
#include "worker/runner.h"

namespace icount::slurm {

// Copies the runner's settings (not its journal path or callbacks) into
// `task`.
void WriteRunnerOptions(const worker::RunnerOptions& runner, ShardTaskProto& task);

// The settings WriteRunnerOptions wrote, with the task's journal, resumed
// when a task is resubmitted.
worker::RunnerOptions RunnerOptionsOf(const ShardTaskProto& task);

}  // namespace icount::slurm

#endif  // ICOUNT_SLURM_SHARD_TASK_OPTIONS_H_
