#ifndef ICOUNT_TIMER_CALLGRIND_DUMPS_H_
#define ICOUNT_TIMER_CALLGRIND_DUMPS_H_

// The callgrind dump files one measurement leaves, and their counts: what
// a process under valgrind hands to one outside it, which parses them at
// native speed (5-10x faster than under valgrind). Needs no LibTorch.
//
//   // in the process under valgrind (timer.h)
//   absl::StatusOr<icount::timer::CallgrindDumpFiles> dumps = timer.CollectCallgrindDumps(options);
//   // in a native process
//   absl::StatusOr<std::vector<icount::timer::CallgrindStats>> stats =
//       icount::timer::CallgrindStatsFromDumps(timer.task_spec(), options.number, *dumps,
//                                       /*keep_files=*/false);

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "timer/callgrind_stats.h"
#include "timer/task_spec.h"

namespace icount::timer {

struct CallgrindDumpFiles {
  std::vector<std::string> stmt_dumps;  // one per repeat, oldest first
  std::string baseline_dump;            // empty without a baseline
};

// Receives a measurement's dumps, or why it failed, in the process that
// measured (CallgrindOptions::on_measured).
using CallgrindDumpsCallback = std::function<void(const absl::StatusOr<CallgrindDumpFiles>&)>;

// One CallgrindStats per statement dump (the first with its call tree), each
// with the baseline dump's counts if there is one. Removes the files unless
// `keep_files` (then stmt_callgrind_out() names each). DataLoss naming the
// file when one cannot be read.
absl::StatusOr<std::vector<CallgrindStats>> CallgrindStatsFromDumps(const TaskSpec& spec,
                                                                    int64_t number_per_run,
                                                                    const CallgrindDumpFiles& dumps,
                                                                    bool keep_files);

}  // namespace icount::timer

#endif  // ICOUNT_TIMER_CALLGRIND_DUMPS_H_
