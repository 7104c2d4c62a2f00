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
#include "timer/internal/block_control.h"
#include "timer/internal/kernel.h"
#include "timer/internal/subprocess.h"
#include "timer/task_spec.h"

namespace icount::timer_internal {

struct CallgrindDumps {
  std::vector<std::string> stmt_dumps;  // one out file per repeat
  std::string baseline_dump;            // empty when no baseline
};

// Where this process's dumps land: $ICOUNT_CALLGRIND_OUT_DIR (set by
// RunUnderCallgrind), else the working directory (callgrind's default).
std::string CallgrindOutDirectory();

// Must run under valgrind's callgrind. `baseline`, if not null, is the same
// loop around an empty statement, measured once after the repeats.
absl::StatusOr<CallgrindDumps> CollectInThisProcess(Kernel& stmt, Kernel* baseline,
                                                    int64_t number, int repeats,
                                                    int num_threads);

// An empty statement in `language`, for baselines.
absl::StatusOr<std::shared_ptr<Kernel>> MakeBaselineKernel(Language language);

// valgrind in a directory of `search_path` (colon-separated, as $PATH), or
// FailedPrecondition naming the package to install.
absl::StatusOr<std::string> FindValgrindIn(absl::string_view search_path);
// FindValgrindIn($PATH:/usr/bin).
absl::StatusOr<std::string> FindValgrind();

// The valgrind command line that runs `command` under callgrind with its
// dumps in `out_directory` (instrumentation off until a client request).
absl::StatusOr<std::vector<std::string>> CallgrindCommand(const std::vector<std::string>& command,
                                                         const std::string& out_directory);
// Where CallgrindCommand has valgrind write its own log (--log-file): the
// reason a process under valgrind died is there (valgrind_log.h).
std::string ValgrindLogPath(const std::string& out_directory);
// The environment entry that tells a process under valgrind where its
// dumps go ("ICOUNT_CALLGRIND_OUT_DIR=...").
std::string CallgrindOutDirectoryEnv(const std::string& out_directory);

// The environment of a measuring child process: only what makes it work, so
// counts do not depend on the caller's shell (PATH, HOME, TMPDIR, the
// snippet cache, PYTHONHASHSEED=0, LC_ALL=C, OMP_NUM_THREADS). LD_LIBRARY_PATH,
// LD_PRELOAD and PYTHONPATH pass through: they choose the LibTorch measured.
std::vector<std::string> MeasurementEnvironment(int num_threads);

// Runs `command` under callgrind with its dumps in `out_directory`, ASLR off.
absl::StatusOr<CommandResult> RunUnderCallgrind(const std::vector<std::string>& command,
                                                std::vector<std::string> env,
                                                const std::string& out_directory);

// The files a parent and its child under valgrind exchange in the child's
// directory: the request (CallgrindRequestProto) and the result
// (CallgrindChildResultProto: the dumps, or the statement's error).
std::string ChildRequestPath(const std::string& directory);
std::string ChildResultPath(const std::string& directory);
absl::Status WriteChildResult(const std::string& directory,
                              const absl::StatusOr<CallgrindDumps>& dumps);

// A fresh private directory under $TMPDIR (or /tmp), fixed-length name.
absl::StatusOr<std::string> MakeTemporaryDirectory(const std::string& prefix);
// Removes `path` and everything below it, ignoring errors.
void RemoveDirectoryTree(const std::string& path);

}  // namespace icount::timer_internal

#endif  // ICOUNT_TIMER_INTERNAL_CALLGRIND_COLLECT_H_
