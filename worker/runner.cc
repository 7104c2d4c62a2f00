#include "worker/runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/util/json_util.h>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/files.h"
#include "base/fnv.h"
#include "base/proto_json.h"
#include "base/subprocess.h"
#include "timer/callgrind_command.h"
#include "timer/measurement_io.h"
#include "timer/valgrind_log.h"
#include "worker/worker.h"

namespace icount {
namespace {

constexpr char kJournalHeaderKey[] = "\"icount_journal\"";

// ---- SIGINT ----------------------------------------------------------------

int interrupt_pipe[2] = {-1, -1};
volatile sig_atomic_t interrupted = 0;

void OnInterrupt(int) {
  interrupted = 1;
  const char byte = 1;
  (void)!write(interrupt_pipe[1], &byte, 1);
}

// SIGINT/SIGTERM handling while any RunOrders is active. Runs may overlap
// (ab_test runs A and B at once): the first scope installs the handler and
// the pipe, the last restores the previous handlers, so an interrupt
// reaches every active run (nobody drains the pipe: it stays readable) and
// a run that ends early does not leave the others without a handler.
class InterruptScope {
 public:
  InterruptScope() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (active_++ > 0) return;
    interrupted = 0;
    if (pipe(interrupt_pipe) == 0) {
      fcntl(interrupt_pipe[0], F_SETFL, O_NONBLOCK);
      fcntl(interrupt_pipe[1], F_SETFL, O_NONBLOCK);
    }
    struct sigaction action;
    std::memset(&action, 0, sizeof(action));
    action.sa_handler = OnInterrupt;
    sigaction(SIGINT, &action, &previous_int_);
    sigaction(SIGTERM, &action, &previous_term_);
  }
  ~InterruptScope() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--active_ > 0) return;
    sigaction(SIGINT, &previous_int_, nullptr);
    sigaction(SIGTERM, &previous_term_, nullptr);
    close(interrupt_pipe[0]);
    close(interrupt_pipe[1]);
  }

 private:
  static inline std::mutex mutex_;
  static inline int active_ = 0;
  static inline struct sigaction previous_int_;
  static inline struct sigaction previous_term_;
};

// ---- journal ---------------------------------------------------------------

std::string OrdersChecksum(const std::vector<worker::WorkOrderProto>& orders) {
  std::vector<std::string> keys;
  for (const worker::WorkOrderProto& order : orders) {
    worker::WorkOrderProto key = order;
    key.clear_timeout_seconds();  // changing a timeout does not change the work
    keys.push_back(key.SerializeAsString());
  }
  std::sort(keys.begin(), keys.end());
  base::Fnv1a64 hash;
  for (const std::string& key : keys) hash.Add(key);
  return hash.Hex();
}

struct Journal {
  std::string checksum;
  std::vector<worker::WorkerResultProto> results;
};

absl::StatusOr<Journal> ParseJournal(const std::string& path) {
  absl::StatusOr<std::string> text = base::ReadFileToString(path);
  if (!text.ok()) return text.status();
  if (!text->empty() && text->back() != '\n') {
    return absl::DataLossError(absl::StrCat(
        path, ": the last line is incomplete; this is not a journal icount finished writing"));
  }
  Journal journal;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(*text, '\n', absl::SkipEmpty())) {
    ++line_number;
    if (line_number == 1) {
      // {"icount_journal":1,"orders_checksum":"..."}
      const size_t key = line.find("\"orders_checksum\":\"");
      if (!absl::StartsWith(line, absl::StrCat("{", kJournalHeaderKey)) ||
          key == absl::string_view::npos) {
        return absl::InvalidArgumentError(absl::StrCat(
            path, ":1: not an icount results journal (its first line is not the journal header)"));
      }
      const size_t start = key + std::strlen("\"orders_checksum\":\"");
      journal.checksum = std::string(line.substr(start, line.find('"', start) - start));
      continue;
    }
    worker::WorkerResultProto result;
    auto status = google::protobuf::util::JsonStringToMessage(
        google::protobuf::StringPiece(line.data(), line.size()), &result);
    if (!status.ok()) {
      return absl::DataLossError(absl::StrCat(
          path, ":", line_number, ": corrupt result line: ", status.message().as_string()));
    }
    journal.results.push_back(std::move(result));
  }
  if (line_number == 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": empty, not an icount journal"));
  }
  return journal;
}

// ---- worker processes --------------------------------------------------------

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

absl::StatusOr<WorkerProcess> SpawnWorker(const std::vector<std::string>& argv,
                                          const std::vector<std::string>& env,
                                          const std::string& log_path, bool disable_aslr) {
  int orders[2];
  int results[2];
  if (pipe(orders) != 0 || pipe(results) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  fcntl(orders[1], F_SETFD, FD_CLOEXEC);
  fcntl(results[0], F_SETFD, FD_CLOEXEC);
  base::SpawnOptions options;
  options.env = env;
  options.disable_aslr = disable_aslr;
  // Its own process group: an interrupt kills the worker and everything it
  // started (valgrind, zygote, cases) with one kill(-pgid).
  options.new_process_group = true;
  options.fds = {{orders[0], 0}, {results[1], 3}};
  options.output_path = log_path;
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

// Stops the worker and everything in its process group; returns how the
// worker ended ("exit code 1", "killed by signal 4 (Illegal instruction)").
// Without kill_now it first gives a worker whose result stream ended two
// seconds to exit by itself, so a crash is reported as the crash.
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

// What a worker that died left to explain it: valgrind's diagnosis and log
// (when valgrind ran it) and the worker's own output.
std::string WorkerEvidence(const WorkerProcess& process) {
  std::string evidence;
  if (!process.valgrind_log_path.empty()) {
    const std::string report = ValgrindLogReport(process.valgrind_log_path);
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

// LibTorch and CPython start under valgrind in 10-60 s; a worker whose
// canary has not come back after this long is not going to work.
constexpr int kStartupTimeoutSeconds = 600;
// Workers of one phase that may die in a row before their first order
// (after another worker worked) before the phase stops.
constexpr int kStartupAttempts = 3;

bool Retriable(const worker::WorkerResultProto& result) {
  if (!result.has_failure()) return false;
  const std::string& kind = result.failure().kind();
  return kind == "crash" || kind == "timeout" || kind == "worker";
}

int CpuCount() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
}

// One pool of identical workers over a set of orders.
struct Phase {
  std::string name;
  bool valgrind = false;
  std::vector<size_t> orders;                 // indices
  std::vector<std::vector<int>> worker_cpus;  // one entry per worker; empty: no pinning
};

class Run {
 public:
  Run(const std::vector<worker::WorkOrderProto>& orders, const RunnerOptions& options,
      std::string scratch, std::vector<std::optional<worker::WorkerResultProto>>& results,
      int already_done)
      : orders_(orders),
        options_(options),
        scratch_(std::move(scratch)),
        results_(results),
        done_(already_done) {
    for (const auto& r : results_) {
      if (r.has_value() && r->has_failure()) ++failed_;
    }
  }

  absl::Status RunPhase(const Phase& phase) {
    phase_ = phase.name;
    std::deque<size_t> pending(phase.orders.begin(), phase.orders.end());
    std::vector<WorkerProcess> workers(phase.worker_cpus.size());
    std::map<size_t, int> attempts;
    StartupRecord startups;
    absl::Status status;
    while (status.ok() && (!pending.empty() || InFlight(workers) > 0)) {
      if (interrupted) break;
      // Start workers and hand out orders to those whose canary is back.
      for (size_t w = 0; w < workers.size() && status.ok(); ++w) {
        if (workers[w].in_flight.has_value() || pending.empty()) continue;
        if (workers[w].pid < 0) {
          absl::StatusOr<WorkerProcess> spawned = Spawn(phase, w);
          if (!spawned.ok()) {
            status = spawned.status();
            break;
          }
          workers[w] = *std::move(spawned);
        }
        if (!workers[w].ready) continue;
        const size_t index = pending.front();
        pending.pop_front();
        ++attempts[index];
        worker::WorkOrderProto order = orders_[index];
        if (order.timeout_seconds() <= 0) order.set_timeout_seconds(options_.timeout_seconds);
        if (!WriteFrame(workers[w].orders_fd, order.SerializeAsString()).ok()) {
          pending.push_front(index);
          --attempts[index];
          StopWorker(workers[w], true);
          continue;
        }
        workers[w].in_flight = index;
        workers[w].started = std::chrono::steady_clock::now();
      }
      if (!status.ok()) break;
      // Wait for a result, a canary, an interrupt or a second to pass.
      std::vector<pollfd> fds;
      std::vector<size_t> owners;
      for (size_t w = 0; w < workers.size(); ++w) {
        if (workers[w].in_flight.has_value() || (workers[w].pid >= 0 && !workers[w].ready)) {
          fds.push_back({workers[w].results_fd, POLLIN, 0});
          owners.push_back(w);
        }
      }
      fds.push_back({interrupt_pipe[0], POLLIN, 0});
      const int ready = poll(fds.data(), fds.size(), 1000);
      if (ready < 0 && errno != EINTR) {
        status = absl::InternalError(absl::StrCat("poll: ", std::strerror(errno)));
        break;
      }
      for (size_t i = 0; i + 1 < fds.size() && status.ok(); ++i) {
        WorkerProcess& process = workers[owners[i]];
        const bool readable = fds[i].revents & (POLLIN | POLLHUP | POLLERR);
        if (!process.ready) {
          status = CheckStartup(phase, process, readable, startups);
          continue;
        }
        const size_t index = *process.in_flight;
        std::optional<worker::WorkerResultProto> result;
        if (readable) {
          absl::StatusOr<std::optional<std::string>> frame = ReadFrame(process.results_fd);
          worker::WorkerResultProto parsed;
          if (frame.ok() && frame->has_value() && parsed.ParseFromString(**frame)) {
            result = std::move(parsed);
          } else {
            result = LostWorker(process, "the worker process died");
          }
        } else if (Overdue(process, index)) {
          result = LostWorker(process, "the worker stopped responding");
        }
        if (!result.has_value()) continue;
        process.in_flight.reset();
        if (Retriable(*result) && attempts[index] <= options_.retries) {
          pending.push_back(index);  // try again later, maybe on a new worker
          continue;
        }
        result->set_id(orders_[index].id());
        if (absl::Status appended =
                base::AppendLineDurably(options_.journal_path, base::ProtoToJson(*result));
            !appended.ok()) {
          status = appended;
          break;
        }
        if (result->has_failure()) ++failed_;
        ++done_;
        results_[index] = *std::move(result);
        Report();
      }
      ReportPeriodically();
    }
    for (WorkerProcess& process : workers) StopWorker(process, !status.ok() || interrupted);
    return status;
  }

  int done() const { return done_; }

 private:
  static int InFlight(const std::vector<WorkerProcess>& workers) {
    int n = 0;
    for (const WorkerProcess& w : workers) n += w.in_flight.has_value() ? 1 : 0;
    return n;
  }

  absl::StatusOr<WorkerProcess> Spawn(const Phase& phase, size_t w) {
    const std::string tag =
        absl::StrCat(phase.valgrind ? "callgrind" : "wall", "-", w, "-", spawned_++);
    std::vector<std::string> command = {options_.worker_path,
                                        absl::StrCat("--scratch=", scratch_, "/", tag),
                                        "--results_fd=3", "--canary"};
    if (!phase.worker_cpus[w].empty()) {
      std::vector<std::string> cpus;
      for (int cpu : phase.worker_cpus[w]) cpus.push_back(absl::StrCat(cpu));
      command.push_back(absl::StrCat("--cpus=", absl::StrJoin(cpus, ",")));
    }
    std::vector<std::string> env = MeasurementEnvironment(1);
    const std::string out_directory = absl::StrCat(scratch_, "/", tag, "-dumps");
    if (phase.valgrind) {
      mkdir(out_directory.c_str(), 0700);
      absl::StatusOr<std::vector<std::string>> wrapped = CallgrindCommand(command, out_directory);
      if (!wrapped.ok()) return wrapped.status();
      command = *std::move(wrapped);
      env.push_back(CallgrindOutDirectoryEnv(out_directory));
    }
    command.insert(command.begin(), options_.command_prefix.begin(), options_.command_prefix.end());
    absl::StatusOr<WorkerProcess> process =
        SpawnWorker(command, env, absl::StrCat(scratch_, "/", tag, ".log"), /*disable_aslr=*/true);
    if (process.ok()) {
      process->command = absl::StrJoin(command, " ");
      if (phase.valgrind) process->valgrind_log_path = ValgrindLogPath(out_directory);
      process->started = std::chrono::steady_clock::now();
    }
    return process;
  }

  bool Overdue(const WorkerProcess& process, size_t index) const {
    double timeout = orders_[index].timeout_seconds();
    if (timeout <= 0) timeout = options_.timeout_seconds;
    // The worker enforces the timeout itself; this only catches a worker
    // that hangs outside any case (valgrind start-up included).
    const double limit = timeout + 180;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - process.started)
               .count() > limit;
  }

  worker::WorkerResultProto LostWorker(WorkerProcess& process, const std::string& what) {
    const std::string ended = StopWorker(process, /*kill_now=*/what != "the worker process died");
    worker::WorkerResultProto result;
    result.mutable_failure()->set_kind("worker");
    result.mutable_failure()->set_reason(
        absl::StrCat(what, " (", ended, ") during this case.\n", WorkerEvidence(process)));
    return result;
  }

  // How this phase's workers fared before their first order.
  struct StartupRecord {
    bool any_ready = false;  // some worker's canary came back measured
    int failures_in_a_row = 0;
  };

  // A worker whose canary has not come back: `readable` when its result
  // stream has something (the canary, or the end of a dead worker). An
  // error stops the phase: when the canary ran but failed (every worker
  // would fail the same way), when no worker of this phase ever got ready,
  // or when workers keep failing to start; a worker that dies at start-up
  // after others worked is started again.
  absl::Status CheckStartup(const Phase& phase, WorkerProcess& process, bool readable,
                            StartupRecord& startups) {
    std::string what;
    if (readable) {
      absl::StatusOr<std::optional<std::string>> frame = ReadFrame(process.results_fd);
      worker::WorkerResultProto canary;
      if (frame.ok() && frame->has_value() && canary.ParseFromString(**frame) &&
          canary.id() == kCanaryOrderId) {
        if (!canary.has_failure()) {
          process.ready = true;
          startups.any_ready = true;
          startups.failures_in_a_row = 0;
          return absl::OkStatus();
        }
        StopWorker(process, true);
        return CannotMeasure(
            phase, process,
            absl::StrCat("its canary (an empty statement) failed: ", canary.failure().reason()));
      }
      what = absl::StrCat("died before measuring anything (", StopWorker(process, false), ")");
    } else if (std::chrono::steady_clock::now() - process.started >
               std::chrono::seconds(kStartupTimeoutSeconds)) {
      StopWorker(process, true);
      what = absl::StrCat("did not start within ", kStartupTimeoutSeconds, " s");
    } else {
      return absl::OkStatus();  // still starting
    }
    if (!startups.any_ready || ++startups.failures_in_a_row >= kStartupAttempts) {
      return CannotMeasure(phase, process, what);
    }
    return absl::OkStatus();  // started again when an order is waiting
  }

  absl::Status CannotMeasure(const Phase& phase, const WorkerProcess& process,
                             const std::string& what) const {
    return absl::FailedPreconditionError(absl::StrCat(
        phase.valgrind ? "instruction counts cannot be collected: the worker under valgrind "
                       : "wall time cannot be measured: the worker ",
        what, ".\n", WorkerEvidence(process), "\nThe worker: ", process.command,
        "\nFinished results are kept in ", options_.journal_path, "."));
  }

  RunnerProgress Progress() const {
    RunnerProgress progress;
    progress.done = done_;
    progress.failed = failed_;
    progress.total = static_cast<int>(orders_.size());
    progress.phase = phase_;
    progress.elapsed_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const int finished_here = done_ - initially_done_;
    if (finished_here > 0) {
      progress.eta_seconds =
          progress.elapsed_seconds / finished_here * (progress.total - progress.done);
    }
    return progress;
  }

  void Report() {
    if (options_.on_progress) options_.on_progress(Progress());
    last_report_ = std::chrono::steady_clock::now();
  }

  void ReportPeriodically() {
    if (std::chrono::steady_clock::now() - last_report_ >= std::chrono::seconds(1)) Report();
  }

  const std::vector<worker::WorkOrderProto>& orders_;
  const RunnerOptions& options_;
  std::string scratch_;
  std::vector<std::optional<worker::WorkerResultProto>>& results_;
  int done_;
  const int initially_done_ = done_;
  int failed_ = 0;
  int spawned_ = 0;
  std::string phase_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_report_ = start_;
};

}  // namespace

absl::StatusOr<std::vector<worker::WorkerResultProto>> ReadJournal(const std::string& path) {
  absl::StatusOr<Journal> journal = ParseJournal(path);
  if (!journal.ok()) return journal.status();
  return journal->results;
}

std::string FormatProgress(const RunnerProgress& progress, bool terminal) {
  auto duration = [](double seconds) {
    const int s = static_cast<int>(std::lround(seconds));
    return s >= 60 ? absl::StrFormat("%dm%02ds", s / 60, s % 60) : absl::StrFormat("%ds", s);
  };
  const std::string eta =
      progress.eta_seconds < 0 ? "ETA unknown" : "ETA " + duration(progress.eta_seconds);
  const std::string failed =
      progress.failed > 0 ? absl::StrCat(" (", progress.failed, " failed)") : "";
  if (!terminal) {
    return absl::StrCat("icount: ", progress.done, "/", progress.total, " done", failed, ", ",
                        progress.phase, ", ", duration(progress.elapsed_seconds), " elapsed, ",
                        eta);
  }
  constexpr int kWidth = 30;
  const int filled = progress.total > 0 ? kWidth * progress.done / progress.total : kWidth;
  return absl::StrCat("[", std::string(filled, '#'), std::string(kWidth - filled, '.'), "] ",
                      progress.done, "/", progress.total, failed, " ", progress.phase, ", ", eta);
}

std::optional<std::string> ProgressLog::Line(const RunnerProgress& progress) {
  if (progress.done == last_done_ &&
      progress.elapsed_seconds - last_line_seconds_ < heartbeat_seconds_) {
    return std::nullopt;
  }
  last_done_ = progress.done;
  last_line_seconds_ = progress.elapsed_seconds;
  return FormatProgress(progress, /*terminal=*/false);
}

absl::Status CheckNoOldJournal(const std::string& journal_path) {
  if (access(journal_path.c_str(), F_OK) != 0) return absl::OkStatus();
  return absl::AlreadyExistsError(absl::StrCat(
      journal_path, " exists from an earlier run: pass --resume to continue it, or remove it"));
}

absl::StatusOr<RunnerReport> RunOrders(const std::vector<worker::WorkOrderProto>& orders,
                                       const RunnerOptions& options) {
  std::set<std::string> ids;
  for (const worker::WorkOrderProto& order : orders) {
    if (order.wall_time() == order.callgrind()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "order \"", order.id(), "\" must ask for exactly one of wall_time and callgrind"));
    }
    if (!ids.insert(order.id()).second) {
      return absl::InvalidArgumentError(absl::StrCat("duplicate order id \"", order.id(), "\""));
    }
  }
  if (options.journal_path.empty()) return absl::InvalidArgumentError("no journal_path given");
  if (access(options.worker_path.c_str(), X_OK) != 0) {
    return absl::NotFoundError(
        absl::StrCat("worker binary not found or not executable: ", options.worker_path));
  }
  const std::string checksum = OrdersChecksum(orders);
  std::vector<std::optional<worker::WorkerResultProto>> results(orders.size());
  RunnerReport report;
  const bool journal_exists = access(options.journal_path.c_str(), F_OK) == 0;
  if (options.resume && journal_exists) {
    absl::StatusOr<Journal> journal = ParseJournal(options.journal_path);
    if (!journal.ok()) return journal.status();
    if (journal->checksum != checksum) {
      return absl::FailedPreconditionError(absl::StrCat(
          options.journal_path,
          ": was written for a different set of work orders (other cases or settings); "
          "rerun with the same settings, or without --resume and another output file"));
    }
    std::map<std::string, size_t> index_of;
    for (size_t i = 0; i < orders.size(); ++i) index_of[orders[i].id()] = i;
    for (worker::WorkerResultProto& result : journal->results) {
      auto it = index_of.find(result.id());
      if (it != index_of.end() && !result.has_failure()) {
        results[it->second] = std::move(result);
        ++report.resumed;
      }
    }
  } else if (absl::Status fresh = CheckNoOldJournal(options.journal_path); !fresh.ok()) {
    return fresh;
  } else if (absl::Status header = base::AppendLineDurably(
                 options.journal_path, absl::StrCat("{", kJournalHeaderKey,
                                                    ":1,\"orders_checksum\":\"", checksum, "\"}"));
             !header.ok()) {
    return header;
  }

  // Phases over what is left to do.
  const int cpus = CpuCount();
  const int jobs = options.jobs > 0 ? options.jobs : cpus;
  Phase counts{"instruction counts", true, {}, {}};
  std::map<int, Phase> wall;  // by num_threads
  for (size_t i = 0; i < orders.size(); ++i) {
    if (results[i].has_value()) continue;
    if (orders[i].callgrind()) {
      counts.orders.push_back(i);
    } else {
      const int threads = std::max(1, orders[i].task_spec().num_threads());
      wall[threads].orders.push_back(i);
    }
  }
  counts.worker_cpus.assign(std::min<size_t>(jobs, std::max<size_t>(1, counts.orders.size())), {});
  std::vector<Phase> phases = {counts};
  for (auto& [threads, phase] : wall) {
    phase.name = absl::StrCat("wall time, ", threads, " thread", threads > 1 ? "s" : "");
    if (threads == 1) {
      // One worker per CPU, pinned: no two timings share a core.
      for (int w = 0; w < std::min<int>(jobs, cpus); ++w) phase.worker_cpus.push_back({w});
    } else {
      std::vector<int> set;
      for (int c = 0; c < std::min(threads, cpus); ++c) set.push_back(c);
      phase.worker_cpus.push_back(threads <= cpus ? set : std::vector<int>{});
    }
    phases.push_back(phase);
  }

  absl::StatusOr<std::string> scratch = base::MakeTemporaryDirectory("icount-run");
  if (!scratch.ok()) return scratch.status();
  InterruptScope interrupts;
  Run run(orders, options, *scratch, results, report.resumed);
  absl::Status status;
  for (const Phase& phase : phases) {
    if (phase.orders.empty()) continue;
    status = run.RunPhase(phase);
    if (!status.ok() || interrupted) break;
  }
  // A phase that could not start keeps the logs its message points at.
  if (status.ok() || interrupted) base::RemoveDirectoryTree(*scratch);
  if (interrupted) {
    return absl::CancelledError(absl::StrCat("interrupted: ", run.done(), " of ", orders.size(),
                                             " orders finished and kept in ", options.journal_path,
                                             "; run the same command with --resume to continue"));
  }
  if (!status.ok()) return status;
  for (auto& result : results)
    report.results.push_back(result.value_or(worker::WorkerResultProto()));
  return report;
}

}  // namespace icount
