#include "worker/worker.h"

#include <sys/stat.h>
#include <valgrind/valgrind.h>

#include <cerrno>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/machine.h"
#include "base/phase_log.h"
#include "timer/timer.h"
#include "worker/case_dumps.h"
#include "worker/failure.h"
#include "worker/framing.h"
#include "worker/internal/case_process.h"
#include "worker/internal/zygotes.h"
#include "worker/loaded_libtorch.h"

namespace icount::worker {
namespace {

using internal::CallgrindNumber;
using internal::EndZygotes;
using internal::ForkZygotes;
using internal::LanguageZygotes;
using internal::ZygoteChannel;

// Instruction counts subtract a baseline, the same loop around an empty
// statement, whose count depends on the language, the number of runs and
// the thread count but not on the statement: the worker measures it once
// per such key, in a case process of its own forked from the zygote like
// any case, and attaches it to each order's counts. Measured per case
// instead (a second template and repeat in every case process), it cost a
// fifth of a case's time.
class SharedBaselines {
 public:
  explicit SharedBaselines(const ZygoteChannel& channel) : channel_(channel) {}

  // Runs `order` in a case process, with the baseline it needs (measured
  // first if this is the first order with its key). An error only when the
  // zygote is gone.
  absl::StatusOr<WorkerResultProto> Run(const WorkOrderProto& order, int64_t& sequence) {
    if (!order.callgrind() || order.canary() || order.baseline_per_case()) {
      return channel_.Run(order, sequence++);
    }
    const Key key{order.task_spec().language(), CallgrindNumber(order),
                  order.task_spec().has_num_threads() ? order.task_spec().num_threads() : 1,
                  order.template_per_case()};
    auto found = baselines_.find(key);
    if (found == baselines_.end()) {
      WorkOrderProto baseline_order;
      baseline_order.mutable_task_spec()->set_language(order.task_spec().language());
      baseline_order.mutable_task_spec()->set_num_threads(std::get<2>(key));
      baseline_order.set_callgrind(true);
      baseline_order.set_callgrind_number(std::get<1>(key));
      baseline_order.set_measure_baseline(true);
      baseline_order.set_template_per_case(std::get<3>(key));
      baseline_order.set_timeout_seconds(order.timeout_seconds());
      const base::PhaseMark start = base::PhaseNow();
      absl::StatusOr<WorkerResultProto> measured = channel_.Run(baseline_order, sequence++);
      // Marks the case before it as the baseline's (bench/case_phases.py).
      base::RecordPhase("worker", "measure a shared baseline", start);
      if (!measured.ok()) return measured.status();
      found = baselines_.emplace(key, *std::move(measured)).first;
    }
    const WorkerResultProto& baseline = found->second;
    if (!baseline.has_output() || baseline.output().callgrind_size() != 1) {
      WorkerResultProto failed =
          baseline.has_failure()
              ? FailureResult(
                    baseline.failure().kind(),
                    absl::StrCat("measuring the baseline (an empty statement, ", std::get<1>(key),
                                 " runs) failed: ", baseline.failure().reason()))
              : FailureResult(FAILURE_WORKER, "the baseline's case gave no counts");
      failed.set_id(order.id());
      return failed;
    }
    WorkOrderProto without_baseline = order;
    without_baseline.set_baseline_from_worker(true);
    absl::StatusOr<WorkerResultProto> result = channel_.Run(without_baseline, sequence++);
    if (!result.ok() || !result->has_output()) return result;
    const timer::CallgrindStatsProto& empty = baseline.output().callgrind(0);
    WorkerOutputProto& output = *result->mutable_output();
    if (output.has_callgrind_dumps()) {
      // Attached by whoever parses the dumps (ParseCaseDumps).
      *output.mutable_callgrind_dumps()->mutable_shared_baseline() = empty;
    }
    for (timer::CallgrindStatsProto& stats : *output.mutable_callgrind()) {
      AttachBaseline(empty, stats);
    }
    return result;
  }

 private:
  // Language, number, threads, and whether measured in a template (so
  // that main --template_per_case checks the baselines' counts too).
  using Key = std::tuple<int, int64_t, int, bool>;
  const ZygoteChannel& channel_;
  std::map<Key, WorkerResultProto> baselines_;
};

// Counted under valgrind, timed natively: whatever this worker is for.
WorkOrderProto CanaryOrder() {
  WorkOrderProto order;
  order.set_id(kCanaryOrderId);
  order.set_canary(true);
  order.mutable_task_spec()->set_label("icount canary");
  order.mutable_task_spec()->set_stmt("[an empty C++ statement]");
  order.mutable_task_spec()->set_language(timer::CPP);
  if (RUNNING_ON_VALGRIND) {
    order.set_callgrind(true);
    order.set_callgrind_number(10);
  } else {
    order.set_wall_time(true);
    order.set_min_run_time(0.001);
  }
  order.set_timeout_seconds(120);
  return order;
}

// The worker's scratch directory, created if missing.
absl::Status MakeScratchDirectory(const std::string& scratch_directory) {
  if (scratch_directory.empty() ||
      (mkdir(scratch_directory.c_str(), 0700) != 0 && errno != EEXIST)) {
    return absl::FailedPreconditionError(
        absl::StrCat("worker: cannot use scratch directory \"", scratch_directory, "\""));
  }
  return absl::OkStatus();
}

// The machine the worker runs on, as results record it.
timer::NodeProto ThisNode() {
  timer::NodeProto node;
  node.set_host(base::HostName());
  node.set_cpu_model(base::CpuModel());
  node.set_cpuid(base::CpuId());
  node.set_cpus(base::OnlineCpus());
  node.set_aten_cpu_capability(AtenCpuCapability());
  return node;
}

// Runs the canary (WorkerOptions::canary) and then each order of the
// stream in a case process forked from `zygotes`, writing each result as
// it comes, until the stream ends.
absl::Status ServeOrders(const WorkerOptions& options, const ZygoteChannel& zygotes) {
  // Asked here, in the worker, after the zygote has forked: nothing a case
  // inherits changes (at::show_config() allocates).
  const timer::NodeProto node = ThisNode();
  SharedBaselines shared_baselines(zygotes);
  absl::Status status;
  int64_t sequence = 0;
  if (options.canary) {
    const WorkOrderProto canary = CanaryOrder();
    absl::StatusOr<WorkerResultProto> result = zygotes.Run(canary, sequence++);
    if (!result.ok()) {
      status = result.status();
    } else {
      *result->mutable_node() = node;
      status = WriteFrame(options.results_fd, result->SerializeAsString());
    }
  }
  while (status.ok()) {
    absl::StatusOr<std::optional<std::string>> frame = ReadFrame(options.orders_fd);
    if (!frame.ok()) {
      status =
          absl::DataLossError(absl::StrCat("worker: order stream: ", frame.status().message()));
      break;
    }
    if (!frame->has_value()) break;  // end of orders
    WorkOrderProto order;
    if (!order.ParseFromString(**frame)) {
      status = absl::DataLossError("worker: corrupt order in the stream");
      break;
    }
    absl::StatusOr<WorkerResultProto> result = shared_baselines.Run(order, sequence);
    if (!result.ok()) {
      status = result.status();
      break;
    }
    *result->mutable_node() = node;
    status = WriteFrame(options.results_fd, result->SerializeAsString());
  }
  return status;
}

}  // namespace

absl::Status RunWorker(const WorkerOptions& options) {
  if (absl::Status made = MakeScratchDirectory(options.scratch_directory); !made.ok()) return made;
  base::PhaseMark mark =
      base::RecordPhaseSinceStart("worker", "start: valgrind, loading LibTorch, static init");
  // Pay LibTorch's and Python's one-time costs here, before the zygotes,
  // so that no case pays them.
  { timer::ScopedTorchThreads threads(1); }
  mark = base::RecordPhase("worker", "initialise LibTorch's threads", mark);
  // Zygotes from the same state, one after the other: Python's counted
  // cases reuse what `import torch` translated (compiling a snippet needs
  // the Python compiler: 91 ms -> 13 ms a case); C++ cases are cheaper
  // without inheriting translations they would throw away. Either way a
  // case's counts are the same (valgrind's translations are not the
  // program's state; bench/process_tree_counts.sh). A third serves
  // rehearsed TorchScript cases, whose counts do depend on its rehearsal.
  // C++ cases' zygotes fork before the worker starts Python: their counts
  // do not depend on whether, or from where, it imports torch (what that
  // import allocates moves where later allocations land, and so malloc's
  // counts, between two sides' torch packages), and a worker whose orders
  // are all C++ (the runner's choice) never pays for the import.
  std::vector<int> worker_fds = {options.orders_fd};
  absl::StatusOr<LanguageZygotes> cpp =
      ForkZygotes(options.scratch_directory, /*python=*/false, worker_fds);
  if (!cpp.ok()) return cpp.status();
  mark = base::RecordPhase("worker", "fork the C++ zygotes (parent side)", mark);
  std::optional<LanguageZygotes> python;
  if (options.python) {
    if (absl::Status status = timer::InitializeEmbeddedPython(); !status.ok()) {
      EndZygotes(*cpp);
      return status;
    }
    mark = base::RecordPhase("worker", "initialise Python (import torch)", mark);
    absl::StatusOr<LanguageZygotes> forked =
        ForkZygotes(options.scratch_directory, /*python=*/true, worker_fds);
    if (!forked.ok()) return forked.status();
    python = *forked;
    base::RecordPhase("worker", "fork the Python zygotes (parent side)", mark);
  }
  const ZygoteChannel zygotes{*cpp, python, options.scratch_directory};
  const absl::Status status = ServeOrders(options, zygotes);
  EndZygotes(zygotes.cpp);
  if (zygotes.python.has_value()) EndZygotes(*zygotes.python);
  return status;
}

}  // namespace icount::worker
