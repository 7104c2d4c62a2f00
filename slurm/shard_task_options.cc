#include "slurm/shard_task_options.h"

namespace icount::slurm {

void WriteRunnerOptions(const worker::RunnerOptions& runner, ShardTaskProto& task) {
  task.set_worker_path(runner.worker_path);
  for (const std::string& word : runner.command_prefix) task.add_command_prefix(word);
  for (const std::string& word : runner.launcher) task.add_launcher(word);
  task.set_valgrind_version(runner.valgrind_version);
  task.set_retries(runner.retries);
  task.set_timeout_seconds(runner.timeout_seconds);
  task.set_no_python(!runner.python);
  task.set_cache_sim(runner.cache_sim);
  task.mutable_uncompiled_cases()->insert(runner.uncompiled_cases.begin(),
                                          runner.uncompiled_cases.end());
}

worker::RunnerOptions RunnerOptionsOf(const ShardTaskProto& task) {
  worker::RunnerOptions options;
  options.worker_path = task.worker_path();
  options.command_prefix.assign(task.command_prefix().begin(), task.command_prefix().end());
  options.launcher.assign(task.launcher().begin(), task.launcher().end());
  options.valgrind_version = task.valgrind_version();
  options.retries = task.retries();
  options.timeout_seconds = task.timeout_seconds();
  options.python = !task.no_python();
  options.cache_sim = task.cache_sim();
  options.uncompiled_cases.insert(task.uncompiled_cases().begin(), task.uncompiled_cases().end());
  options.journal_path = task.journal_path();
  options.resume = true;  // a resubmitted task continues what the last one finished
  return options;
}

}  // namespace icount::slurm
