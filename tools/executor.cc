#include "tools/executor.h"

#include <unistd.h>

#include <cstdio>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/flags.h"
#include "base/runfiles.h"
#include "base/status.h"
#include "slurm/executor.h"
#include "worker/runner.h"

ABSL_FLAG(std::string, executor, "local",
          "Where work orders run: \"local\" or \"slurm\" (a Slurm job array; needs --shared_dir; "
          "ab_test's wall-time rounds stay local).");
ABSL_FLAG(std::string, shared_dir, "",
          "With --executor=slurm: a directory mounted at the same path on every node, as the "
          "tool's runfiles must be too.");
ABSL_FLAG(int, shards, 0,
          "With --executor=slurm: array tasks, one node each; 0: one per node of the partition.");
ABSL_FLAG(std::string, slurm_partition, "",
          "With --executor=slurm: the partition to submit to (sbatch --partition).");
ABSL_FLAG(std::string, slurm_constraint, "",
          "With --executor=slurm: node features to require (sbatch --constraint), e.g. \"epyc\".");
ABSL_FLAG(int, slurm_submissions, 3,
          "With --executor=slurm: submissions per shard, resubmissions included, before its "
          "unfinished orders are reported failed.");

ICOUNT_FLAG_SECTION("Running on Slurm (--executor=slurm)");

namespace icount::tools {
namespace {

absl::StatusOr<slurm::SlurmOptions> SlurmFlags() {
  slurm::SlurmOptions slurm;
  slurm.shared_dir = absl::GetFlag(FLAGS_shared_dir);
  slurm.shards = absl::GetFlag(FLAGS_shards);
  slurm.partition = absl::GetFlag(FLAGS_slurm_partition);
  slurm.constraint = absl::GetFlag(FLAGS_slurm_constraint);
  slurm.max_submissions = absl::GetFlag(FLAGS_slurm_submissions);
  ICOUNT_ASSIGN_OR_RETURN(slurm.shard_task_path, base::FindRunfile("icount/slurm/shard_task"));
  return slurm;
}

}  // namespace

bool SlurmExecutorChosen() { return absl::GetFlag(FLAGS_executor) == "slurm"; }

absl::Status CheckExecutorFlags() {
  const std::string executor = absl::GetFlag(FLAGS_executor);
  if (executor != "local" && executor != "slurm") {
    return absl::InvalidArgumentError(
        absl::StrCat("--executor=", executor, ": must be \"local\" or \"slurm\""));
  }
  if (executor == "local") {
    return base::RefuseUnusedFlags(
        {"shared_dir", "shards", "slurm_partition", "slurm_constraint", "slurm_submissions"}, true,
        "is for --executor=slurm: add --executor=slurm, or drop it");
  }
  ICOUNT_RETURN_IF_ERROR(base::RefuseUnusedFlags(
      {"jobs"}, true,
      "sizes the local runner's workers; on Slurm each task starts as many as its node's CPUs "
      "and its shard keep busy: drop it"));
  ICOUNT_ASSIGN_OR_RETURN(const slurm::SlurmOptions slurm, SlurmFlags());
  return slurm::CheckSlurmOptions(slurm);
}

absl::StatusOr<worker::RunnerReport> ExecuteOrders(
    const std::vector<worker::WorkOrderProto>& orders, const worker::RunnerOptions& options) {
  if (!SlurmExecutorChosen()) return worker::RunOrders(orders, options);
  ICOUNT_ASSIGN_OR_RETURN(const slurm::SlurmOptions slurm, SlurmFlags());
  return slurm::RunOnSlurm(orders, options, slurm);
}

std::string RunStatePath(const std::vector<worker::WorkOrderProto>& orders,
                         const worker::RunnerOptions& options) {
  if (!SlurmExecutorChosen()) return options.journal_path;
  absl::StatusOr<slurm::SlurmOptions> slurm = SlurmFlags();
  return slurm.ok() ? slurm::SlurmRunDirectory(orders, options, *slurm) : options.journal_path;
}

std::vector<std::string> RunStatePaths(const std::vector<worker::WorkOrderProto>& orders,
                                       const worker::RunnerOptions& options) {
  std::vector<std::string> paths = {RunStatePath(orders, options)};
  if (SlurmExecutorChosen()) paths.push_back(slurm::SlurmRunNotePath(options.journal_path));
  return paths;
}

void RemoveRunState(const std::vector<worker::WorkOrderProto>& orders,
                    const worker::RunnerOptions& options) {
  if (!SlurmExecutorChosen()) {
    std::remove(options.journal_path.c_str());
    return;
  }
  if (absl::StatusOr<slurm::SlurmOptions> slurm = SlurmFlags(); slurm.ok()) {
    slurm::RemoveSlurmRun(orders, options, *slurm);
  }
}

bool RunStateExists(const std::string& journal_path) {
  return access(journal_path.c_str(), F_OK) == 0 ||
         access(slurm::SlurmRunNotePath(journal_path).c_str(), F_OK) == 0;
}

absl::Status CheckNoOldRunState(const std::string& journal_path) {
  ICOUNT_RETURN_IF_ERROR(worker::CheckNoOldJournal(journal_path));
  const std::string note = slurm::SlurmRunNotePath(journal_path);
  absl::StatusOr<std::string> directory = base::ReadFileToString(note);
  if (!directory.ok()) return absl::OkStatus();
  return absl::AlreadyExistsError(
      absl::StrCat("an interrupted Slurm run of this output left its results in ",
                   absl::StripAsciiWhitespace(*directory), " (", note,
                   " names it): pass --resume to continue it, or remove both to start a new run"));
}

}  // namespace icount::tools
