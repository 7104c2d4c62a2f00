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
#include "timer/internal/callgrind_parser.h"
#include "timer/task_spec.h"

namespace icount::timer {

struct CallgrindDumpFiles {
  std::vector<std::string> stmt_dumps;  // one per repeat, oldest first
  std::string baseline_dump;            // empty without a baseline
};

// Receives a measurement's dumps, or why it failed, in the process that
// measured (CallgrindOptions::on_measured).
using CallgrindDumpsCallback = std::function<void(const absl::StatusOr<CallgrindDumpFiles>&)>;

// Objects to name otherwise in function keys: the path callgrind recorded
// -> the name counts show (internal::ObjectNames).
using ObjectNames = internal::ObjectNames;

// One CallgrindStats per statement dump (the first with its call tree), each
// with the baseline dump's counts if there is one. Functions without a
// symbol count as one "(unknown in OBJECT)" per object: their address names
// change whenever a library loaded before them does. Removes the files
// unless `keep_files` (then stmt_callgrind_out() names each). DataLoss
// naming the file when one cannot be read.
absl::StatusOr<std::vector<CallgrindStats>> CallgrindStatsFromDumps(
    const TaskSpec& spec, int64_t number_per_run, const CallgrindDumpFiles& dumps,
    bool keep_files, const ObjectNames& object_names = {});

}  // namespace icount::timer

#endif  // ICOUNT_TIMER_CALLGRIND_DUMPS_H_
