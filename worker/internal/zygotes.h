#ifndef ICOUNT_WORKER_INTERNAL_ZYGOTES_H_
#define ICOUNT_WORKER_INTERNAL_ZYGOTES_H_

// The worker's zygotes (worker/worker.h): processes forked from the worker
// that do nothing but wait for an order and fork a case process for it, and
// the worker's side of them.
//
//   std::vector<int> worker_fds = {orders_fd};
//   absl::StatusOr<LanguageZygotes> cpp = ForkZygotes(scratch, false, worker_fds);
//   const ZygoteChannel zygotes{*cpp, std::nullopt, scratch};
//   absl::StatusOr<WorkerResultProto> result = zygotes.Run(order, sequence);
//   EndZygotes(zygotes.cpp);

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "worker/worker.pb.h"

namespace icount::worker::internal {

// A zygote process (ZygoteLoop) as the worker sees it.
struct Zygote {
  pid_t pid = -1;
  int requests_fd = -1;
  int replies_fd = -1;
};

// The zygotes that serve one language's cases, forked one after the other
// from the same state of the worker: C++ cases' before the worker starts
// Python, Python cases' after `import torch`.
struct LanguageZygotes {
  Zygote translations_emptied;
  std::optional<Zygote> translations_kept;  // Python's only
  Zygote torchscript_rehearsed;
};

// Forks one language's zygotes. `worker_fds`: the worker's own descriptors
// (its order stream, other zygotes' pipes), which each zygote closes; the
// new zygotes' pipes are added to them.
absl::StatusOr<LanguageZygotes> ForkZygotes(const std::string& scratch, bool python,
                                            std::vector<int>& worker_fds);

// Ends each of the language's zygotes (closes its requests, so that it
// sees EOF and exits, and waits).
void EndZygotes(const LanguageZygotes& zygotes);

// The worker's side of its zygotes: sends the measured part of one order
// to the zygote for it, waits for its case process to end and turns what
// it left into a result.
struct ZygoteChannel {
  LanguageZygotes cpp;
  std::optional<LanguageZygotes> python;  // when the worker imports torch
  std::string scratch_directory;

  // Without Python's zygotes a Python case forks from C++'s and starts
  // Python itself (or fails where the LibTorch has no torch package).
  const Zygote& For(const WorkOrderProto& order) const;

  // An error only when the zygote itself is gone.
  absl::StatusOr<WorkerResultProto> Run(const WorkOrderProto& order, int64_t sequence) const;
};

}  // namespace icount::worker::internal

#endif  // ICOUNT_WORKER_INTERNAL_ZYGOTES_H_
