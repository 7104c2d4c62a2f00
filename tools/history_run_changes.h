#ifndef ICOUNT_TOOLS_HISTORY_RUN_CHANGES_H_
#define ICOUNT_TOOLS_HISTORY_RUN_CHANGES_H_

// How two runs of a history store were measured otherwise, besides the
// code they measured: //tools:history names it at a step, which may come
// from that rather than from the code.
//
//   SetupChanges(Metric::kCounts, run_4, run_5)
//   // {"valgrind-3.19.0 -> valgrind-3.24.0", "LibTorch 1.13.0 -> 2.6.0"}

#include <string>
#include <vector>

#include "history/store.h"
#include "timer/measurement_io.h"

namespace icount::tools {

// One phrase per difference: the CPU (model and CPUID) and the valgrind that
// counted, for counts and allocations; the host that timed, for wall time;
// the LibTorch and the toolchain (compiler, C++ standard, Python), for every
// metric. What either run leaves unknown is no difference.
std::vector<std::string> SetupChanges(history::Metric metric, const history::RunRow& before,
                                      const history::RunRow& after);

// The version of the LibTorch a results file says it measured: main, ci
// and timeit describe it as "torch 2.6.0+debian (root trixie) at ..."
// (compare::kLibTorchInstallSetting), which gives "2.6.0+debian"; "" when
// the file does not say.
std::string MeasuredLibTorchVersion(const timer::ResultsFile& results);

}  // namespace icount::tools

#endif  // ICOUNT_TOOLS_HISTORY_RUN_CHANGES_H_
