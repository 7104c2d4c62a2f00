#include "slurm/executor.h"

#include <dirent.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "base/files.h"
#include "base/fnv.h"
#include "base/interrupts.h"
#include "base/status.h"
#include "base/text.h"
#include "slurm/shard_task.pb.h"
#include "slurm/shard_task_options.h"
#include "slurm/shards.h"
#include "slurm/slurm_commands.h"
#include "slurm/task_log.h"
#include "worker/failure.h"
#include "worker/runner.h"

namespace icount::slurm {
namespace {

using base::Interrupted;
using base::InterruptFd;
using base::InterruptScope;

// Lines of a task's log quoted when it is given up.
constexpr int kLogTailLines = 15;

std::string ShardPath(const std::string& dir, int shard, const char* suffix) {
  return absl::StrCat(dir, "/shard_", shard, suffix);
}

struct Shard {
  int index = 0;
  std::vector<size_t> orders;  // into the run's orders
  int submissions = 0;
  std::string job_id;  // the array of its current task; empty: none queued or running
  bool finished = false;
  std::string given_up;  // why its unfinished orders failed
};

// Results in a shard's journal by order id, the last one of each (a
// resubmitted task reruns what failed before); none when there is no
// journal yet, and the reader's error (file and line) when it is not one.
absl::StatusOr<std::map<std::string, worker::WorkerResultProto>> JournalResults(
    const std::string& path) {
  std::map<std::string, worker::WorkerResultProto> by_id;
  if (access(path.c_str(), F_OK) != 0) return by_id;
  ICOUNT_ASSIGN_OR_RETURN(std::vector<worker::WorkerResultProto> results,
                          worker::ReadJournal(path));
  for (worker::WorkerResultProto& result : results) {
    const std::string id = result.id();
    by_id[id] = std::move(result);
  }
  return by_id;
}

// Counts finished results in journals cheaply while a run is under way:
// a journal is re-read only when its size changed.
class JournalCounter {
 public:
  int Count(const std::string& path) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return 0;
    Entry& entry = entries_[path];
    if (entry.size != st.st_size) {
      entry.size = st.st_size;
      absl::StatusOr<std::string> text = base::ReadFileToString(path);
      // Whole lines after the header.
      entry.lines =
          text.ok() ? std::max<int>(0, std::count(text->begin(), text->end(), '\n') - 1) : 0;
    }
    return entry.lines;
  }

 private:
  struct Entry {
    off_t size = -1;
    int lines = 0;
  };
  std::map<std::string, Entry> entries_;
};

absl::Status CheckWritableDirectory(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) {
    return absl::NotFoundError(
        absl::StrCat("--shared_dir=", dir,
                     " does not exist: create it on a file system every node mounts "
                     "at the same path"));
  }
  if (!S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat("--shared_dir=", dir, " is not a directory"));
  }
  // access() says what the mode bits allow; a probe file says what the file
  // system does (read-only mounts, quotas, root squash). Named per thread:
  // ab_test --sides checks from one thread per side at once.
  const std::string probe = absl::StrCat(dir, "/.icount-write-test-", getpid(), "-", gettid());
  if (absl::Status s = base::WriteFileAtomically(probe, "probe\n"); !s.ok()) {
    return absl::PermissionDeniedError(
        absl::StrCat("--shared_dir=", dir, " is not writable (", s.message(),
                     "): the driver and every task write there; pick a directory you may write"));
  }
  std::remove(probe.c_str());
  return absl::OkStatus();
}

class SlurmRun {
 public:
  SlurmRun(const std::vector<worker::WorkOrderProto>& orders, const worker::RunnerOptions& runner,
           const SlurmOptions& slurm)
      : orders_(orders),
        runner_(runner),
        slurm_(slurm),
        dir_(SlurmRunDirectory(orders, runner, slurm)) {}

  absl::StatusOr<worker::RunnerReport> Run() {
    // One driver per run directory, as one local run per journal: a second
    // run of the same work on the same output is refused, naming the first.
    ICOUNT_ASSIGN_OR_RETURN(worker::RunOutputLock lock,
                            worker::RunOutputLock::Acquire(runner_.journal_path));
    const bool exists = access(dir_.c_str(), F_OK) == 0;
    if (exists && !runner_.resume) return EarlierRunError();
    if (exists) {
      ICOUNT_RETURN_IF_ERROR(LoadPlan());
    } else {
      ICOUNT_RETURN_IF_ERROR(WritePlan());
    }
    worker::RunnerReport report;
    if (exists) {
      for (const Shard& shard : shards_) {
        const std::string journal = ShardPath(dir_, shard.index, ".journal");
        absl::StatusOr<std::map<std::string, worker::WorkerResultProto>> results =
            JournalResults(journal);
        if (!results.ok()) {
          return absl::DataLossError(
              absl::StrCat(results.status().message(), "; remove ", dir_, " to start again"));
        }
        for (const auto& [id, result] : *results) {
          if (!result.has_failure()) ++report.resumed;
        }
      }
      ICOUNT_RETURN_IF_ERROR(Reattach());
    }
    std::fprintf(stderr, "icount: Slurm: %zu work orders in %zu shards; run directory %s\n",
                 orders_.size(), shards_.size(), dir_.c_str());
    InterruptScope interrupts;
    if (absl::Status waited = Wait(); !waited.ok()) {
      // A fresh run that Slurm refused leaves nothing behind to resume.
      if (!exists && !submitted_any_) {
        base::RemoveDirectoryTree(dir_);
        std::remove(SlurmRunNotePath(runner_.journal_path).c_str());
      }
      return waited;
    }
    if (Interrupted()) {
      std::vector<std::string> jobs = ActiveJobs();
      const absl::Status cancel = CancelJobs(jobs);
      return absl::CancelledError(absl::StrCat(
          "interrupted: ", Done(), " of ", orders_.size(), " orders finished and kept in ", dir_,
          jobs.empty() ? ""
                       : absl::StrCat("; Slurm jobs ", absl::StrJoin(jobs, ", "),
                                      cancel.ok() ? " cancelled"
                                                  : " could not be cancelled (" +
                                                        std::string(cancel.message()) + ")"),
          runner_.how_to_continue.empty() ? "" : "; ", runner_.how_to_continue));
    }
    report.results = Collect();
    return report;
  }

 private:
  // A fresh run: the split, one task file per shard, the batch script.
  absl::Status WritePlan() {
    int shards = slurm_.shards;
    if (shards == 0) {
      ICOUNT_ASSIGN_OR_RETURN(shards, PartitionNodeCount(slurm_.partition));
    }
    if (mkdir(dir_.c_str(), 0755) != 0) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot create ", dir_, ": ", std::strerror(errno)));
    }
    ICOUNT_RETURN_IF_ERROR(
        base::WriteFileAtomically(SlurmRunNotePath(runner_.journal_path), dir_ + "\n"));
    const std::vector<std::vector<size_t>> split = SplitIntoShards(orders_, shards);
    for (size_t k = 0; k < split.size(); ++k) {
      ShardTaskProto task;
      task.set_shard(k);
      task.set_shards(split.size());
      WriteRunnerOptions(runner_, task);
      task.set_journal_path(ShardPath(dir_, k, ".journal"));
      for (size_t i : split[k]) *task.add_orders() = orders_[i];
      ICOUNT_RETURN_IF_ERROR(
          base::WriteFileAtomically(ShardPath(dir_, k, ".task"), task.SerializeAsString()));
      Shard shard;
      shard.index = k;
      shard.orders = split[k];
      shards_.push_back(std::move(shard));
    }
    // The array's script; sbatch copies it at submission, so the paths come
    // as arguments.
    ICOUNT_RETURN_IF_ERROR(base::WriteFileAtomically(
        Script(),
        "#!/bin/sh\n"
        "# icount's Slurm executor: runs shard $SLURM_ARRAY_TASK_ID of this run.\n"
        "# $1: //slurm:shard_task, $2: the run directory.\n"
        "exec \"$1\" \"$2/shard_${SLURM_ARRAY_TASK_ID}.task\"\n"));
    return absl::OkStatus();
  }

  std::string Script() const { return dir_ + "/task.sh"; }
  std::string JobsFile() const { return dir_ + "/jobs"; }

  // The arrays the run directory's drivers submitted.
  std::vector<std::string> SubmittedJobs() const {
    absl::StatusOr<std::string> text = base::ReadFileToString(JobsFile());
    if (!text.ok()) return {};
    return absl::StrSplit(*text, '\n', absl::SkipWhitespace());
  }

  // Why a run without --resume does not start where an earlier one left
  // its directory: removing it while that run's tasks still run would
  // leave them writing into the next run's journals.
  absl::Status EarlierRunError() const {
    const std::vector<std::string> jobs = SubmittedJobs();
    absl::StatusOr<std::vector<TaskState>> active =
        jobs.empty() ? std::vector<TaskState>{} : ActiveTasks(jobs);
    std::set<std::string> live;
    if (active.ok()) {
      for (const TaskState& task : *active) live.insert(task.job_id);
    }
    const std::string names =
        absl::StrJoin(active.ok() ? live : std::set<std::string>(jobs.begin(), jobs.end()), " ");
    std::string tasks;
    if (!active.ok()) {
      tasks = absl::StrCat("; whether its Slurm jobs (", names, ") still run is unknown (",
                           active.status().message(), "): check with squeue before removing it");
    } else if (!live.empty()) {
      tasks =
          absl::StrCat("; its Slurm jobs ", names, " still run or wait to: cancel them (scancel ",
                       names, ") before removing it");
    }
    return absl::AlreadyExistsError(absl::StrCat(
        dir_,
        " holds an earlier run of the same work: pass --resume to continue it, or remove "
        "the directory to start again",
        tasks));
  }

  // A run being resumed: its shards as first written (the split is kept
  // even if --shards changed) and the arrays it submitted.
  absl::Status LoadPlan() {
    std::map<std::string, size_t> index_of;
    for (size_t i = 0; i < orders_.size(); ++i) index_of[orders_[i].id()] = i;
    std::set<size_t> covered;
    for (int k = 0;; ++k) {
      const std::string path = ShardPath(dir_, k, ".task");
      if (access(path.c_str(), F_OK) != 0) break;
      ICOUNT_ASSIGN_OR_RETURN(const std::string bytes, base::ReadFileToString(path));
      ShardTaskProto task;
      if (!task.ParseFromString(bytes)) {
        return absl::DataLossError(absl::StrCat(path,
                                                ": not a shard task file (corrupt?); "
                                                "remove ",
                                                dir_, " to start again"));
      }
      Shard shard;
      shard.index = k;
      for (const worker::WorkOrderProto& order : task.orders()) {
        auto it = index_of.find(order.id());
        if (it == index_of.end() || !covered.insert(it->second).second) {
          return absl::FailedPreconditionError(
              absl::StrCat(path, " does not belong to this run (order \"", order.id(),
                           "\"); remove ", dir_, " to start again"));
        }
        shard.orders.push_back(it->second);
      }
      shards_.push_back(std::move(shard));
    }
    if (covered.size() != orders_.size()) {
      return absl::FailedPreconditionError(
          absl::StrCat(dir_, " holds ", covered.size(), " of this run's ", orders_.size(),
                       " orders in its shard files; remove it to start again"));
    }
    return absl::OkStatus();
  }

  // Tasks of an earlier driver still queued or running are waited for,
  // not submitted twice.
  absl::Status Reattach() {
    std::vector<std::string> jobs = SubmittedJobs();
    if (jobs.empty()) return absl::OkStatus();
    ICOUNT_ASSIGN_OR_RETURN(std::vector<TaskState> active, ActiveTasks(jobs));
    for (const TaskState& task : active) {
      if (task.index < 0 || task.index >= static_cast<int>(shards_.size())) continue;
      shards_[task.index].job_id = task.job_id;
      shards_[task.index].submissions = 1;
      std::fprintf(stderr, "icount: Slurm: shard %d is still %s as job %s_%d; waiting for it\n",
                   task.index, task.state.c_str(), task.job_id.c_str(), task.index);
    }
    return absl::OkStatus();
  }

  absl::Status Submit(const std::vector<Shard*>& shards) {
    if (shards.empty()) return absl::OkStatus();
    SubmitRequest request;
    request.script = Script();
    request.script_args = {slurm_.shard_task_path, dir_};
    for (const Shard* shard : shards) request.indices.push_back(shard->index);
    // sbatch reads %-patterns in --output: a % of the directory's own is
    // written %%.
    request.output = absl::StrCat(absl::StrReplaceAll(dir_, {{"%", "%%"}}), "/shard_%a.log");
    request.partition = slurm_.partition;
    request.constraint = slurm_.constraint;
    ICOUNT_ASSIGN_OR_RETURN(const std::string job, SubmitArray(request));
    submitted_any_ = true;
    ICOUNT_RETURN_IF_ERROR(base::AppendLineDurably(JobsFile(), job));
    for (Shard* shard : shards) {
      shard->job_id = job;
      ++shard->submissions;
    }
    return absl::OkStatus();
  }

  std::vector<std::string> ActiveJobs() const {
    std::set<std::string> jobs;
    for (const Shard& shard : shards_) {
      if (!shard.job_id.empty()) jobs.insert(shard.job_id);
    }
    return {jobs.begin(), jobs.end()};
  }

  // The shard's orders without a result in its journal (all of them when
  // the journal cannot be read: Collect says why).
  std::vector<size_t> Unfinished(const Shard& shard) const {
    const auto results = JournalResults(ShardPath(dir_, shard.index, ".journal"));
    std::vector<size_t> left;
    for (size_t i : shard.orders) {
      if (!results.ok() || !results->count(orders_[i].id())) left.push_back(i);
    }
    return left;
  }

  // A task has left the queue: finished, or resubmitted, or given up.
  void TaskEnded(Shard& shard, std::vector<Shard*>& resubmit) {
    const std::vector<size_t> left = Unfinished(shard);
    const std::string job = shard.job_id;
    shard.job_id.clear();
    if (left.empty()) {
      shard.finished = true;
      return;
    }
    absl::StatusOr<TaskState> ended = EndedTask(job, shard.index);
    const std::string how =
        ended.ok()
            ? absl::StrCat(ended->state, " (exit code ", ended->exit_code, ", reason ",
                           ended->reason, ")", ended->node.empty() ? "" : " on " + ended->node)
            : std::string(ended.status().message());
    const std::string what =
        absl::StrCat("Slurm task ", job, "_", shard.index, " (shard ", shard.index, ") ended ", how,
                     " with ", left.size(), " of its ", shard.orders.size(), " orders unfinished");
    if (shard.submissions < slurm_.max_submissions) {
      std::fprintf(stderr, "icount: %s; resubmitting it (submission %d of %d)\n", what.c_str(),
                   shard.submissions + 1, slurm_.max_submissions);
      resubmit.push_back(&shard);
      return;
    }
    shard.finished = true;
    // The log goes with the run directory once the results are written;
    // its end is quoted here, where the results keep it.
    const std::string log = ShardPath(dir_, shard.index, ".log");
    shard.given_up = absl::StrCat(
        what, " after ", shard.submissions, " submissions; the end of its Slurm log (shard_",
        shard.index, ".log):\n",
        TaskLogEnd(log, kLogTailLines, slurm_.shared_dir, ended.ok() ? ended->node : ""));
    std::fprintf(stderr, "icount: %s\n", shard.given_up.c_str());
  }

  int Done() {
    int done = 0;
    for (const Shard& shard : shards_) {
      done += std::min<int>(shard.orders.size(),
                            counter_.Count(ShardPath(dir_, shard.index, ".journal")));
    }
    return done;
  }

  void ReportProgress(const std::vector<TaskState>& active) {
    if (!runner_.on_progress) return;
    int running = 0, pending = 0;
    std::set<std::string> why_pending;  // squeue's reasons: Priority, PartitionDown, ...
    for (const TaskState& task : active) {
      (task.state == "PENDING" ? pending : running)++;
      if (task.state == "PENDING" && !task.reason.empty() && task.reason != "None") {
        why_pending.insert(task.reason);
      }
    }
    worker::RunnerProgress progress;
    progress.total = orders_.size();
    progress.done = Done();
    progress.elapsed_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (progress.done > 0 && progress.done < progress.total) {
      progress.eta_seconds =
          progress.elapsed_seconds / progress.done * (progress.total - progress.done);
    }
    progress.phase = absl::StrCat(
        "Slurm: ", base::CountOf(running, "task"), " running, ", pending, " pending",
        why_pending.empty() ? "" : absl::StrCat(" (", absl::StrJoin(why_pending, ", "), ")"));
    runner_.on_progress(progress);
  }

  absl::Status Wait() {
    std::vector<Shard*> to_submit;
    for (Shard& shard : shards_) {
      if (!shard.job_id.empty()) continue;
      if (Unfinished(shard).empty()) {
        shard.finished = true;
      } else {
        to_submit.push_back(&shard);
      }
    }
    ICOUNT_RETURN_IF_ERROR(Submit(to_submit));
    // Since when squeue has failed, every time it was asked (when failing).
    bool failing = false;
    std::chrono::steady_clock::time_point failing_since;
    while (!Interrupted()) {
      const std::vector<std::string> jobs = ActiveJobs();
      if (jobs.empty()) break;
      absl::StatusOr<std::vector<TaskState>> active = ActiveTasks(jobs);
      if (!active.ok()) {
        const auto now = std::chrono::steady_clock::now();
        if (!failing) {
          failing = true;
          failing_since = now;
          std::fprintf(stderr,
                       "icount: Slurm: %s; asking again every %g s for up to %g s before "
                       "leaving the tasks to a later --resume\n",
                       std::string(active.status().message()).c_str(), slurm_.poll_seconds,
                       slurm_.query_patience_seconds);
        }
        if (std::chrono::duration<double>(now - failing_since).count() >=
            slurm_.query_patience_seconds) {
          return absl::UnavailableError(absl::StrCat(
              active.status().message(), " (every time for ", slurm_.query_patience_seconds,
              " s); the tasks of jobs ", absl::StrJoin(jobs, ", "),
              " go on: run the same command with --resume to wait for them again"));
        }
      } else {
        failing = false;
        std::set<std::pair<std::string, int>> queued;
        for (const TaskState& task : *active) queued.insert({task.job_id, task.index});
        std::vector<Shard*> resubmit;
        for (Shard& shard : shards_) {
          if (shard.job_id.empty() || queued.count({shard.job_id, shard.index})) continue;
          TaskEnded(shard, resubmit);
        }
        ICOUNT_RETURN_IF_ERROR(Submit(resubmit));
        ReportProgress(*active);
      }
      pollfd interrupt = {InterruptFd(), POLLIN, 0};
      poll(&interrupt, 1, static_cast<int>(slurm_.poll_seconds * 1000));
    }
    return absl::OkStatus();
  }

  std::vector<worker::WorkerResultProto> Collect() {
    std::map<std::string, worker::WorkerResultProto> by_id;
    std::map<std::string, const Shard*> shard_of;
    std::map<const Shard*, std::string> unreadable;  // the journal's error
    for (const Shard& shard : shards_) {
      auto results = JournalResults(ShardPath(dir_, shard.index, ".journal"));
      if (!results.ok()) {
        unreadable[&shard] = std::string(results.status().message());
      } else {
        for (auto& [id, result] : *results) by_id[id] = std::move(result);
      }
      for (size_t i : shard.orders) shard_of[orders_[i].id()] = &shard;
    }
    std::vector<worker::WorkerResultProto> results;
    for (const worker::WorkOrderProto& order : orders_) {
      auto it = by_id.find(order.id());
      if (it != by_id.end()) {
        results.push_back(std::move(it->second));
        continue;
      }
      worker::WorkerResultProto lost;
      lost.set_id(order.id());
      lost.mutable_failure()->set_kind(worker::FAILURE_WORKER);
      const Shard* shard = shard_of[order.id()];
      std::string reason = absl::StrCat("no result in ", dir_, " although its Slurm task ended");
      if (unreadable.count(shard)) {
        reason = absl::StrCat("its shard's journal cannot be read: ", unreadable[shard]);
      } else if (shard != nullptr && !shard->given_up.empty()) {
        reason = shard->given_up;
      }
      lost.mutable_failure()->set_reason(reason);
      results.push_back(std::move(lost));
    }
    return results;
  }

  const std::vector<worker::WorkOrderProto>& orders_;
  const worker::RunnerOptions& runner_;
  const SlurmOptions& slurm_;
  const std::string dir_;
  std::vector<Shard> shards_;
  bool submitted_any_ = false;
  JournalCounter counter_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace

absl::Status CheckSlurmOptions(const SlurmOptions& slurm) {
  ICOUNT_RETURN_IF_ERROR(CheckSlurmCommands());
  if (slurm.shared_dir.empty()) {
    return absl::InvalidArgumentError(
        "--executor=slurm needs --shared_dir=DIR: a directory every node mounts at the same "
        "path, where tasks write their results and the driver reads them");
  }
  if (slurm.shared_dir[0] != '/') {
    return absl::InvalidArgumentError(absl::StrCat("--shared_dir=", slurm.shared_dir,
                                                   " must be absolute (tasks start elsewhere)"));
  }
  ICOUNT_RETURN_IF_ERROR(CheckWritableDirectory(slurm.shared_dir));
  if (slurm.shards < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--shards=", slurm.shards, ": must be 0 (one per node) or more"));
  }
  if (slurm.max_submissions < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--slurm_submissions=", slurm.max_submissions, ": must be at least 1"));
  }
  if (access(slurm.shard_task_path.c_str(), X_OK) != 0) {
    return absl::NotFoundError(absl::StrCat("the shard task binary ", slurm.shard_task_path,
                                            " is missing or not executable"));
  }
  return absl::OkStatus();
}

std::string SlurmRunDirectory(const std::vector<worker::WorkOrderProto>& orders,
                              const worker::RunnerOptions& runner, const SlurmOptions& slurm) {
  base::Fnv1a64 hash;
  hash.Add(runner.worker_path);
  for (const std::string& word : runner.command_prefix) hash.Add(word);
  // Two runs of the same orders in the same environment at once (ab_test
  // --sides with two identical sides) keep apart by their journals.
  hash.Add(runner.journal_path);
  for (const worker::WorkOrderProto& order : orders) hash.Add(order.SerializeAsString());
  return absl::StrCat(slurm.shared_dir, "/icount-run-", hash.Hex());
}

absl::StatusOr<worker::RunnerReport> RunOnSlurm(const std::vector<worker::WorkOrderProto>& orders,
                                                const worker::RunnerOptions& runner,
                                                const SlurmOptions& slurm) {
  std::set<std::string> ids;
  for (const worker::WorkOrderProto& order : orders) {
    if (!ids.insert(order.id()).second) {
      return absl::InvalidArgumentError(absl::StrCat("duplicate order id \"", order.id(), "\""));
    }
  }
  if (orders.empty()) return worker::RunnerReport{};
  ICOUNT_RETURN_IF_ERROR(CheckSlurmOptions(slurm));
  SlurmRun run(orders, runner, slurm);
  return run.Run();
}

std::string SlurmRunNotePath(const std::string& journal_path) { return journal_path + ".slurm"; }

void RemoveSlurmRun(const std::vector<worker::WorkOrderProto>& orders,
                    const worker::RunnerOptions& runner, const SlurmOptions& slurm) {
  base::RemoveDirectoryTree(SlurmRunDirectory(orders, runner, slurm));
  std::remove(SlurmRunNotePath(runner.journal_path).c_str());
}

}  // namespace icount::slurm
