#ifndef ICOUNT_WORKER_WORKER_H_
#define ICOUNT_WORKER_WORKER_H_

// The worker: runs work orders one by one, each in a process of its own,
// and reports a WorkerResultProto for each as soon as it finishes.
//
//   worker process ── initialises LibTorch once and forks the C++ cases'
//   │                  zygotes; then, with Python, imports torch once and
//   │                  forks the Python cases' zygotes
//   └─ zygote ──────── does nothing but wait for an order and fork: every
//      │               case starts from the identical state, so a case's
//      │               instruction count does not depend on which cases ran
//      │               before it, and a crash or hang kills only that case.
//      │               Under callgrind the C++ cases' zygote first empties
//      │               valgrind's translation cache, so that starting
//      │               instrumentation in a case throws away only what that
//      │               case translated; the Python cases' zygote keeps it,
//      │               so that compiling a snippet reuses the translations
//      │               of Python's compiler. Same state, same counts.
//      └─ case ─────── builds the Timer, measures (wall time natively, or
//                      instruction counts under valgrind: the worker is then
//                      itself started under callgrind and the start-up cost
//                      is paid once per worker, not once per case), writes
//                      its result and exits
//
// Orders arrive on a stream and results leave on another, both framed as
// a 4-byte little-endian length followed by the serialised message
// (worker/framing.h), so a runner can keep a worker busy without
// restarting it.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "worker/failure.h"
#include "worker/worker.pb.h"

namespace icount::worker {

struct WorkerOptions {
  int orders_fd = 0;   // framed WorkOrderProto stream
  int results_fd = 1;  // framed WorkerResultProto stream
  // Where cases leave their results for the worker; created if missing.
  std::string scratch_directory;
  // Initialise embedded Python (import torch) before the Python cases'
  // zygotes fork, so that Python cases do not each pay for it. C++ cases'
  // zygotes fork before that, so their counts are the same either way.
  // false: a Python case starts Python in its own process (or fails where
  // the LibTorch has no torch package).
  bool python = true;
  // Before the first order, run a canary through the zygote like a case:
  // an empty C++ statement, counted under valgrind (at least one
  // instruction must be counted) or timed natively. Its result is the
  // first frame written, with id kCanaryOrderId (worker/failure.h), so a
  // worker that starts but cannot measure says so before it is given any
  // work.
  bool canary = false;
};

// Runs until the order stream ends. Errors only for the worker itself
// (unreadable stream, no scratch directory); case failures are results.
absl::Status RunWorker(const WorkerOptions& options);

}  // namespace icount::worker

#endif  // ICOUNT_WORKER_WORKER_H_
