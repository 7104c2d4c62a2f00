#ifndef ICOUNT_WORKER_INTERNAL_WORKER_PROCESS_H_
#define ICOUNT_WORKER_INTERNAL_WORKER_PROCESS_H_

// One worker process as the runner sees it: started in a process group of
// its own with its order and result streams, stopped with everything it
// started, and explained (valgrind's diagnosis, the worker's output) when it
// dies.
//
//   absl::StatusOr<WorkerProcess> worker = SpawnWorker(argv, env, log, true);
//   WriteFrame(worker->orders_fd, ...);  ReadFrame(worker->results_fd);
//   std::string ended = StopWorker(*worker, /*kill_now=*/false);

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace icount::worker::internal {

struct WorkerProcess {
  pid_t pid = -1;
  int orders_fd = -1;             // we write orders
  int results_fd = -1;            // we read results
  std::string log_path;           // the worker's stdout and stderr
  std::string valgrind_log_path;  // valgrind's own log; empty when native
  std::string command;            // for messages
  // Whether its canary (the first result, see WorkerOptions::canary)
  // came back measured; until then it gets no orders.
  bool ready = false;
  std::optional<size_t> in_flight;                // index into orders
  std::chrono::steady_clock::time_point started;  // the process, then each order
};

// Starts `argv` with `env` in `working_directory`, its orders on fd 0 and
// its results on fd 3, stdout and stderr in `log_path`, in a new process
// group. The worker is killed when the calling thread ends (or this
// process, however it ends): stop it in the thread that started it.
absl::StatusOr<WorkerProcess> SpawnWorker(const std::vector<std::string>& argv,
                                          const std::vector<std::string>& env,
                                          const std::string& log_path, bool reproducible_layout,
                                          const std::string& working_directory = "");

// The environment that `prefix` (e.g. {"/bin/bash", "-c", "<command> && exec
// \"$@\"", "icount-env"}, an A/B side's set-up) leaves when started with
// `env`, without the shell's own "_": the environment to start a worker in
// directly, so that what the command exports is part of what
// PadEnvironmentForStackLayout evens out. `scratch_file` receives it on the
// way. An error when the prefix fails, with its exit and output.
absl::StatusOr<std::vector<std::string>> EnvironmentAfter(const std::vector<std::string>& prefix,
                                                          const std::vector<std::string>& env,
                                                          const std::string& scratch_file);

// Stops the worker and everything in its process group; returns how the
// worker ended ("exit code 1", "killed by signal 4 (Illegal instruction)").
// Without kill_now it first gives a worker whose result stream ended two
// seconds to exit by itself, so a crash is reported as the crash.
std::string StopWorker(WorkerProcess& process, bool kill_now);

// StopWorker for each, all told to stop (their order streams closed) before
// any is waited for: they exit side by side, not one after another (a
// worker under valgrind takes ~0.3 s to end).
void StopWorkers(std::vector<WorkerProcess>& processes, bool kill_now);

// What a worker that died left to explain it: valgrind's diagnosis and log
// (when valgrind ran it) and the end of the worker's own output.
std::string WorkerEvidence(const WorkerProcess& process);

}  // namespace icount::worker::internal

#endif  // ICOUNT_WORKER_INTERNAL_WORKER_PROCESS_H_
