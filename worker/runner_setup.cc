#include "worker/runner_setup.h"

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/fnv.h"
#include "base/machine.h"
#include "base/status.h"
#include "worker/failure.h"
#include "worker/internal/journal.h"
#include "worker/order_cost.h"
#include "worker/runner.h"

namespace icount::worker {
namespace {

absl::Status CheckNoJournalLeft(const std::string& journal_path) {
  if (access(journal_path.c_str(), F_OK) != 0) return absl::OkStatus();
  return absl::AlreadyExistsError(absl::StrCat(
      journal_path, " exists from an earlier run: pass --resume to continue it, or remove it"));
}

}  // namespace

absl::StatusOr<std::vector<WorkerResultProto>> ReadJournal(const std::string& path) {
  absl::StatusOr<internal::Journal> journal = internal::ParseJournal(path);
  if (!journal.ok()) return journal.status();
  return journal->results;
}

absl::Status CheckNoOldJournal(const std::string& journal_path) {
  ICOUNT_RETURN_IF_ERROR(internal::CheckJournalNotInUse(journal_path));
  return CheckNoJournalLeft(journal_path);
}

namespace internal {

absl::Status CheckOrders(const std::vector<WorkOrderProto>& orders, const RunnerOptions& options) {
  std::set<std::string> ids;
  for (const WorkOrderProto& order : orders) {
    if (order.wall_time() == order.callgrind()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "order \"", order.id(), "\" must ask for exactly one of wall_time and callgrind"));
    }
    if (!ids.insert(order.id()).second) {
      return absl::InvalidArgumentError(absl::StrCat("duplicate order id \"", order.id(), "\""));
    }
  }
  if (options.journal_path.empty()) return absl::InvalidArgumentError("no journal_path given");
  if (access(options.worker_path.c_str(), X_OK) != 0) {
    return absl::NotFoundError(
        absl::StrCat("worker binary not found or not executable: ", options.worker_path));
  }
  return absl::OkStatus();
}

namespace {

// What a journal must have been written for to be resumed: these orders,
// measured by this worker binary (a side's LibTorch has a worker built
// apart) after this command (a side's set-up).
std::string RunChecksum(const std::vector<WorkOrderProto>& orders, const RunnerOptions& options) {
  base::Fnv1a64 hash;
  hash.Add(OrdersChecksum(orders));
  // By its real path: `bazel run` and bazel-bin reach one binary through
  // runfiles trees of different names.
  hash.Add(base::RealPath(options.worker_path).value_or(options.worker_path));
  for (const std::string& word : options.command_prefix) hash.Add(word);
  return hash.Hex();
}

}  // namespace

absl::Status OpenJournal(const std::vector<WorkOrderProto>& orders, const RunnerOptions& options,
                         std::vector<std::optional<WorkerResultProto>>& results,
                         RunnerReport& report) {
  const std::string checksum = RunChecksum(orders, options);
  if (!options.resume || access(options.journal_path.c_str(), F_OK) != 0) {
    ICOUNT_RETURN_IF_ERROR(CheckNoJournalLeft(options.journal_path));
    return StartJournal(options.journal_path, checksum);
  }
  ICOUNT_ASSIGN_OR_RETURN(Journal journal, ParseJournal(options.journal_path));
  if (journal.checksum != checksum) {
    return absl::FailedPreconditionError(absl::StrCat(
        options.journal_path,
        ": was written for other work orders or another environment (other cases or "
        "settings, another side command, LibTorch or icount build); rerun as it was run, or "
        "without --resume and another output file"));
  }
  // A line cut off mid-write (the run died appending it) goes; its order
  // runs again.
  ICOUNT_RETURN_IF_ERROR(internal::DropCutOffLine(options.journal_path, journal));
  report.dropped_cut_off_line = journal.cut_off;
  std::map<std::string, size_t> index_of;
  for (size_t i = 0; i < orders.size(); ++i) index_of[orders[i].id()] = i;
  for (WorkerResultProto& result : journal.results) {
    auto it = index_of.find(result.id());
    if (it != index_of.end() && !result.has_failure()) {
      results[it->second] = std::move(result);
      ++report.resumed;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int> JournalUncompiledCases(const std::vector<WorkOrderProto>& orders,
                                           const RunnerOptions& options,
                                           std::vector<std::optional<WorkerResultProto>>& results) {
  int uncompiled = 0;
  for (size_t i = 0; i < orders.size(); ++i) {
    auto it = options.uncompiled_cases.find(orders[i].compiled_case());
    if (results[i].has_value() || orders[i].compiled_case().empty() ||
        it == options.uncompiled_cases.end()) {
      continue;
    }
    WorkerResultProto result = FailureResult(
        FAILURE_COMPILE,
        absl::StrCat("does not compile against this side's LibTorch: ", it->second));
    result.set_id(orders[i].id());
    ICOUNT_RETURN_IF_ERROR(AppendToJournal(options.journal_path, result));
    results[i] = std::move(result);
    ++uncompiled;
  }
  return uncompiled;
}

std::vector<Phase> PlanPhases(const std::vector<WorkOrderProto>& orders,
                              const RunnerOptions& options,
                              const std::vector<std::optional<WorkerResultProto>>& results) {
  // The CPUs this run may use (taskset, a cpuset, a batch system's
  // binding): workers are pinned to these, not to 0..n-1.
  const std::vector<int> allowed = base::AllowedCpus();
  const int cpus = static_cast<int>(allowed.size());
  const int jobs = options.jobs > 0 ? options.jobs : cpus;
  Phase counts{"instruction counts", true, {}, {}};
  std::map<int, Phase> wall;  // by num_threads
  for (size_t i = 0; i < orders.size(); ++i) {
    if (results[i].has_value()) continue;
    if (orders[i].callgrind()) {
      counts.orders.push_back(i);
    } else {
      const int threads = std::max(1, orders[i].task_spec().num_threads());
      wall[threads].orders.push_back(i);
    }
  }
  // Left to the runner, the count workers are as many as the counting
  // keeps busy for a start-up each (worker/order_cost.h), up to a CPU each.
  int count_workers = jobs;
  if (options.jobs == 0) {
    double expected_seconds = 0;
    for (size_t i : counts.orders) expected_seconds += ExpectedOrderSeconds(orders[i]);
    count_workers = CountWorkersFor(expected_seconds, cpus);
  }
  counts.worker_cpus.assign(
      std::min<size_t>(count_workers, std::max<size_t>(1, counts.orders.size())), {});
  std::vector<Phase> phases = {counts};
  for (auto& [threads, phase] : wall) {
    phase.name = absl::StrCat("wall time, ", threads, " thread", threads > 1 ? "s" : "");
    if (threads == 1) {
      // One worker per CPU, pinned: no two timings share a core.
      for (int w = 0; w < std::min<int>(jobs, cpus); ++w) phase.worker_cpus.push_back({allowed[w]});
    } else {
      std::vector<int> set(allowed.begin(), allowed.begin() + std::min(threads, cpus));
      phase.worker_cpus.push_back(threads <= cpus ? set : std::vector<int>{});
    }
    phases.push_back(phase);
  }
  phases.erase(std::remove_if(phases.begin(), phases.end(),
                              [](const Phase& phase) { return phase.orders.empty(); }),
               phases.end());
  return phases;
}

}  // namespace internal
}  // namespace icount::worker
