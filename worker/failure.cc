#include "worker/failure.h"

#include <string>
#include <utility>

namespace icount::worker {

const char* FailureKindName(worker::FailureKind kind) {
  switch (kind) {
    case worker::FAILURE_SETUP:
      return "setup";
    case worker::FAILURE_MEASURE:
      return "measure";
    case worker::FAILURE_CRASH:
      return "crash";
    case worker::FAILURE_TIMEOUT:
      return "timeout";
    case worker::FAILURE_WORKER:
      return "worker";
    default:
      return "unknown";
  }
}

bool IsRetryable(worker::FailureKind kind) {
  return kind == worker::FAILURE_CRASH || kind == worker::FAILURE_TIMEOUT ||
         kind == worker::FAILURE_WORKER;
}

worker::WorkerResultProto FailureResult(worker::FailureKind kind, std::string reason) {
  worker::WorkerResultProto result;
  result.mutable_failure()->set_kind(kind);
  result.mutable_failure()->set_reason(std::move(reason));
  return result;
}

}  // namespace icount::worker
