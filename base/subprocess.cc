#include "base/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

extern char** environ;

namespace icount::base {
namespace {

std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (const std::string& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

// The highest descriptor a child started with `options` is given.
int HighestChildFd(const SpawnOptions& options) {
  int highest = STDERR_FILENO;
  for (const auto& [parent_fd, child_fd] : options.fds) {
    highest = std::max({highest, parent_fd, child_fd});
  }
  return highest;
}

// In a child ForkAndExec forked: sets up what `options` ask, as posix_spawn
// does, and execs; a step's errno goes to `error_fd` when it fails. Only
// async-signal-safe calls: the parent may have other threads.
[[noreturn]] void SetUpAndExec(char* const* args, char* const* envp, const SpawnOptions& options,
                               pid_t parent, int error_fd) {
  const auto fail = [error_fd] {
    const int error = errno;
    (void)!write(error_fd, &error, sizeof(error));
    _exit(127);
  };
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail();
  if (getppid() != parent) _exit(127);  // the parent ended before prctl
  if (options.new_process_group && setpgid(0, 0) != 0) fail();
  for (const auto& [parent_fd, child_fd] : options.fds) {
    // dup2 onto itself would keep close-on-exec, which posix_spawn clears.
    if (parent_fd == child_fd ? fcntl(child_fd, F_SETFD, 0) != 0 : dup2(parent_fd, child_fd) < 0) {
      fail();
    }
  }
  const auto open_as = [&fail](const char* path, int flags, int fd) {
    const int opened = open(path, flags, 0644);
    if (opened < 0) fail();
    if (opened != fd && (dup2(opened, fd) < 0 || close(opened) != 0)) fail();
  };
  if (!options.stdin_path.empty()) open_as(options.stdin_path.c_str(), O_RDONLY, STDIN_FILENO);
  if (!options.output_path.empty()) {
    open_as(options.output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, STDOUT_FILENO);
    if (dup2(STDOUT_FILENO, STDERR_FILENO) < 0) fail();
  }
  if (!options.working_directory.empty() && chdir(options.working_directory.c_str()) != 0) fail();
  execvpe(args[0], args, envp);
  fail();
  _exit(127);
}

// Spawn for SpawnOptions::die_with_parent, which posix_spawn cannot set:
// fork, set up and exec. Returns 0 and sets *pid, or the errno of the
// step that failed (as posix_spawnp does).
int ForkAndExec(pid_t* pid, char* const* args, char* const* envp, const SpawnOptions& options) {
  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0) return errno;
  // Above every descriptor the child is given, so that no dup2 replaces it.
  const int error_fd = fcntl(error_pipe[1], F_DUPFD_CLOEXEC, HighestChildFd(options) + 1);
  const int dup_error = errno;
  close(error_pipe[1]);
  if (error_fd < 0) {
    close(error_pipe[0]);
    return dup_error;
  }
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child == 0) SetUpAndExec(args, envp, options, parent, error_fd);
  const int fork_error = errno;
  close(error_fd);
  if (child < 0) {
    close(error_pipe[0]);
    return fork_error;
  }
  // Nothing to read once exec closed the write end: the child started.
  int error = 0;
  ssize_t n = 0;
  while ((n = read(error_pipe[0], &error, sizeof(error))) < 0 && errno == EINTR) {
  }
  close(error_pipe[0]);
  if (n != static_cast<ssize_t>(sizeof(error))) {
    *pid = child;
    return 0;
  }
  while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
  }
  return error;
}

}  // namespace

void UsePidsBelow300() {
  constexpr pid_t kReservedPids = 300;  // the kernel's RESERVED_PIDS
  if (getpid() >= kReservedPids) return;
  for (int i = 0; i < kReservedPids; ++i) {
    // vfork: nothing is copied; the child only exits.
    const pid_t pid = vfork();
    if (pid == 0) _exit(0);
    if (pid < 0) return;
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    if (pid >= kReservedPids - 1) return;
  }
}

absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, const SpawnOptions& options) {
  if (argv.empty()) return absl::InvalidArgumentError("Spawn: empty command");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  for (const auto& [parent_fd, child_fd] : options.fds) {
    posix_spawn_file_actions_adddup2(&actions, parent_fd, child_fd);
  }
  if (!options.stdin_path.empty()) {
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, options.stdin_path.c_str(), O_RDONLY,
                                     0);
  }
  if (!options.output_path.empty()) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, options.output_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  }
  if (!options.working_directory.empty()) {
    posix_spawn_file_actions_addchdir_np(&actions, options.working_directory.c_str());
  }
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  if (options.new_process_group) {
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
  }
  std::vector<char*> args = CStrings(argv);
  std::vector<char*> envp = options.env.has_value() ? CStrings(*options.env) : std::vector<char*>{};
  pid_t pid = -1;
  if (options.reproducible_layout) UsePidsBelow300();
  // The personality is inherited across exec; set it only around the spawn.
  const int previous_personality = personality(0xffffffff);
  if (options.reproducible_layout) personality(previous_personality | ADDR_NO_RANDOMIZE);
  char* const* environment = options.env.has_value() ? envp.data() : environ;
  const int error = options.die_with_parent ? ForkAndExec(&pid, args.data(), environment, options)
                                            : posix_spawnp(&pid, args[0], &actions, &attributes,
                                                           args.data(), environment);
  if (options.reproducible_layout) personality(previous_personality);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    return absl::NotFoundError(
        absl::StrCat("cannot run `", absl::StrJoin(argv, " "), "`: ", std::strerror(error)));
  }
  return pid;
}

CommandResult CommandResult::FromWaitStatus(int status) {
  CommandResult result;
  if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  } else {
    result.exit_code = WEXITSTATUS(status);
  }
  return result;
}

namespace {

// Waits until `fd` can be read (or has reached its end); false once
// `deadline` has passed first.
bool ReadableBefore(int fd, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd readable = {fd, POLLIN, 0};
    const int ready = poll(&readable, 1, static_cast<int>(left.count()));
    if (ready > 0 || (ready < 0 && errno != EINTR)) return true;  // read() says which
    if (ready == 0) return false;
  }
}

}  // namespace

absl::StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                         const CommandOptions& options) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  SpawnOptions spawn;
  spawn.env = options.env;
  spawn.reproducible_layout = options.reproducible_layout;
  spawn.working_directory = options.working_directory;
  spawn.die_with_parent = options.die_with_parent;
  // Its own group, so that the timeout ends what it started too.
  spawn.new_process_group = options.timeout_seconds > 0;
  spawn.fds = {{pipe_fds[1], STDOUT_FILENO}, {pipe_fds[1], STDERR_FILENO}};
  spawn.fds.insert(spawn.fds.end(), options.fds.begin(), options.fds.end());
  spawn.stdin_path = "/dev/null";
  absl::StatusOr<pid_t> pid = Spawn(argv, spawn);
  close(pipe_fds[1]);
  if (!pid.ok()) {
    close(pipe_fds[0]);
    return pid.status();
  }
  std::string output;
  size_t reported = 0;  // output before this offset went to on_line
  char buffer[65536];
  const std::chrono::steady_clock::time_point deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(
              options.timeout_seconds > 0 ? std::min(options.timeout_seconds, 1e9) : 0.0));
  bool timed_out = false;
  for (;;) {
    if (options.timeout_seconds > 0 && !ReadableBefore(pipe_fds[0], deadline)) {
      // Not waiting for the pipe's end: a process outside the group may
      // hold it open.
      kill(-*pid, SIGKILL);
      timed_out = true;
      break;
    }
    const ssize_t n = read(pipe_fds[0], buffer, sizeof(buffer));
    if (n > 0) {
      output.append(buffer, static_cast<size_t>(n));
      for (size_t end; options.on_line && (end = output.find('\n', reported)) != std::string::npos;
           reported = end + 1) {
        options.on_line(output.substr(reported, end - reported));
      }
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  if (options.on_line && reported < output.size()) options.on_line(output.substr(reported));
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(*pid, &status, 0) < 0 && errno == EINTR) {
  }
  CommandResult result = CommandResult::FromWaitStatus(status);
  result.timed_out = timed_out;
  result.output = std::move(output);
  return result;
}

std::string DescribeExit(const CommandResult& result, double timeout_seconds) {
  if (result.timed_out) {
    return timeout_seconds > 0 ? absl::StrCat("killed at its timeout of ", timeout_seconds, " s")
                               : "killed at its timeout";
  }
  if (result.signal != 0) {
    return absl::StrCat("killed by signal ", result.signal, " (", strsignal(result.signal), ")");
  }
  return absl::StrCat("exit code ", result.exit_code);
}

absl::StatusOr<ChildOutcome> RunInChild(const std::function<int()>& body, double timeout_seconds) {
  // The child writes one byte when `body` returns: a child that ends without
  // it was ended by what it ran.
  int returned[2];
  if (pipe(returned) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  if (child == 0) {
    close(returned[0]);
    const int code = body();
    std::fflush(nullptr);
    const char byte = 1;
    (void)!write(returned[1], &byte, 1);
    _exit(code);
  }
  close(returned[1]);
  ChildOutcome outcome;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration<double>(timeout_seconds > 0 ? timeout_seconds : 0);
  int status = 0;
  while (true) {
    const pid_t waited = waitpid(child, &status, timeout_seconds > 0 ? WNOHANG : 0);
    if (waited == child) break;
    if (waited < 0 && errno != EINTR) {
      close(returned[0]);
      return absl::InternalError(absl::StrCat("waitpid: ", std::strerror(errno)));
    }
    if (waited == 0 && std::chrono::steady_clock::now() > deadline) {
      kill(child, SIGKILL);
      outcome.timed_out = true;
      while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    if (waited == 0) usleep(10000);
  }
  char byte = 0;
  fcntl(returned[0], F_SETFL, O_NONBLOCK);
  outcome.returned = !outcome.timed_out && read(returned[0], &byte, 1) == 1;
  close(returned[0]);
  outcome.exit = CommandResult::FromWaitStatus(status);
  return outcome;
}

}  // namespace icount::base
