#ifndef ICOUNT_SLURM_TASK_LOG_H_
#define ICOUNT_SLURM_TASK_LOG_H_

// What a given-up Slurm task's log says: its last lines, or, where it has
// none, why that most often is.
//
//   std::string end = TaskLogEnd("/shared/icount-run-1a2b/shard_0.log", 15, "/shared", "node7");
//   // the log's last 15 lines; for an empty or missing log:
//   // "(/shared/icount-run-1a2b/shard_0.log is empty or missing: the task wrote nothing
//   //  into --shared_dir=/shared. Is it mounted at that path on node7? ...)"

#include <string>

namespace icount::slurm {

// The last `lines` lines of the task's log at `path`. A log that is empty
// or missing names --shared_dir=`shared_dir` and the node the task ran on
// (`node`, empty when Slurm did not say): Slurm opens a task's log before
// the task starts, so a task without one most often ran where the shared
// directory is not mounted at the same path.
std::string TaskLogEnd(const std::string& path, int lines, const std::string& shared_dir,
                       const std::string& node);

}  // namespace icount::slurm

#endif  // ICOUNT_SLURM_TASK_LOG_H_
