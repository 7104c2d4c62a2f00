#ifndef ICOUNT_SLURM_SHARDS_H_
#define ICOUNT_SLURM_SHARDS_H_

// Splitting work orders into shards of about equal expected time, one per
// Slurm array task.
//
//   std::vector<std::vector<size_t>> shards = SplitIntoShards(orders, 4);
//   // shards[k]: indices into `orders`, in their original order

#include <cstddef>
#include <vector>

#include "worker/worker.pb.h"

namespace icount::slurm {

// What an order is expected to take on a node, in seconds, from the
// figures in docs/slurm.md (2-core AMD EPYC VM): an instruction-count order
// ~1.2 s a case plus ~0.05 s a callgrind repeat; a Python case under
// valgrind ~1.5x a C++ one; a wall-time order its min_run_time three times
// over (warm-up, blocks, overhead) plus 0.1 s. Only the ratios matter.
double ExpectedOrderSeconds(const worker::WorkOrderProto& order);

// At most `shards` non-empty shards (fewer when there are fewer orders),
// balanced by ExpectedOrderSeconds with the longest-first greedy rule (each
// order to the shard with the least expected time so far), so that no shard
// exceeds the best possible by more than a third. The wall-time orders of
// one case (ci's rounds: one order each, same case_key) stay in one shard,
// so a case's timings come from one node and are pooled there. Each shard
// lists its order indices ascending; every index appears in exactly one.
std::vector<std::vector<size_t>> SplitIntoShards(const std::vector<worker::WorkOrderProto>& orders,
                                                 int shards);

}  // namespace icount::slurm

#endif  // ICOUNT_SLURM_SHARDS_H_
