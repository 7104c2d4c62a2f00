#ifndef ICOUNT_WORKER_LOADED_LIBTORCH_H_
#define ICOUNT_WORKER_LOADED_LIBTORCH_H_

// Which LibTorch a worker runs on, as its environment sets it up: what
// `ab_test --backtesting` compares with the cases' min_libtorch_version.
//
//   $ worker --print_libtorch_version
//   icount-libtorch-version: 1.13.0 from at::show_config()
//
//   std::optional<LibTorchVersionReport> report = FindLibTorchVersionLine(output);

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace icount {

struct LibTorchVersionReport {
  std::string version;  // as reported, e.g. "1.13.0" or "2.1.0+cpu"
  std::string source;   // where it came from, for messages
};

// In order:
//   1. $ICOUNT_LIBTORCH_VERSION, when set and not empty: for a LibTorch
//      whose build settings lack the version, or to rehearse a backtest;
//   2. TORCH_VERSION in the build settings of the LibTorch loaded in this
//      process (at::show_config()), so LD_LIBRARY_PATH and LD_PRELOAD count;
//   3. the LibTorch headers this worker was compiled with.
LibTorchVersionReport LoadedLibTorchVersion();

// The line --print_libtorch_version writes, and its reader, which finds
// it among whatever else an environment's setup command printed.
std::string LibTorchVersionLine(const LibTorchVersionReport& report);
std::optional<LibTorchVersionReport> FindLibTorchVersionLine(absl::string_view output);

}  // namespace icount

#endif  // ICOUNT_WORKER_LOADED_LIBTORCH_H_
