#include "slurm/shards.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <string>

#include "worker/order_cost.h"

namespace icount::slurm {

std::vector<std::vector<size_t>> SplitIntoShards(const std::vector<worker::WorkOrderProto>& orders,
                                                 int shards) {
  // Groups that go to one shard whole: a case's wall-time orders; every
  // other order alone.
  std::vector<std::vector<size_t>> groups;
  std::map<std::string, size_t> time_group;
  for (size_t i = 0; i < orders.size(); ++i) {
    if (orders[i].wall_time() && !orders[i].case_key().empty()) {
      auto [it, added] = time_group.emplace(orders[i].case_key(), groups.size());
      if (added) groups.emplace_back();
      groups[it->second].push_back(i);
    } else {
      groups.push_back({i});
    }
  }
  const size_t count = std::min<size_t>(std::max(1, shards), groups.size());
  std::vector<std::vector<size_t>> result(count);
  if (count == 0) return result;
  std::vector<double> cost(groups.size(), 0);
  for (size_t g = 0; g < groups.size(); ++g) {
    for (size_t i : groups[g]) cost[g] += worker::ExpectedOrderSeconds(orders[i]);
  }
  std::vector<size_t> by_cost(groups.size());
  std::iota(by_cost.begin(), by_cost.end(), 0);
  // Longest first; ties in suite order, so the split is deterministic.
  std::stable_sort(by_cost.begin(), by_cost.end(),
                   [&](size_t a, size_t b) { return cost[a] > cost[b]; });
  std::vector<double> load(count, 0);
  for (size_t g : by_cost) {
    const size_t lightest = std::min_element(load.begin(), load.end()) - load.begin();
    result[lightest].insert(result[lightest].end(), groups[g].begin(), groups[g].end());
    load[lightest] += cost[g];
  }
  for (auto& shard : result) std::sort(shard.begin(), shard.end());
  return result;
}

}  // namespace icount::slurm
