#ifndef ICOUNT_BASE_SUBPROCESS_H_
#define ICOUNT_BASE_SUBPROCESS_H_

// Starting processes, with what measuring needs: ASLR off (so pointer-keyed
// hashing and allocation patterns repeat run to run), an exact environment,
// a process group of their own, file descriptors wired up.
//
//   // Run and wait, capturing stdout and stderr:
//   absl::StatusOr<CommandResult> result = RunCommand({"g++", "--version"});
//   if (result.ok() && result->exit_code == 0) ...
//
//   // Start and manage yourself (e.g. a worker talking over pipes):
//   SpawnOptions options;
//   options.fds = {{orders_read_end, 0}, {results_write_end, 3}};
//   options.output_path = "worker.log";
//   absl::StatusOr<pid_t> pid = Spawn(argv, options);

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace icount::base {

struct SpawnOptions {
  // Replaces the environment ("NAME=value" strings) when set.
  std::optional<std::vector<std::string>> env;
  // Starts the child so that where its memory lies, and so what it counts,
  // repeats from run to run: address-space randomisation off (as `setarch
  // -R`), and a pid of at least 300 (UsePidsBelow300).
  bool reproducible_layout = false;
  // Puts the child in a new process group (its pid is the group id), so
  // kill(-pid, ...) reaches it and everything it starts.
  bool new_process_group = false;
  // {parent fd, child fd}: dup2'ed in the child, in this order, first.
  std::vector<std::pair<int, int>> fds;
  // Opened read-only as the child's stdin when not empty.
  std::string stdin_path;
  // Created (truncated) as the child's stdout and stderr when not empty.
  std::string output_path;
  // The child's working directory when not empty (after output_path is
  // opened); a directory that cannot be entered fails the spawn.
  std::string working_directory;
  // Kills the child (SIGKILL) when the thread that spawned it ends, or this
  // process does, however it ends: so that a tool killed with SIGKILL
  // leaves no valgrind measuring on. Keep the child in the thread that
  // spawned it: the kernel ties it to that thread (PR_SET_PDEATHSIG).
  // Costs a fork rather than posix_spawn's lighter start.
  bool die_with_parent = false;
};

// Starts argv[0] (looked up on PATH) with `argv`; does not wait. NotFound,
// naming the command and the reason, when it cannot be started.
absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, const SpawnOptions& options);

struct CommandResult {
  int exit_code = -1;      // valid when signal == 0
  int signal = 0;          // the signal that killed the child, or 0
  bool timed_out = false;  // killed at CommandOptions::timeout_seconds
  std::string output;      // stdout and stderr, interleaved, up to then

  // How a child ended, from waitpid's status (output left empty).
  static CommandResult FromWaitStatus(int status);
};

struct CommandOptions {
  // Replaces the environment ("NAME=value" strings) when set.
  std::optional<std::vector<std::string>> env;
  // As SpawnOptions::reproducible_layout.
  bool reproducible_layout = false;
  // As SpawnOptions::working_directory.
  std::string working_directory;
  // Called with each line of output (without its newline) as it arrives,
  // for progress; the result still has all of it.
  std::function<void(const std::string& line)> on_line;
  // More descriptors for the child, as SpawnOptions::fds, after its stdout
  // and stderr: e.g. {{file, 3}} for an answer apart from its output.
  std::vector<std::pair<int, int>> fds;
  // As SpawnOptions::die_with_parent (RunCommand waits in the calling
  // thread, so the child is always kept there).
  bool die_with_parent = false;
  // When above 0, the child's process group (it gets one of its own) is
  // killed with SIGKILL once the command has run this many seconds, and
  // the result says timed_out.
  double timeout_seconds = 0;
};

// When this process's pid is below 300, starts and reaps children that exit
// at once until the next pid is at least 300; otherwise does nothing.
//
// Why: a fresh PID namespace (a container, bazel's sandbox) hands out small
// pids first, and a small pid is stored differently: Python preallocates
// the ints up to 256, so a process whose pid (its main thread's id, which
// `threading` records) is at most 256 allocates one object fewer, and the
// heap after it, and counts, move (torch.add: 0.03%; a run's first worker in
// a container against a later one's). The kernel hands out pids below 300
// (RESERVED_PIDS) only until a namespace's pids first wrap, and this
// process's children get larger pids than it, or wrapped ones of 300 on.
void UsePidsBelow300();

// Runs argv[0] (looked up on PATH) with `argv`, waiting for it, with stdin
// from /dev/null. Fails only when the command cannot be started; a non-zero
// exit is reported in the result.
absl::StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                         const CommandOptions& options = {});

// "exit code 1", "killed by signal 11 (Segmentation fault)" or "killed at
// its timeout of 30 s" (`timeout_seconds`, CommandOptions').
std::string DescribeExit(const CommandResult& result, double timeout_seconds = 0);

// How a function run by RunInChild ended.
struct ChildOutcome {
  // The function returned; exit_code is its value.
  bool returned = false;
  bool timed_out = false;  // killed after the timeout
  CommandResult exit;      // how the child process ended
};

// Runs `body` in a forked child (sharing stdout and stderr) and waits, at
// most `timeout_seconds` (0: no limit), for it: a statement that crashes,
// calls exit() or hangs then ends the child, not the caller, and the
// outcome says which. The child returns `body`'s value as its exit code.
//
//   absl::StatusOr<ChildOutcome> outcome = RunInChild([&] { return Measure(); }, 600);
//   if (outcome.ok() && !outcome->returned) ... // crashed, exited or timed out
absl::StatusOr<ChildOutcome> RunInChild(const std::function<int()>& body, double timeout_seconds);

}  // namespace icount::base

#endif  // ICOUNT_BASE_SUBPROCESS_H_
