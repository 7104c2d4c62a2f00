#include "timer/internal/subprocess.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

extern char** environ;

namespace icount::timer_internal {
namespace {

std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (const std::string& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

absl::StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                         const CommandOptions& options) {
  const std::optional<std::vector<std::string>>& env = options.env;
  if (argv.empty()) return absl::InvalidArgumentError("RunCommand: empty command");
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args = CStrings(argv);
  std::vector<char*> envp = env.has_value() ? CStrings(*env) : std::vector<char*>{};
  pid_t pid = 0;
  // The personality is inherited across exec; set it only around the spawn.
  const int previous_personality = personality(0xffffffff);
  if (options.disable_aslr) personality(previous_personality | ADDR_NO_RANDOMIZE);
  const int spawn_error = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(),
                                       env.has_value() ? envp.data() : environ);
  if (options.disable_aslr) personality(previous_personality);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawn_error != 0) {
    close(pipe_fds[0]);
    return absl::NotFoundError(absl::StrCat("cannot run `", absl::StrJoin(argv, " "),
                                            "`: ", std::strerror(spawn_error)));
  }
  CommandResult result;
  char buffer[65536];
  for (;;) {
    const ssize_t n = read(pipe_fds[0], buffer, sizeof(buffer));
    if (n > 0) {
      result.output.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  } else {
    result.exit_code = WEXITSTATUS(status);
  }
  return result;
}

std::string DescribeExit(const CommandResult& result) {
  if (result.signal != 0) {
    return absl::StrCat("killed by signal ", result.signal, " (", strsignal(result.signal), ")");
  }
  return absl::StrCat("exit code ", result.exit_code);
}

}  // namespace icount::timer_internal
