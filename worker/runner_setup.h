#ifndef ICOUNT_WORKER_RUNNER_SETUP_H_
#define ICOUNT_WORKER_RUNNER_SETUP_H_

// What RunOrders (worker/runner.h) does before its phases run: checks the
// orders, opens the run's journal (or resumes it), journals the cases the
// worker was built without, and plans the phases over what is left. Private
// to //worker:runner.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "worker/runner.h"
#include "worker/worker.pb.h"

namespace icount::worker::internal {

// One pool of identical workers over a set of orders.
struct Phase {
  std::string name;
  bool valgrind = false;
  std::vector<size_t> orders;                 // indices
  std::vector<std::vector<int>> worker_cpus;  // one entry per worker; empty: no pinning
};

// Orders the runner can take: each asks for one kind of measurement, ids
// are unique, and the worker and a journal are given.
absl::Status CheckOrders(const std::vector<WorkOrderProto>& orders, const RunnerOptions& options);

// The run's journal: with --resume, the one a run of the same orders left,
// its finished results taken into `results`; otherwise a new one.
absl::Status OpenJournal(const std::vector<WorkOrderProto>& orders, const RunnerOptions& options,
                         std::vector<std::optional<WorkerResultProto>>& results,
                         RunnerReport& report);

// Cases the worker was built without fail here, each in the journal;
// returns how many.
absl::StatusOr<int> JournalUncompiledCases(const std::vector<WorkOrderProto>& orders,
                                           const RunnerOptions& options,
                                           std::vector<std::optional<WorkerResultProto>>& results);

// The phases over what is left to do: counts first, then wall time by
// thread count; none empty.
std::vector<Phase> PlanPhases(const std::vector<WorkOrderProto>& orders,
                              const RunnerOptions& options,
                              const std::vector<std::optional<WorkerResultProto>>& results);

}  // namespace icount::worker::internal

#endif  // ICOUNT_WORKER_RUNNER_SETUP_H_
