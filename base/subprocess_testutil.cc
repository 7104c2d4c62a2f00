#include "base/subprocess_testutil.h"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/subprocess.h"

namespace icount::base {

absl::StatusOr<std::string> HowAStartedProcessEndsWhenItsStarterIsKilled(
    const std::function<pid_t()>& start) {
  // Orphans come to this process, which can then wait for them.
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    return absl::InternalError(absl::StrCat("PR_SET_CHILD_SUBREAPER: ", std::strerror(errno)));
  }
  int pid_pipe[2];
  if (pipe(pid_pipe) != 0) return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  const pid_t starter = fork();
  if (starter == 0) {
    close(pid_pipe[0]);
    const pid_t started = start();
    if (write(pid_pipe[1], &started, sizeof(started)) != sizeof(started)) _exit(1);
    pause();
    _exit(0);
  }
  close(pid_pipe[1]);
  pid_t started = -1;
  const bool read_pid = starter > 0 && read(pid_pipe[0], &started, sizeof(started)) ==
                                           static_cast<ssize_t>(sizeof(started));
  close(pid_pipe[0]);
  if (starter > 0) {
    kill(starter, SIGKILL);
    while (waitpid(starter, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  std::string ended;
  int status = 0;
  if (read_pid && started > 0) {
    while (waitpid(started, &status, 0) < 0 && errno == EINTR) {
    }
    ended = DescribeExit(CommandResult::FromWaitStatus(status));
  }
  prctl(PR_SET_CHILD_SUBREAPER, 0);
  if (!read_pid || started <= 0) return absl::InternalError("the starter started nothing");
  return ended;
}

}  // namespace icount::base
