#ifndef ICOUNT_WORKER_ORDERS_H_
#define ICOUNT_WORKER_ORDERS_H_

// What a work order needs from the worker that runs it.
//
//   const bool python = std::any_of(orders.begin(), orders.end(), IsPythonOrder);
//   command.push_back(python ? "--python=true" : "--python=false");
//   // a worker of C++ cases only has no `import torch` to pay for

#include "worker/worker.pb.h"

namespace icount::worker {

// Whether the order is a Python case: its worker must have imported torch
// into its embedded Python (WorkerOptions::python).
inline bool IsPythonOrder(const WorkOrderProto& order) {
  return order.task_spec().language() == timer::PYTHON;
}

}  // namespace icount::worker

#endif  // ICOUNT_WORKER_ORDERS_H_
