#ifndef ICOUNT_WORKER_ORDER_COST_H_
#define ICOUNT_WORKER_ORDER_COST_H_

// What work orders are expected to cost, for sizing the runner's pool of
// count workers and for balancing shards across nodes (//slurm).
//
//   double seconds = 0;
//   for (const WorkOrderProto& order : orders) seconds += ExpectedOrderSeconds(order);
//   int workers = CountWorkersFor(seconds, /*max_workers=*/cpus);
//
// The figures are from a 2-core AMD EPYC VM (docs/slurm.md); only their
// ratios matter for balancing, and only their order of magnitude for the
// pool's size.

#include "worker/worker.pb.h"

namespace icount::worker {

// CPU seconds a count worker spends before its first case: LibTorch and
// CPython initialised under valgrind (~10-15 s), paid once per worker.
inline constexpr double kCountWorkerStartSeconds = 15;

// What an order is expected to take once its worker is up, in seconds: an
// instruction-count order ~1.2 s a case plus ~0.05 s a callgrind repeat;
// a Python case under valgrind ~1.5x a C++ one; a wall-time order its
// min_run_time three times over (warm-up, blocks, overhead) plus 0.1 s.
double ExpectedOrderSeconds(const WorkOrderProto& order);

// How many count workers share `expected_seconds` of counting when the
// caller left the number to the runner: one per kCountWorkerStartSeconds
// of it (rounded up), so that no worker spends more CPU starting than
// counting, between 1 and `max_workers` (the CPUs). A small run (a filter
// of a few cases) thus counts in one worker, where one per CPU would pay
// the start-up once per CPU for a second or two of cases each; a suite
// keeps every CPU busy.
int CountWorkersFor(double expected_seconds, int max_workers);

}  // namespace icount::worker

#endif  // ICOUNT_WORKER_ORDER_COST_H_
