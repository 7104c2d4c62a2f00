#include "worker/order_cost.h"

#include <algorithm>
#include <cmath>

#include "worker/orders.h"

namespace icount::worker {

double ExpectedOrderSeconds(const WorkOrderProto& order) {
  const bool python = IsPythonOrder(order);
  if (order.callgrind()) {
    const double seconds = 1.2 + 0.05 * std::max(1, order.callgrind_repeats());
    return python ? 1.5 * seconds : seconds;
  }
  return 3 * order.min_run_time() + 0.1;
}

int CountWorkersFor(double expected_seconds, int max_workers) {
  const double wanted = std::ceil(expected_seconds / kCountWorkerStartSeconds);
  return static_cast<int>(std::clamp(wanted, 1.0, std::max(1.0, double(max_workers))));
}

}  // namespace icount::worker
