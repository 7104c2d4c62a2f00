#ifndef ICOUNT_TIMER_INTERNAL_CALLGRIND_COLLECT_H_
#define ICOUNT_TIMER_INTERNAL_CALLGRIND_COLLECT_H_

// Instruction-count collection with valgrind's callgrind.
//
// Inside valgrind (RUNNING_ON_VALGRIND), CollectInThisProcess measures a
// statement's blocks with client requests: after setup and a warm-up block it
// starts instrumentation, then per repeat zeroes the statistics, turns
// collection on for `number` runs, turns it off and dumps. Only that region
// is counted; LibTorch's start-up (~2.5e9 instructions) never is, because
// valgrind runs with --instr-atstart=no --collect-atstart=no.
//
// Outside valgrind, RunUnderCallgrind starts a child under valgrind with
// those options, ASLR off, and the dumps written to a private directory.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/subprocess.h"
#include "timer/callgrind_dumps.h"
#include "timer/internal/kernel.h"
#include "timer/snippet_abi.h"
#include "timer/task_spec.h"

namespace icount::timer::internal {

// Must run under valgrind's callgrind, started as CallgrindCommand starts
// a process (dumps named <directory>/callgrind.out.<pid>.<n>). `baseline`,
// if not null, is the same loop around an empty statement, measured once
// after the repeats. `template_is_caller`: the caller is a throwaway
// process and plays the template itself (no baseline allowed): setup and
// warm-up run here, the repeats are forked from here, and then
// `on_measured` (if not null and not empty) gets the dumps while the
// statement's state is still alive (CallgrindOptions::on_measured).
// `dump_tag` names the statement's dumps (CallgrindDumpPath; the baseline's
// get "<dump_tag>-baseline"); empty: "icount-<pid>-<n>".
// `warm_up_after_fork`: the statement's warm-up runs in each repeat's
// process (CallgrindOptions::warm_up_after_fork).
absl::StatusOr<CallgrindDumpFiles> CollectInThisProcess(Kernel& stmt, Kernel* baseline,
                                                        int64_t number, int repeats,
                                                        int num_threads, bool template_is_caller,
                                                        const CallgrindDumpsCallback* on_measured,
                                                        const std::string& dump_tag,
                                                        bool warm_up_after_fork = false);

// An empty statement in `language`, for baselines.
absl::StatusOr<std::shared_ptr<Kernel>> MakeBaselineKernel(Language language);

// Runs `command` under callgrind with its dumps in `out_directory`, ASLR
// off, in `working_directory` (empty: this process's), killed after
// `timeout_seconds` when above 0 (base::CommandOptions::timeout_seconds).
absl::StatusOr<base::CommandResult> RunUnderCallgrind(const std::vector<std::string>& command,
                                                      std::vector<std::string> env,
                                                      const std::string& out_directory,
                                                      bool cache_sim,
                                                      const std::string& working_directory = "",
                                                      double timeout_seconds = 0);

// The files a parent and its child under valgrind exchange in the child's
// directory: the request (CallgrindRequestProto) and the result
// (CallgrindChildResultProto: the dumps, or the statement's error).
std::string ChildRequestPath(const std::string& directory);
std::string ChildResultPath(const std::string& directory);
absl::Status WriteChildResult(const std::string& directory,
                              const absl::StatusOr<CallgrindDumpFiles>& dumps);
// The result of a re-executed binary whose call at the replayed index is
// another statement (`reached`) than its parent's: nothing measured.
absl::Status WriteReplayMismatch(const std::string& directory, const std::string& reached);

}  // namespace icount::timer::internal

#endif  // ICOUNT_TIMER_INTERNAL_CALLGRIND_COLLECT_H_
