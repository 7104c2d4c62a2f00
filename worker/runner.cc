#include "worker/runner.h"

#include <poll.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/files.h"
#include "base/interrupts.h"
#include "base/phase_log.h"
#include "base/program_place.h"
#include "base/status.h"
#include "timer/callgrind_command.h"
#include "worker/case_dumps.h"
#include "worker/failure.h"
#include "worker/framing.h"
#include "worker/internal/journal.h"
#include "worker/internal/worker_process.h"
#include "worker/orders.h"
#include "worker/runner_setup.h"

namespace icount::worker {
namespace {

using base::Interrupted;
using base::InterruptFd;
using base::InterruptScope;
using internal::AppendToJournal;
using internal::CheckOrders;
using internal::EnvironmentAfter;
using internal::JournalUncompiledCases;
using internal::OpenJournal;
using internal::Phase;
using internal::PlanPhases;
using internal::SpawnWorker;
using internal::StopWorker;
using internal::StopWorkers;
using internal::WorkerEvidence;
using internal::WorkerProcess;

// LibTorch and CPython start under valgrind in 10-60 s; a worker whose
// canary has not come back after this long is not going to work.
constexpr int kStartupTimeoutSeconds = 600;
// Workers of one phase that may die in a row before their first order
// (after another worker worked) before the phase stops.
constexpr int kStartupAttempts = 3;

bool Retriable(const WorkerResultProto& result) {
  return result.has_failure() && IsRetryable(result.failure().kind());
}

class Run {
 public:
  Run(const std::vector<WorkOrderProto>& orders, const RunnerOptions& options, std::string scratch,
      timer::ObjectNames object_names, std::vector<std::optional<WorkerResultProto>>& results,
      int already_done)
      : orders_(orders),
        options_(options),
        scratch_(std::move(scratch)),
        object_names_(std::move(object_names)),
        results_(results),
        done_(already_done) {
    for (const auto& r : results_) {
      if (r.has_value() && r->has_failure()) ++failed_;
    }
  }

  // Runs `phase` on the workers started for it in the previous phase's
  // tail, if any, and on new ones. With `next`, the phase to run after
  // this one, its workers may start in this phase's tail
  // (MakeWayForNextPhase).
  absl::Status RunPhase(const Phase& phase, const Phase* next) {
    phase_ = phase.name;
    std::deque<size_t> pending(phase.orders.begin(), phase.orders.end());
    std::vector<WorkerProcess> workers = std::move(next_phase_workers_);
    next_phase_workers_.clear();
    workers.resize(phase.worker_cpus.size());
    if (next != nullptr && StartsWhilePhaseEnds(phase)) {
      next_phase_workers_.resize(next->worker_cpus.size());
    }
    std::map<size_t, int> attempts;
    StartupRecord startups;
    absl::Status status;
    while (status.ok() && (!pending.empty() || InFlight(workers) > 0)) {
      if (Stopping()) break;
      status = HandOutOrders(phase, workers, pending, attempts);
      if (!status.ok()) break;
      std::vector<std::pair<size_t, WorkerResultProto>> finished;
      status = WaitForResults(phase, workers, startups, finished);
      if (!status.ok()) break;
      // Workers start their next case before this process parses what the
      // last ones left.
      if (!finished.empty() && !Stopping()) {
        status = HandOutOrders(phase, workers, pending, attempts);
        if (!status.ok()) break;
      }
      status = KeepResults(phase, finished, pending, attempts);
      if (status.ok() && pending.empty() && !Stopping()) {
        status = MakeWayForNextPhase(workers, next);
      }
      ReportPeriodically();
    }
    StopWorkers(workers, !status.ok() || Stopping());
    if (!status.ok() || Stopping()) StopWorkers(next_phase_workers_, true);
    return status;
  }

  int done() const { return done_; }

  // Whether the run stops early: an interrupt, or the caller's
  // stop_requested (asked until it first says yes).
  bool Stopping() {
    if (!stop_requested_ && options_.stop_requested) stop_requested_ = options_.stop_requested();
    return stop_requested_ || Interrupted();
  }
  bool stop_requested() const { return stop_requested_; }
  // Whether the run stopped on check_result's error.
  bool result_rejected() const { return result_rejected_; }

 private:
  // How this phase's workers fared before their first order.
  struct StartupRecord {
    bool any_ready = false;  // some worker's canary came back measured
    int failures_in_a_row = 0;
  };

  // Waits for a result, a canary, an interrupt or a second to pass, and
  // takes each order that ended (its result, or its worker lost) into
  // `finished`. An error stops the phase (CheckStartup's, or poll's).
  absl::Status WaitForResults(const Phase& phase, std::vector<WorkerProcess>& workers,
                              StartupRecord& startups,
                              std::vector<std::pair<size_t, WorkerResultProto>>& finished) {
    std::vector<pollfd> fds;
    std::vector<size_t> owners;
    for (size_t w = 0; w < workers.size(); ++w) {
      if (workers[w].in_flight.has_value() || (workers[w].pid >= 0 && !workers[w].ready)) {
        fds.push_back({workers[w].results_fd, POLLIN, 0});
        owners.push_back(w);
      }
    }
    fds.push_back({InterruptFd(), POLLIN, 0});
    const int ready = poll(fds.data(), fds.size(), 1000);
    if (ready < 0 && errno != EINTR) {
      return absl::InternalError(absl::StrCat("poll: ", std::strerror(errno)));
    }
    absl::Status status;
    for (size_t i = 0; i + 1 < fds.size() && status.ok(); ++i) {
      WorkerProcess& process = workers[owners[i]];
      const bool readable = fds[i].revents & (POLLIN | POLLHUP | POLLERR);
      if (!process.ready) {
        status = CheckStartup(phase, process, readable, startups);
        continue;
      }
      const size_t index = *process.in_flight;
      std::optional<WorkerResultProto> result = ResultOf(process, index, readable);
      if (!result.has_value()) continue;
      process.in_flight.reset();
      finished.emplace_back(index, *std::move(result));
    }
    return status;
  }

  // The result of order `index`, in flight on `process`: what the worker
  // sent (`readable`), or a failure when the worker is lost; none while
  // the order runs.
  std::optional<WorkerResultProto> ResultOf(WorkerProcess& process, size_t index, bool readable) {
    std::optional<WorkerResultProto> result;
    if (readable) {
      absl::StatusOr<std::optional<std::string>> frame = ReadFrame(process.results_fd);
      WorkerResultProto parsed;
      if (frame.ok() && frame->has_value() && parsed.ParseFromString(**frame)) {
        result = std::move(parsed);
      } else {
        result = LostWorker(process, "the worker process died");
      }
    } else if (Overdue(process, index)) {
      result = LostWorker(process, "the worker stopped responding");
    }
    return result;
  }

  // Parses the finished orders' dumps and keeps each result in the
  // journal, or puts its order back in `pending` to be retried. An error
  // when the journal cannot be written or check_result rejects a result.
  absl::Status KeepResults(const Phase& phase,
                           std::vector<std::pair<size_t, WorkerResultProto>>& finished,
                           std::deque<size_t>& pending, std::map<size_t, int>& attempts) {
    absl::Status rejected;  // by check_result
    for (auto& [index, result] : finished) {
      const base::PhaseMark before_parsing = base::PhaseNow();
      ParseCaseDumps(result, object_names_);
      base::RecordPhase("runner", "parse a case's dumps", before_parsing);
      if (phase.valgrind && result.has_node()) {
        // The valgrind CallgrindCommand found for the worker.
        const absl::StatusOr<std::string>& valgrind = timer::ValgrindVersionOnce();
        result.mutable_node()->set_valgrind(!options_.valgrind_version.empty()
                                                ? options_.valgrind_version
                                            : valgrind.ok() ? *valgrind
                                                            : "unknown valgrind");
      }
      if (Retriable(result) && attempts[index] <= options_.retries) {
        pending.push_back(index);  // try again later, maybe on a new worker
        continue;
      }
      result.set_id(orders_[index].id());
      if (absl::Status appended = AppendToJournal(options_.journal_path, result); !appended.ok()) {
        return appended;
      }
      if (result.has_failure()) ++failed_;
      ++done_;
      results_[index] = std::move(result);
      // The other results that came with it are journaled first.
      if (options_.check_result && rejected.ok()) {
        rejected = options_.check_result(orders_[index], *results_[index]);
      }
      Report();
    }
    if (!rejected.ok()) {
      result_rejected_ = true;
      return absl::Status(rejected.code(),
                          absl::StrCat(rejected.message(), "\nFinished results are kept in ",
                                       options_.journal_path, "."));
    }
    return absl::OkStatus();
  }
  // Starts workers and gives an order to each ready one without one. An
  // error only when a worker cannot be started at all.
  absl::Status HandOutOrders(const Phase& phase, std::vector<WorkerProcess>& workers,
                             std::deque<size_t>& pending, std::map<size_t, int>& attempts) {
    for (size_t w = 0; w < workers.size(); ++w) {
      if (workers[w].in_flight.has_value() || pending.empty()) continue;
      if (workers[w].pid < 0) {
        absl::StatusOr<WorkerProcess> spawned = Spawn(phase, w);
        if (!spawned.ok()) return spawned.status();
        workers[w] = *std::move(spawned);
      }
      if (!workers[w].ready) continue;
      const size_t index = pending.front();
      pending.pop_front();
      ++attempts[index];
      WorkOrderProto order = orders_[index];
      if (order.timeout_seconds() <= 0) order.set_timeout_seconds(options_.timeout_seconds);
      // Counted cases leave their dumps for this process to parse
      // natively (ParseCaseDumps).
      if (order.callgrind()) order.set_return_dumps(true);
      if (!WriteFrame(workers[w].orders_fd, order.SerializeAsString()).ok()) {
        pending.push_front(index);
        --attempts[index];
        StopWorker(workers[w], true);
        continue;
      }
      workers[w].in_flight = index;
      workers[w].started = std::chrono::steady_clock::now();
    }
    return absl::OkStatus();
  }

  // Whether the next phase's workers may start while this phase's last
  // orders finish: after instruction counts, yes (starting disturbs no
  // count); after a wall-time phase, no: a start beside a wall-time
  // measurement would slow it.
  static bool StartsWhilePhaseEnds(const Phase& phase) { return phase.valgrind; }

  // Once every order of this phase is handed out, a worker of it with
  // nothing left to do stops and one of `next` starts in its place
  // (LibTorch, Python and its canary take ~1 s natively), so that the
  // CPU it frees does not idle until the phase's last order is done and
  // the next phase begins with workers ready. An error only when the
  // next phase's worker cannot be started at all.
  absl::Status MakeWayForNextPhase(std::vector<WorkerProcess>& workers, const Phase* next) {
    for (WorkerProcess& process : workers) {
      if (process.pid < 0 || process.in_flight.has_value()) continue;
      auto unstarted = std::find_if(next_phase_workers_.begin(), next_phase_workers_.end(),
                                    [](const WorkerProcess& w) { return w.pid < 0; });
      if (unstarted == next_phase_workers_.end()) return absl::OkStatus();
      StopWorker(process, /*kill_now=*/false);
      const size_t slot = static_cast<size_t>(unstarted - next_phase_workers_.begin());
      absl::StatusOr<WorkerProcess> spawned = Spawn(*next, slot);
      if (!spawned.ok()) return spawned.status();
      next_phase_workers_[slot] = *std::move(spawned);
    }
    return absl::OkStatus();
  }

  static int InFlight(const std::vector<WorkerProcess>& workers) {
    int n = 0;
    for (const WorkerProcess& w : workers) n += w.in_flight.has_value() ? 1 : 0;
    return n;
  }

  // The command line of worker `w` of `phase` (before valgrind's), whose
  // files are named by `tag`.
  std::vector<std::string> WorkerCommand(const Phase& phase, size_t w,
                                         const std::string& tag) const {
    std::vector<std::string> command = {options_.worker_path,
                                        absl::StrCat("--scratch=", scratch_, "/", tag),
                                        "--results_fd=3", "--canary"};
    // A phase of C++ cases only starts its workers without Python: they
    // skip `import torch` (7 s under callgrind), and C++ counts are the
    // same either way (worker/worker.cc forks C++ cases' zygotes first).
    const bool python = options_.python &&
                        std::any_of(phase.orders.begin(), phase.orders.end(),
                                    [this](size_t index) { return IsPythonOrder(orders_[index]); });
    command.push_back(python ? "--python=true" : "--python=false");
    if (!phase.worker_cpus[w].empty()) {
      std::vector<std::string> cpus;
      for (int cpu : phase.worker_cpus[w]) cpus.push_back(absl::StrCat(cpu));
      command.push_back(absl::StrCat("--cpus=", absl::StrJoin(cpus, ",")));
    }
    return command;
  }

  absl::StatusOr<WorkerProcess> Spawn(const Phase& phase, size_t w) {
    const std::string tag =
        absl::StrCat(phase.valgrind ? "callgrind" : "wall", "-", w, "-", spawned_++);
    std::vector<std::string> command = WorkerCommand(phase, w, tag);
    std::vector<std::string> env = timer::MeasurementEnvironment(1);
    const std::string out_directory = absl::StrCat(scratch_, "/", tag, "-dumps");
    if (phase.valgrind) {
      mkdir(out_directory.c_str(), 0700);
      env.push_back(timer::CallgrindOutDirectoryEnv(out_directory));
    }
    // The worker starts directly in the environment the prefix (an A/B
    // side's command) leaves, not under the prefix's shell, so that the
    // padding below covers what the command exports: padded before the
    // command, a side exporting a variable 16 bytes longer than the other's
    // counted add's Python case 12 instructions a run (0.2%) apart; padded
    // here, far less (docs/counts.md; worker_main.cc drops the pad).
    if (!options_.command_prefix.empty()) {
      std::vector<std::string> prefix = options_.launcher;
      prefix.insert(prefix.end(), options_.command_prefix.begin(), options_.command_prefix.end());
      absl::StatusOr<std::vector<std::string>> after =
          EnvironmentAfter(prefix, env, absl::StrCat(scratch_, "/", tag, ".env"));
      if (!after.ok()) return after.status();
      env = *std::move(after);
    }
    if (phase.valgrind) {
      timer::PadEnvironmentForStackLayout(command, env);
      absl::StatusOr<std::vector<std::string>> wrapped =
          timer::CallgrindCommand(command, out_directory, options_.cache_sim);
      if (!wrapped.ok()) return wrapped.status();
      command = *std::move(wrapped);
    }
    command.insert(command.begin(), options_.launcher.begin(), options_.launcher.end());
    // In the scratch directory, of one path length in every run: Python
    // keeps its working directory on the heap (add's Python case 1 counted
    // 6 instructions a run apart from directories 1 and 40 bytes long).
    absl::StatusOr<WorkerProcess> process =
        SpawnWorker(command, env, absl::StrCat(scratch_, "/", tag, ".log"),
                    /*reproducible_layout=*/true, scratch_);
    if (process.ok()) {
      process->command = absl::StrJoin(command, " ");
      if (!options_.command_prefix.empty()) {
        absl::StrAppend(&process->command, " (in the environment that ",
                        absl::StrJoin(options_.command_prefix, " "), " sets up)");
      }
      if (phase.valgrind) process->valgrind_log_path = timer::ValgrindLogPath(out_directory);
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

  WorkerResultProto LostWorker(WorkerProcess& process, const std::string& what) {
    const std::string ended = StopWorker(process, /*kill_now=*/what != "the worker process died");
    return FailureResult(FAILURE_WORKER, absl::StrCat(what, " (", ended, ") during this case.\n",
                                                      WorkerEvidence(process)));
  }

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
      WorkerResultProto canary;
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
            absl::StrCat("failed its canary (an empty statement): ", canary.failure().reason()));
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

  const std::vector<WorkOrderProto>& orders_;
  const RunnerOptions& options_;
  std::string scratch_;
  timer::ObjectNames object_names_;  // for ParseCaseDumps
  std::vector<std::optional<WorkerResultProto>>& results_;
  int done_;
  const int initially_done_ = done_;
  int failed_ = 0;
  int spawned_ = 0;
  // Workers of the next phase started in this one's tail; empty when the
  // next phase starts its own.
  std::vector<WorkerProcess> next_phase_workers_;
  bool stop_requested_ = false;
  bool result_rejected_ = false;
  std::string phase_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_report_ = start_;
};

// `orders` with each TorchScript artifact read through a link in `place`,
// "<place>/t<N>/<file>": torch keeps the path it loads from, so a
// TorchScript case counted with the length of the suite's build directory
// (0.5% between two checkouts, and between main and ci, whose runfiles
// trees differ in name).
absl::StatusOr<std::vector<WorkOrderProto>> OrdersWithPlacedArtifacts(
    const std::vector<WorkOrderProto>& orders, base::ProgramPlace& place) {
  std::vector<WorkOrderProto> placed = orders;
  std::map<std::string, std::string> links;  // directory -> its link in the place
  for (WorkOrderProto& order : placed) {
    const std::string& artifact = order.torchscript_artifact();
    const size_t slash = artifact.rfind('/');
    if (artifact.empty() || slash == std::string::npos) continue;
    const std::string directory = artifact.substr(0, slash);
    auto [link, added] = links.try_emplace(directory);
    if (added) {
      ICOUNT_ASSIGN_OR_RETURN(link->second,
                              place.LinkData(directory, absl::StrCat("t", links.size() - 1)));
    }
    order.set_torchscript_artifact(absl::StrCat(link->second, artifact.substr(slash)));
  }
  return placed;
}

}  // namespace

absl::StatusOr<RunnerReport> RunOrders(const std::vector<WorkOrderProto>& orders,
                                       const RunnerOptions& options) {
  ICOUNT_RETURN_IF_ERROR(CheckOrders(orders, options));
  // One run writes a journal at a time.
  ICOUNT_ASSIGN_OR_RETURN(internal::JournalLock lock,
                          internal::JournalLock::Acquire(options.journal_path));
  std::vector<std::optional<WorkerResultProto>> results(orders.size());
  RunnerReport report;
  ICOUNT_RETURN_IF_ERROR(OpenJournal(orders, options, results, report));
  ICOUNT_ASSIGN_OR_RETURN(const int uncompiled, JournalUncompiledCases(orders, options, results));
  const std::vector<Phase> phases = PlanPhases(orders, options, results);

  absl::StatusOr<std::string> real_scratch = base::MakeTemporaryDirectory("icount-run");
  if (!real_scratch.ok()) return real_scratch.status();
  // Workers start as /tmp/icount-path-XXXXXX/worker (base::ProgramPlace),
  // the same binary at a path of one length for every worker of every run,
  // wherever the binary was built. The stack is evened out by
  // PadEnvironmentForStackLayout.
  base::ProgramPlace place = base::ProgramPlace::Make(*real_scratch);
  const std::string& scratch = place.scratch();
  RunnerOptions run_options = options;
  ICOUNT_ASSIGN_OR_RETURN(run_options.worker_path, place.Link(options.worker_path, "worker"));
  ICOUNT_ASSIGN_OR_RETURN(const std::vector<WorkOrderProto> placed,
                          OrdersWithPlacedArtifacts(orders, place));
  // Counts name the worker's functions by the path it was built at, not the
  // one it ran from, which no other run shares: a report could then
  // match no frame of a case against its baseline.
  const absl::StatusOr<std::string> built_at = base::RealPath(options.worker_path);
  InterruptScope interrupts;
  const std::string worker_name = built_at.ok() ? *built_at : options.worker_path;
  Run run(placed, run_options, scratch, {{run_options.worker_path, worker_name}}, results,
          report.resumed + uncompiled);
  absl::Status status;
  for (size_t p = 0; p < phases.size(); ++p) {
    status = run.RunPhase(phases[p], p + 1 < phases.size() ? &phases[p + 1] : nullptr);
    if (!status.ok() || run.Stopping()) break;
  }
  // A phase that could not start keeps the logs its message points at.
  if (status.ok() || run.Stopping() || run.result_rejected()) {
    base::RemoveDirectoryTree(*real_scratch);
  } else {
    place.Keep();
  }
  if (Interrupted()) {
    return absl::CancelledError(
        absl::StrCat("interrupted: ", run.done(), " of ", orders.size(),
                     " orders finished and kept in ", options.journal_path,
                     options.how_to_continue.empty() ? "" : "; ", options.how_to_continue));
  }
  if (run.stop_requested()) {
    return absl::CancelledError(absl::StrCat("stopped early: ", run.done(), " of ", orders.size(),
                                             " orders finished and kept in ",
                                             options.journal_path));
  }
  if (!status.ok()) return status;
  for (auto& result : results) report.results.push_back(result.value_or(WorkerResultProto()));
  return report;
}

}  // namespace icount::worker
