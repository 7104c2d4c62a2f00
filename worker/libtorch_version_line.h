#ifndef ICOUNT_WORKER_LIBTORCH_VERSION_LINE_H_
#define ICOUNT_WORKER_LIBTORCH_VERSION_LINE_H_

// What a worker says of its LibTorch, and how front ends ask for it,
// without linking LibTorch themselves (loaded_libtorch.h finds the values).
// People read lines:
//
//   $ worker --print_libtorch_version
//   icount-libtorch-version: 1.13.0 from at::show_config()
//   icount-libtorch-build: PyTorch built with:; - GCC 12.2; ...; - Build settings: ...
//
// and tools get a LibTorchReportProto on a descriptor of its own, apart
// from whatever a side's setup command prints:
//
//   absl::StatusOr<WorkerLibTorchAnswer> answer =
//       AskWorkerForLibTorch({"/bin/bash", "-c", "source env.sh && exec \"$@\"", "env",
//                             worker_path});
//   if (answer.ok() && answer->report.has_value()) ... answer->report->version

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/subprocess.h"

namespace icount::worker {

struct LibTorchVersionReport {
  std::string version;  // as reported, e.g. "1.13.0" or "2.1.0+cpu"
  std::string source;   // where it came from, for messages
  // LibTorch's build settings (at::show_config(), its lines joined by
  // "; "), what history records of a run; "" when unknown.
  std::string build;
};

// The lines --print_libtorch_version writes (the build line only when the
// build is known).
std::string LibTorchVersionLine(const LibTorchVersionReport& report);

// The report --libtorch_report_fd writes, serialized.
std::string SerializeLibTorchReport(const LibTorchVersionReport& report);

struct WorkerLibTorchAnswer {
  base::CommandResult result;  // how the command ended, and what it printed
  // What the worker wrote; none when it wrote nothing readable.
  std::optional<LibTorchVersionReport> report;
};

// Runs `argv` (a worker, or a command prefix that execs the worker given
// last) with --libtorch_report_fd and reads the report it writes. Fails
// only when the command cannot be started.
absl::StatusOr<WorkerLibTorchAnswer> AskWorkerForLibTorch(std::vector<std::string> argv);

}  // namespace icount::worker

#endif  // ICOUNT_WORKER_LIBTORCH_VERSION_LINE_H_
