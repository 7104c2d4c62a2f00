#include "worker/case_dumps.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "timer/callgrind_stats.h"
#include "worker/failure.h"

namespace icount::worker {

void CallgrindDumpsToProto(const timer::CallgrindDumpFiles& dumps, CallgrindDumpsProto& proto) {
  for (const std::string& dump : dumps.stmt_dumps) proto.add_stmt_dumps(dump);
  proto.set_baseline_dump(dumps.baseline_dump);
}

void AttachBaseline(const timer::CallgrindStatsProto& empty, timer::CallgrindStatsProto& stats) {
  stats.set_has_baseline(true);
  *stats.mutable_baseline_inclusive() = empty.stmt_inclusive();
  *stats.mutable_baseline_exclusive() = empty.stmt_exclusive();
}

void ParseCaseDumps(WorkerResultProto& result, const timer::ObjectNames& object_names) {
  if (!result.has_output() || !result.output().has_callgrind_dumps()) return;
  WorkerOutputProto& output = *result.mutable_output();
  const CallgrindDumpsProto dumps = std::move(*output.mutable_callgrind_dumps());
  output.clear_callgrind_dumps();
  timer::CallgrindDumpFiles files;
  files.stmt_dumps.assign(dumps.stmt_dumps().begin(), dumps.stmt_dumps().end());
  files.baseline_dump = dumps.baseline_dump();
  absl::StatusOr<std::vector<timer::CallgrindStats>> stats =
      timer::CallgrindStatsFromDumps(timer::TaskSpecFromProto(dumps.task_spec()),
                                     dumps.number_per_run(), files, /*keep_files=*/false,
                                     object_names);
  if (!stats.ok()) {
    WorkerResultProto failed =
        FailureResult(FAILURE_MEASURE, std::string(stats.status().message()));
    failed.set_id(result.id());
    failed.set_seconds(result.seconds());
    *failed.mutable_node() = result.node();
    result = std::move(failed);
    return;
  }
  for (const timer::CallgrindStats& repeat : *stats) {
    timer::CallgrindStatsProto* proto = output.add_callgrind();
    *proto = timer::CallgrindStatsToProto(repeat);
    if (dumps.has_shared_baseline()) AttachBaseline(dumps.shared_baseline(), *proto);
  }
}

}  // namespace icount::worker
