#ifndef ICOUNT_WORKER_LIBTORCH_VERSION_LINE_H_
#define ICOUNT_WORKER_LIBTORCH_VERSION_LINE_H_

// What a worker says of its LibTorch, and how front ends read it back,
// without linking LibTorch themselves (loaded_libtorch.h finds the values):
//
//   $ worker --print_libtorch_version
//   icount-libtorch-version: 1.13.0 from at::show_config()
//   icount-libtorch-build: PyTorch built with:; - GCC 12.2; ...; - Build settings: ...
//
//   std::optional<LibTorchVersionReport> report = FindLibTorchVersionLine(output);

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace icount::worker {

struct LibTorchVersionReport {
  std::string version;  // as reported, e.g. "1.13.0" or "2.1.0+cpu"
  std::string source;   // where it came from, for messages
  // LibTorch's build settings (at::show_config(), its lines joined by
  // "; "), what history records of a run; "" when unknown.
  std::string build;
};

// The lines --print_libtorch_version writes (the build line only when the
// build is known), and their reader, which finds them among whatever else
// an environment's setup command printed.
std::string LibTorchVersionLine(const LibTorchVersionReport& report);
std::optional<LibTorchVersionReport> FindLibTorchVersionLine(absl::string_view output);

}  // namespace icount::worker

#endif  // ICOUNT_WORKER_LIBTORCH_VERSION_LINE_H_
