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

// At most `shards` non-empty shards (fewer when there are fewer orders),
// balanced by worker::ExpectedOrderSeconds (worker/order_cost.h) with the longest-first greedy rule
// (each order to the shard with the least expected time so far), so that no shard exceeds the best
// possible by more than a third. The wall-time orders of one case (ci's rounds: one order each,
// same case_key) stay in one shard, so a case's timings come from one node and are pooled there.
// Each shard lists its order indices ascending; every index appears in exactly one.
std::vector<std::vector<size_t>> SplitIntoShards(const std::vector<worker::WorkOrderProto>& orders,
                                                 int shards);

}  // namespace icount::slurm

#endif  // ICOUNT_SLURM_SHARDS_H_
