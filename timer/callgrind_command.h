#ifndef ICOUNT_TIMER_CALLGRIND_COMMAND_H_
#define ICOUNT_TIMER_CALLGRIND_COMMAND_H_

// How icount runs a process under valgrind's callgrind, for anything that
// starts measuring processes itself (the Timer's children, the runner's
// workers): instrumentation off until the measured code asks for it with a
// client request (LibTorch's ~2.5e9 start-up instructions are never
// counted), dumps in a private directory, valgrind's own log beside them,
// and a clean environment so counts do not depend on the caller's shell.
//
//   absl::StatusOr<std::vector<std::string>> argv =
//       CallgrindCommand({"/path/to/worker"}, out_directory);
//   std::vector<std::string> env = MeasurementEnvironment(/*num_threads=*/1);
//   env.push_back(CallgrindOutDirectoryEnv(out_directory));
//   // spawn *argv with env and ASLR off (base/subprocess.h); if it dies,
//   // ValgrindLogReport(ValgrindLogPath(out_directory)) says why.

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace icount::timer {

// The environment variable naming the directory a process under valgrind
// writes its dumps to, and the dump files' name prefix.
inline constexpr char kCallgrindOutDirEnv[] = "ICOUNT_CALLGRIND_OUT_DIR";
inline constexpr char kCallgrindOutFilePrefix[] = "callgrind.out.";

// valgrind in a directory of `search_path` (colon-separated, as $PATH), or
// FailedPrecondition naming the package to install.
absl::StatusOr<std::string> FindValgrindIn(absl::string_view search_path);

// FindValgrindIn($PATH:/usr/bin).
absl::StatusOr<std::string> FindValgrind();

// The options CallgrindCommand gives valgrind besides where files go: the
// tool, instrumentation and collection off at start, and a translation
// cache of 2 sectors instead of 32 (see the .cc). Results files record
// them (ResultsFile::settings). With `cache_sim`, also callgrind's cache
// simulation with icount's pinned geometry (timer/cache_model.h).
std::vector<std::string> CallgrindToolOptions(bool cache_sim = false);

// "valgrind-3.19.0" from `valgrind --version`, or an error when valgrind
// is missing or says nothing.
absl::StatusOr<std::string> ValgrindVersion();

// ValgrindVersion(), asked once per process (the runner tags every count
// with it, and suite's settings record it).
const absl::StatusOr<std::string>& ValgrindVersionOnce();

// The valgrind command line that runs `command` under callgrind with its
// dumps in `out_directory` (instrumentation off until a client request),
// simulating caches with `cache_sim`.
absl::StatusOr<std::vector<std::string>> CallgrindCommand(const std::vector<std::string>& command,
                                                          const std::string& out_directory,
                                                          bool cache_sim = false);

// Where CallgrindCommand has valgrind write its own log (--log-file): the
// reason a process under valgrind died is there (timer/valgrind_log.h).
std::string ValgrindLogPath(const std::string& out_directory);

// The environment entry that tells a process under valgrind where its
// dumps go ("ICOUNT_CALLGRIND_OUT_DIR=...").
std::string CallgrindOutDirectoryEnv(const std::string& out_directory);

// Where this process, if CallgrindCommand started it (or its ancestor),
// writes its dumps: $ICOUNT_CALLGRIND_OUT_DIR, else the working directory
// (callgrind's default).
std::string CallgrindOutDirectory();

// Where Timer::CollectCallgrindDumps leaves repeat `repeat` (from 0) of a
// collection tagged `tag` (CallgrindOptions::dump_tag), in `directory`
// (CallgrindOutDirectory()):
//
//   CallgrindDumpPath("/tmp/d", "case-7", 0)  // "/tmp/d/callgrind.out.case-7.0"
std::string CallgrindDumpPath(const std::string& directory, const std::string& tag, int repeat);

// CallgrindDumpPath into `path` (`size` bytes) without allocating, for a
// process between forks; false if it does not fit.
bool FormatCallgrindDumpPath(char* path, size_t size, const char* directory, const char* tag,
                             int repeat);

// The file callgrind itself writes for process `pid` in `directory` under
// CallgrindCommand's --callgrind-out-file: dump number `dump` (1 for a
// process's first CALLGRIND_DUMP_STATS) at "callgrind.out.<pid>.<dump>", or
// with `dump` 0 the final profile valgrind's exit leaves at
// "callgrind.out.<pid>". Into `path` (`size` bytes) without allocating;
// false if it does not fit.
bool FormatCallgrindProcessFile(char* path, size_t size, const char* directory, int pid, int dump);

// Removes the empty profile valgrind's exit handling leaves for process
// `pid` of a tree CallgrindCommand started ("callgrind.out.<pid>" in
// $ICOUNT_CALLGRIND_OUT_DIR, else in the working directory). Allocates
// nothing: a process whose heap later measured processes inherit may call
// it between forks.
void RemoveCallgrindFinalProfile(int pid);

// The environment of a measuring child process: only what makes it work, so
// counts do not depend on the caller's shell (PATH, HOME, TMPDIR, the
// snippet cache, PYTHONHASHSEED=0, LC_ALL=C, OMP_NUM_THREADS). LD_LIBRARY_PATH,
// LD_PRELOAD and PYTHONPATH pass through: they choose the LibTorch measured;
// so does ICOUNT_PHASE_LOG (base/phase_log.h), for the cost benchmark.
std::vector<std::string> MeasurementEnvironment(int num_threads);

// The padding variable below. The worker drops it once its stack is laid
// out (worker/worker_main.cc); where another measured program keeps it,
// nothing copies it to the heap: the embedded Python does not copy the
// environment (timer/internal/python_snippet.cc).
inline constexpr char kStackPadEnv[] = "ICOUNT_STACK_PAD";

// Appends "ICOUNT_STACK_PAD=xxx..." to `env` so that the strings and
// pointers valgrind lays out on the client's initial stack (its argv, the
// executable's name again for AT_EXECFN, the environment) take a multiple
// of 4096 bytes, whatever their lengths. Why: with ASLR off the stack's top
// is fixed, so those lengths set the alignment of everything on the stack,
// and counts follow it (memcpy and friends take other paths): `add`
// counted 3998, 4010 and 3998 instructions a run with TMPDIR unset, "/tmp"
// and a longer path; a Slurm task, which sets TMPDIR, counted differently
// from a local run, as would a checkout at a path of another length.
// `client_argv` is the measured program's command line (without valgrind's).
void PadEnvironmentForStackLayout(const std::vector<std::string>& client_argv,
                                  std::vector<std::string>& env);

}  // namespace icount::timer

#endif  // ICOUNT_TIMER_CALLGRIND_COMMAND_H_
