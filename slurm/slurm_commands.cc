#include "slurm/slurm_commands.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/subprocess.h"

namespace icount::slurm {
namespace {

bool OnPath(const std::string& command) {
  const char* path = std::getenv("PATH");
  for (absl::string_view dir : absl::StrSplit(path ? path : "", ':', absl::SkipEmpty())) {
    if (access(absl::StrCat(dir, "/", command).c_str(), X_OK) == 0) return true;
  }
  return false;
}

std::string Trimmed(const std::string& text) {
  return std::string(absl::StripAsciiWhitespace(text));
}

// Runs a Slurm command; an error carries its output when it exits non-zero.
absl::StatusOr<std::string> RunSlurm(const std::vector<std::string>& argv) {
  absl::StatusOr<base::CommandResult> result = base::RunCommand(argv);
  if (!result.ok()) return result.status();
  if (result->signal != 0 || result->exit_code != 0) {
    return absl::UnavailableError(absl::StrCat(argv[0], " failed (", base::DescribeExit(*result),
                                               "): ", Trimmed(result->output)));
  }
  return result->output;
}

}  // namespace

absl::Status CheckSlurmCommands() {
  std::vector<std::string> missing;
  for (const char* command : {"sbatch", "squeue", "scontrol", "scancel", "sinfo"}) {
    if (!OnPath(command)) missing.push_back(command);
  }
  if (missing.empty()) return absl::OkStatus();
  return absl::NotFoundError(absl::StrCat(
      "--executor=slurm: Slurm's commands are not on PATH (missing: ", absl::StrJoin(missing, ", "),
      "); install them (Debian: apt-get install slurm-client) or load your site's Slurm "
      "environment, and check that `sinfo` reaches the cluster"));
}

std::string ArrayIndexList(std::vector<int> indices) {
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  std::vector<std::string> ranges;
  for (size_t i = 0; i < indices.size();) {
    size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
    ranges.push_back(j == i ? absl::StrCat(indices[i]) : absl::StrCat(indices[i], "-", indices[j]));
    i = j + 1;
  }
  return absl::StrJoin(ranges, ",");
}

absl::StatusOr<std::string> SubmitArray(const SubmitRequest& request) {
  if (request.indices.empty()) return absl::InvalidArgumentError("no array tasks to submit");
  std::vector<std::string> argv = {"sbatch", "--parsable", "--job-name=" + request.job_name,
                                   "--array=" + ArrayIndexList(request.indices)};
  if (!request.output.empty()) {
    argv.push_back("--output=" + request.output);
    argv.push_back("--open-mode=append");
  }
  if (!request.partition.empty()) argv.push_back("--partition=" + request.partition);
  if (!request.constraint.empty()) argv.push_back("--constraint=" + request.constraint);
  if (request.exclusive) argv.push_back("--exclusive");
  argv.push_back(request.script);
  argv.insert(argv.end(), request.script_args.begin(), request.script_args.end());
  absl::StatusOr<base::CommandResult> result = base::RunCommand(argv);
  if (!result.ok()) return result.status();
  const std::string output = Trimmed(result->output);
  if (result->exit_code != 0 || result->signal != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("sbatch refused the job array (nothing was submitted): ", output));
  }
  // --parsable prints "jobid" or "jobid;cluster" (after any warnings).
  absl::string_view last_line = output;
  if (size_t newline = output.rfind('\n'); newline != std::string::npos) {
    last_line = last_line.substr(newline + 1);
  }
  const std::string job_id(last_line.substr(0, last_line.find(';')));
  int64_t number = 0;
  if (!absl::SimpleAtoi(job_id, &number)) {
    return absl::InternalError(absl::StrCat("sbatch printed no job id: \"", output, "\""));
  }
  return job_id;
}

std::vector<TaskState> ParseSqueue(const std::string& output) {
  std::vector<TaskState> tasks;
  for (absl::string_view line : absl::StrSplit(output, '\n', absl::SkipWhitespace())) {
    std::vector<std::string> fields = absl::StrSplit(line, '|');
    if (fields.size() < 5) continue;
    TaskState task;
    task.job_id = Trimmed(fields[0]);
    // A pending array not yet split shows "0-3" or "[0-3]" here; expand it.
    const std::string index = Trimmed(fields[1]);
    task.state = Trimmed(fields[2]);
    task.node = Trimmed(fields[3]);
    task.reason = Trimmed(fields[4]);
    for (absl::string_view range : absl::StrSplit(
             absl::StripSuffix(absl::StripPrefix(index, "["), "]"), ',', absl::SkipEmpty())) {
      std::pair<std::string, std::string> bounds = absl::StrSplit(range, absl::MaxSplits('-', 1));
      // A "%4" step limit suffix ("0-3%2") is not part of the range.
      bounds.second = bounds.second.substr(0, bounds.second.find('%'));
      int low = 0, high = 0;
      if (!absl::SimpleAtoi(bounds.first, &low)) continue;
      if (bounds.second.empty() || !absl::SimpleAtoi(bounds.second, &high)) high = low;
      for (int i = low; i <= high; ++i) {
        task.index = i;
        tasks.push_back(task);
      }
    }
  }
  return tasks;
}

absl::StatusOr<std::vector<TaskState>> ActiveTasks(const std::vector<std::string>& job_ids) {
  if (job_ids.empty()) return std::vector<TaskState>{};
  absl::StatusOr<base::CommandResult> result = base::RunCommand(
      {"squeue", "-h", "-r", "-j", absl::StrJoin(job_ids, ","), "-o", "%F|%K|%T|%N|%r"});
  if (!result.ok()) return result.status();
  if (result->exit_code != 0 || result->signal != 0) {
    // Every job named has ended and been forgotten: nothing is active.
    if (result->output.find("Invalid job id") != std::string::npos) return std::vector<TaskState>{};
    return absl::UnavailableError(absl::StrCat("squeue failed (", base::DescribeExit(*result),
                                               "): ", Trimmed(result->output)));
  }
  return ParseSqueue(result->output);
}

TaskState ParseScontrolJob(const std::string& line) {
  TaskState task;
  for (absl::string_view pair : absl::StrSplit(line, ' ', absl::SkipWhitespace())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(pair, absl::MaxSplits('=', 1));
    if (kv.first == "ArrayJobId") task.job_id = kv.second;
    // Not a number ("N/A" for a job without an array): no index (-1).
    if (kv.first == "ArrayTaskId" && !absl::SimpleAtoi(kv.second, &task.index)) task.index = -1;
    if (kv.first == "JobState") task.state = kv.second;
    if (kv.first == "NodeList" && kv.second != "(null)") task.node = kv.second;
    if (kv.first == "Reason") task.reason = kv.second;
    if (kv.first == "ExitCode") task.exit_code = kv.second;
  }
  return task;
}

absl::StatusOr<TaskState> EndedTask(const std::string& job_id, int index) {
  const std::string id = absl::StrCat(job_id, "_", index);
  absl::StatusOr<base::CommandResult> result =
      base::RunCommand({"scontrol", "-o", "show", "job", id});
  if (!result.ok()) return result.status();
  if (result->exit_code != 0 || result->signal != 0) {
    return absl::NotFoundError(
        absl::StrCat("Slurm no longer knows job ", id, ": ", Trimmed(result->output)));
  }
  return ParseScontrolJob(Trimmed(result->output));
}

absl::Status CancelJobs(const std::vector<std::string>& job_ids) {
  if (job_ids.empty()) return absl::OkStatus();
  std::vector<std::string> argv = {"scancel"};
  argv.insert(argv.end(), job_ids.begin(), job_ids.end());
  return RunSlurm(argv).status();
}

absl::StatusOr<int> PartitionNodeCount(const std::string& partition) {
  std::vector<std::string> argv = {"sinfo", "-h", "-o", "%D"};
  if (!partition.empty()) argv.insert(argv.end(), {"-p", partition});
  absl::StatusOr<std::string> output = RunSlurm(argv);
  if (!output.ok()) return output.status();
  int total = 0;
  for (absl::string_view line : absl::StrSplit(*output, '\n', absl::SkipWhitespace())) {
    int nodes = 0;
    if (absl::SimpleAtoi(line, &nodes)) total += nodes;
  }
  if (total == 0) {
    return absl::NotFoundError(
        absl::StrCat("sinfo lists no nodes", partition.empty() ? "" : " in partition " + partition,
                     ": check --slurm_partition (sinfo -s lists the partitions)"));
  }
  return total;
}

}  // namespace icount::slurm
