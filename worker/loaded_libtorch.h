#ifndef ICOUNT_WORKER_LOADED_LIBTORCH_H_
#define ICOUNT_WORKER_LOADED_LIBTORCH_H_

// Which LibTorch a worker runs on, as its environment sets it up: what
// `ab_test --backtesting` compares with the cases' min_libtorch_version,
// and what history records of a run. Links LibTorch; front ends read a
// worker's answer with libtorch_version_line.h.
//
//   LibTorchVersionReport report = LoadedLibTorchVersion();

#include <string>

#include "worker/libtorch_version_line.h"

namespace icount::worker {

// In order:
//   1. $ICOUNT_LIBTORCH_VERSION, when set and not empty: for a LibTorch
//      whose build settings lack the version, or to rehearse a backtest;
//   2. TORCH_VERSION in the build settings of the LibTorch loaded in this
//      process (at::show_config()), so LD_LIBRARY_PATH and LD_PRELOAD count;
//   3. the LibTorch headers this worker was compiled with.
// `build` is at::show_config() in every case.
LibTorchVersionReport LoadedLibTorchVersion();

// The instruction set ATen dispatches its kernels to in this process
// ("AVX2", "AVX512", "DEFAULT"), as at::show_config()'s "CPU capability
// usage" says; "" when it does not say. Under valgrind it is what
// valgrind's CPUID offers, which instruction counts follow.
std::string AtenCpuCapability();

// The same from the text of an at::show_config().
std::string AtenCpuCapabilityFromConfig(const std::string& config);

}  // namespace icount::worker

#endif  // ICOUNT_WORKER_LOADED_LIBTORCH_H_
