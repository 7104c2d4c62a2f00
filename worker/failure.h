#ifndef ICOUNT_WORKER_FAILURE_H_
#define ICOUNT_WORKER_FAILURE_H_

// What the kinds of a failed order (FailureKind) mean to people and
// to the runner:
//
//   FailureKindName(FAILURE_TIMEOUT)  // "timeout"
//   IsRetryable(FAILURE_CRASH)        // true: a crash may be the
//                                             // machine's, not the case's

#include <string>

#include "worker/worker.pb.h"

namespace icount::worker {

// The id of the canary's result, the first a worker started with --canary
// writes (WorkerOptions::canary).
inline constexpr char kCanaryOrderId[] = "icount:canary";

// "setup", "measure", "crash", "timeout", "worker", "compile"; "unknown"
// otherwise.
const char* FailureKindName(FailureKind kind);

// Whether running the order again may succeed: crashes, timeouts and lost
// workers may come from the machine (memory, load, a killed process); a
// setup or statement that throws would throw again.
bool IsRetryable(FailureKind kind);

// A result that reports a failure of `kind`.
WorkerResultProto FailureResult(FailureKind kind, std::string reason);

}  // namespace icount::worker

#endif  // ICOUNT_WORKER_FAILURE_H_
