#include "worker/failure.h"

#include <string>
#include <utility>

namespace icount::worker {

const char* FailureKindName(FailureKind kind) {
  switch (kind) {
    case FAILURE_SETUP:
      return "setup";
    case FAILURE_MEASURE:
      return "measure";
    case FAILURE_CRASH:
      return "crash";
    case FAILURE_TIMEOUT:
      return "timeout";
    case FAILURE_WORKER:
      return "worker";
    case FAILURE_COMPILE:
      return "compile";
    default:
      return "unknown";
  }
}

bool IsRetryable(FailureKind kind) {
  return kind == FAILURE_CRASH || kind == FAILURE_TIMEOUT || kind == FAILURE_WORKER;
}

WorkerResultProto FailureResult(FailureKind kind, std::string reason) {
  WorkerResultProto result;
  result.mutable_failure()->set_kind(kind);
  result.mutable_failure()->set_reason(std::move(reason));
  return result;
}

}  // namespace icount::worker
