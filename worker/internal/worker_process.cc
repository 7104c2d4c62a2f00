#include "worker/internal/worker_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/files.h"
#include "base/status.h"
#include "base/subprocess.h"
#include "timer/valgrind_log.h"

namespace icount::worker::internal {

absl::StatusOr<std::vector<std::string>> EnvironmentAfter(const std::vector<std::string>& prefix,
                                                          const std::vector<std::string>& env,
                                                          const std::string& scratch_file) {
  std::vector<std::string> argv = prefix;
  // The environment goes to a file: the command may print to stdout too.
  argv.insert(argv.end(),
              {"/bin/sh", "-c", "exec /usr/bin/env -0 > \"$1\"", "icount-env", scratch_file});
  base::CommandOptions options;
  options.env = env;
  ICOUNT_ASSIGN_OR_RETURN(base::CommandResult result, base::RunCommand(argv, options));
  absl::StatusOr<std::string> text = base::ReadFileToString(scratch_file);
  unlink(scratch_file.c_str());
  if (result.exit_code != 0 || result.signal != 0 || !text.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the environment's command failed (", base::DescribeExit(result),
                     result.output.empty() ? ")" : absl::StrCat("): ", result.output)));
  }
  std::vector<std::string> after;
  for (absl::string_view entry : absl::StrSplit(*text, '\0', absl::SkipEmpty())) {
    // "_" is the path of the program the shell ran last: the environment's
    // own, not the command's.
    if (!absl::StartsWith(entry, "_=")) after.emplace_back(entry);
  }
  return after;
}

absl::StatusOr<WorkerProcess> SpawnWorker(const std::vector<std::string>& argv,
                                          const std::vector<std::string>& env,
                                          const std::string& log_path, bool reproducible_layout,
                                          const std::string& working_directory) {
  int orders[2];
  int results[2];
  if (pipe(orders) != 0 || pipe(results) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  fcntl(orders[1], F_SETFD, FD_CLOEXEC);
  fcntl(results[0], F_SETFD, FD_CLOEXEC);
  base::SpawnOptions options;
  options.env = env;
  options.reproducible_layout = reproducible_layout;
  // Its own process group: an interrupt kills the worker and everything it
  // started (valgrind, zygote, cases) with one kill(-pgid).
  options.new_process_group = true;
  // And it ends with this process, even when this one is killed (SIGKILL),
  // rather than measuring on until its next result finds no reader. The
  // runner keeps each worker in the thread that started it.
  options.die_with_parent = true;
  options.fds = {{orders[0], 0}, {results[1], 3}};
  options.output_path = log_path;
  options.working_directory = working_directory;
  absl::StatusOr<pid_t> pid = base::Spawn(argv, options);
  close(orders[0]);
  close(results[1]);
  if (!pid.ok()) {
    close(orders[1]);
    close(results[0]);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot start the worker: ", pid.status().message()));
  }
  WorkerProcess process;
  process.pid = *pid;
  process.orders_fd = orders[1];
  process.results_fd = results[0];
  process.log_path = log_path;
  return process;
}

std::string StopWorker(WorkerProcess& process, bool kill_now) {
  if (process.orders_fd >= 0) close(process.orders_fd);
  process.orders_fd = -1;
  std::string ended = "still running (killed)";
  if (process.pid > 0) {
    int status = 0;
    pid_t waited = 0;
    if (!kill_now) {
      for (int i = 0; i < 200 && (waited = waitpid(process.pid, &status, WNOHANG)) == 0; ++i) {
        usleep(10000);
      }
    }
    if (waited != process.pid) {
      kill(-process.pid, SIGKILL);
      while ((waited = waitpid(process.pid, &status, 0)) < 0 && errno == EINTR) {
      }
    } else {
      ended = base::DescribeExit(base::CommandResult::FromWaitStatus(status));
    }
    // Whatever the worker left behind in its group goes too.
    kill(-process.pid, SIGKILL);
  }
  if (process.results_fd >= 0) close(process.results_fd);
  process.results_fd = -1;
  process.pid = -1;
  process.ready = false;
  return ended;
}

void StopWorkers(std::vector<WorkerProcess>& processes, bool kill_now) {
  for (WorkerProcess& process : processes) {
    if (process.orders_fd >= 0) close(process.orders_fd);
    process.orders_fd = -1;
  }
  for (WorkerProcess& process : processes) StopWorker(process, kill_now);
}

std::string WorkerEvidence(const WorkerProcess& process) {
  std::string evidence;
  if (!process.valgrind_log_path.empty()) {
    const std::string report = timer::ValgrindLogReport(process.valgrind_log_path);
    absl::StrAppend(&evidence, report.empty() ? "valgrind wrote no log" : report, "\n");
  }
  absl::StatusOr<std::string> log = base::ReadFileToString(process.log_path);
  if (!log.ok() || log->empty()) {
    absl::StrAppend(&evidence, "(the worker printed nothing)");
  } else {
    absl::StrAppend(&evidence, "--- the worker's output ---\n",
                    log->size() > 2000 ? "..." + log->substr(log->size() - 2000) : *log);
  }
  return evidence;
}

}  // namespace icount::worker::internal
