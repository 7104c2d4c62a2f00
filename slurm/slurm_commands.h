#ifndef ICOUNT_SLURM_SLURM_COMMANDS_H_
#define ICOUNT_SLURM_SLURM_COMMANDS_H_

// Slurm's command-line tools as the executor uses them (sbatch, squeue,
// scontrol, scancel, sinfo): commands in, parsed answers out. Slurm's own
// messages are passed on word for word, since they name what to fix (a
// partition, a constraint, an account).
//
//   ICOUNT_RETURN_IF_ERROR(CheckSlurmCommands());
//   SubmitRequest request;
//   request.script = "run/task.sh";
//   request.indices = {0, 1, 2, 3};
//   absl::StatusOr<std::string> job = SubmitArray(request);  // "41"
//   absl::StatusOr<std::vector<TaskState>> active = ActiveTasks({*job});

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace icount::slurm {

// NotFound naming the missing commands and the Debian package that has
// them when sbatch, squeue, scontrol, scancel or sinfo is not on PATH.
absl::Status CheckSlurmCommands();

struct SubmitRequest {
  std::string script;                    // the batch script
  std::vector<std::string> script_args;  // its arguments
  std::vector<int> indices;              // array task ids
  std::string job_name = "icount";
  std::string output;  // --output pattern ("%a": the array index); appended to
  std::string partition;
  std::string constraint;
  // Each task gets a node to itself (--exclusive): a shard is a local run
  // of its own, with every CPU, as on a developer's machine.
  bool exclusive = true;
};

// Submits one job array; returns its job id. When sbatch refuses (a bad
// partition or constraint, limits), the error carries sbatch's message and
// says that nothing was submitted.
absl::StatusOr<std::string> SubmitArray(const SubmitRequest& request);

// "0-3,5,7-8": Slurm's --array syntax for sorted, distinct indices.
std::string ArrayIndexList(std::vector<int> indices);

struct TaskState {
  std::string job_id;     // the array's job id
  int index = -1;         // the array task id
  std::string state;      // PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, ...
  std::string node;       // where it runs or ran; empty while pending
  std::string reason;     // why pending, or why it ended ("None" when nothing)
  std::string exit_code;  // "1:0" (exit code : signal); finished tasks only
};

// The tasks of these arrays that are still pending or running (squeue); an
// array whose tasks have all ended contributes none.
absl::StatusOr<std::vector<TaskState>> ActiveTasks(const std::vector<std::string>& job_ids);
// squeue -h -r -o '%F|%K|%T|%N|%r' output, one task a line.
std::vector<TaskState> ParseSqueue(const std::string& output);

// How an array task ended (scontrol show job), NotFound once Slurm has
// forgotten the job (MinJobAge after it ended).
absl::StatusOr<TaskState> EndedTask(const std::string& job_id, int index);
// One line of `scontrol -o show job` (Key=Value pairs).
TaskState ParseScontrolJob(const std::string& line);

// Cancels the arrays (scancel); already ended ones are fine.
absl::Status CancelJobs(const std::vector<std::string>& job_ids);

// The nodes in `partition` (the default partition when empty), from sinfo.
absl::StatusOr<int> PartitionNodeCount(const std::string& partition);

}  // namespace icount::slurm

#endif  // ICOUNT_SLURM_SLURM_COMMANDS_H_
