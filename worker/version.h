#ifndef ICOUNT_WORKER_VERSION_H_
#define ICOUNT_WORKER_VERSION_H_

namespace icount::worker {

// The semantic version of //worker. Bump it with every change to //worker's
// public API or to the data it writes; tools print it with --version and
// serialised artifacts record it.
inline constexpr char kWorkerVersion[] = "0.23.0";

}  // namespace icount::worker

#endif  // ICOUNT_WORKER_VERSION_H_
