// //slurm:shard_task: one Slurm array task of icount's Slurm executor. Runs
// the work orders of a shard task file (slurm/shard_task.proto) with the
// local runner on this node, every finished result appended to the
// shard's journal in the shared directory; a resubmitted task resumes that
// journal. Progress and errors go to stderr (the task's Slurm log).
//
//   shard_task /shared/icount/icount-run-.../shard_3.task
//
// Exit codes: 0 when every order has a result (failed cases included: they
// are results), 1 when the runner could not run (no worker binary, no
// valgrind, the journal held by another task), 2 on bad usage.
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "base/files.h"
#include "slurm/shard_task.pb.h"
#include "slurm/shard_task_options.h"
#include "worker/progress.h"
#include "worker/runner.h"

namespace icount::slurm {
namespace {

std::string Hostname() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

int Main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SHARD_TASK_FILE\n", argv[0]);
    return 2;
  }
  absl::StatusOr<std::string> bytes = base::ReadFileToString(argv[1]);
  ShardTaskProto task;
  if (!bytes.ok() || !task.ParseFromString(*bytes)) {
    std::fprintf(stderr, "shard_task: %s\n",
                 bytes.ok() ? (std::string(argv[1]) + ": not a shard task file").c_str()
                            : std::string(bytes.status().message()).c_str());
    return 2;
  }
  std::fprintf(stderr, "shard_task: shard %d of %d, %d orders, on %s; journal %s\n", task.shard(),
               task.shards(), task.orders_size(), Hostname().c_str(), task.journal_path().c_str());
  worker::RunnerOptions options = RunnerOptionsOf(task);
  worker::ProgressLog log;
  options.on_progress = [&log](const worker::RunnerProgress& progress) {
    if (std::optional<std::string> line = log.Line(progress)) {
      std::fprintf(stderr, "shard_task: %s\n", line->c_str());
    }
  };
  const std::vector<worker::WorkOrderProto> orders(task.orders().begin(), task.orders().end());
  absl::StatusOr<worker::RunnerReport> report = worker::RunOrders(orders, options);
  if (!report.ok()) {
    std::fprintf(stderr, "shard_task: shard %d on %s: %s\n", task.shard(), Hostname().c_str(),
                 std::string(report.status().message()).c_str());
    return 1;
  }
  int failed = 0;
  for (const worker::WorkerResultProto& result : report->results) failed += result.has_failure();
  std::fprintf(stderr, "shard_task: shard %d done: %zu results (%d failed, %d resumed)\n",
               task.shard(), report->results.size(), failed, report->resumed);
  return 0;
}

}  // namespace
}  // namespace icount::slurm

int main(int argc, char** argv) { return icount::slurm::Main(argc, argv); }
