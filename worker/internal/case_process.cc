#include "worker/internal/case_process.h"

#include <unistd.h>
#include <valgrind/valgrind.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/phase_log.h"
#include "base/text.h"
#include "timer/callgrind_command.h"
#include "timer/callgrind_stats.h"
#include "timer/measurement_io.h"
#include "timer/snippet_abi.h"
#include "timer/timer.h"
#include "worker/case_dumps.h"
#include "worker/compiled_cases.h"
#include "worker/failure.h"

namespace icount::worker::internal {
namespace {

// How the suite's wall-time blocks are sized (Timer::BlockedAutorange):
// timer overhead up to 0.1% of a block, not the reference's 0.01%, and
// blocks of at least 1% of min_run_time. A Python block's overhead is
// ~1 us, so the reference's rule makes 10-50 ms blocks and 0.05 s holds
// 1-14 of them: too few for a median, a spread or ab_test's per-round
// medians. Here Python blocks are ~1-10 ms and C++ ones 0.5-5 ms, 10-100
// in 0.05 s. The overhead is a constant share of each block, below the
// two figures the tables show and the same on both sides of an A/B.
constexpr timer::BlockRule kSuiteBlockRule = {/*max_timer_overhead=*/1e-3,
                                              /*min_block_share=*/1e-2};

// The task spec MakeTimer(order)'s Timer reports (but for the setup, which
// results take from the order as given).
timer::TaskSpec MeasuredTaskSpec(const WorkOrderProto& order) {
  timer::TaskSpec spec = timer::TaskSpecFromProto(order.task_spec());
  if (!order.compiled_case().empty()) {
    spec.language = timer::Language::kCpp;  // Timer::ForCompiledEntry
    return spec;
  }
  return timer::Timer::StringTaskSpec(std::move(spec));
}

// The display fields of a task spec (and of the flat MeasurementProto).
template <typename Message>
void CopyLabels(const timer::TaskSpecProto& from, Message& to) {
  if (from.has_label())
    to.set_label(from.label());
  else
    to.clear_label();
  if (from.has_sub_label())
    to.set_sub_label(from.sub_label());
  else
    to.clear_sub_label();
  if (from.has_description())
    to.set_description(from.description());
  else
    to.clear_description();
  if (from.has_env())
    to.set_env(from.env());
  else
    to.clear_env();
}

// A count order's result as dumps for the runner to parse (ParseCaseDumps):
// what was measured (`spec`, with the order's own setup) and the runs per
// repeat.
WorkerResultProto DumpsResult(const WorkOrderProto& order, const timer::TaskSpec& spec,
                              const timer::CallgrindDumpFiles& dumps) {
  WorkerResultProto result;
  CallgrindDumpsProto& proto = *result.mutable_output()->mutable_callgrind_dumps();
  CallgrindDumpsToProto(dumps, proto);
  *proto.mutable_task_spec() = timer::TaskSpecToProto(spec);
  proto.mutable_task_spec()->set_setup(order.task_spec().setup());
  proto.set_number_per_run(CallgrindNumber(order));
  return result;
}

// Times the order's blocks into `output` (with the order's own setup,
// `original_setup`); a failure result when it cannot.
std::optional<WorkerResultProto> MeasureWallTime(const WorkOrderProto& order, timer::Timer& timer,
                                                 const std::string& original_setup,
                                                 WorkerOutputProto& output) {
  if (RUNNING_ON_VALGRIND) {
    return FailureResult(FAILURE_WORKER,
                         "wall time is never taken under valgrind: use a native worker");
  }
  const double min_run_time = order.min_run_time() > 0 ? order.min_run_time() : 0.2;
  absl::StatusOr<timer::Measurement> measurement =
      order.wall_time_number() > 0 ? timer.TimeBlocks(order.wall_time_number(), min_run_time)
                                   : timer.BlockedAutorange(min_run_time, nullptr, kSuiteBlockRule);
  if (!measurement.ok())
    return FailureResult(FAILURE_MEASURE, std::string(measurement.status().message()));
  *output.mutable_wall_time() = timer::MeasurementToProto(*measurement);
  output.mutable_wall_time()->set_setup(original_setup);
  return std::nullopt;
}

// How a count order is counted (CallgrindOptions), but for its dumps.
timer::CallgrindOptions CallgrindOptionsFor(const WorkOrderProto& order) {
  timer::CallgrindOptions options;
  options.number = CallgrindNumber(order);
  options.repeats = CallgrindRepeats(order);
  options.collect_baseline = !order.measure_baseline();
  options.baseline_measured_by_caller = order.baseline_from_worker();
  options.measure_in_this_process = MeasuresInItsProcess(order);
  options.warm_up_after_fork = order.warm_up_after_fork();
  return options;
}

// Counts a return_dumps order: its result is its dumps (DumpsResult), or
// the process ends once measured (EndsOnceMeasured).
WorkerResultProto CollectDumps(const WorkOrderProto& order, timer::Timer& timer,
                               const CaseProcess& process, timer::CallgrindOptions& options) {
  const auto dumps_result = [&](const absl::StatusOr<timer::CallgrindDumpFiles>& dumps) {
    if (!dumps.ok()) return FailureResult(FAILURE_MEASURE, std::string(dumps.status().message()));
    return DumpsResult(order, timer.task_spec(), *dumps);
  };
  if (EndsOnceMeasured(order)) {
    // The case process ends as soon as its repeats are done: its
    // setup's state and the timer are never torn down, and on success
    // the worker makes the result from the order (MeasuredCaseResult).
    // The tag is short, so copying it allocates nothing.
    options.dump_tag = process.dump_tag();
    options.on_measured = [&process,
                           &dumps_result](const absl::StatusOr<timer::CallgrindDumpFiles>& dumps) {
      if (dumps.ok()) process.FinishMeasured();
      process.Finish(dumps_result(dumps));
    };
  }
  return dumps_result(timer.CollectCallgrindDumps(options));
}

// Counts the order's statement into `output` (with the order's own setup,
// `original_setup`); a failure result when it cannot.
std::optional<WorkerResultProto> CountInstructions(const WorkOrderProto& order, timer::Timer& timer,
                                                   const timer::CallgrindOptions& options,
                                                   const std::string& original_setup,
                                                   WorkerOutputProto& output) {
  absl::StatusOr<std::vector<timer::CallgrindStats>> stats = timer.CollectCallgrind(options);
  if (!stats.ok()) return FailureResult(FAILURE_MEASURE, std::string(stats.status().message()));
  if (order.canary() && (stats->empty() || stats->front().Counts() <= 0)) {
    return FailureResult(FAILURE_MEASURE,
                         "callgrind counted no instructions in the canary's measured region: the "
                         "worker runs under valgrind, but not under callgrind with client requests "
                         "working");
  }
  for (const timer::CallgrindStats& s : *stats) {
    timer::CallgrindStatsProto* proto = output.add_callgrind();
    *proto = timer::CallgrindStatsToProto(s);
    proto->mutable_task_spec()->set_setup(original_setup);
  }
  return std::nullopt;
}

}  // namespace

int64_t CallgrindNumber(const WorkOrderProto& order) {
  return order.callgrind_number() > 0 ? order.callgrind_number() : 100;
}

int CallgrindRepeats(const WorkOrderProto& order) {
  return order.callgrind_repeats() > 0 ? order.callgrind_repeats() : 1;
}

bool MeasuresInItsProcess(const WorkOrderProto& order) {
  return !order.template_per_case() && (order.measure_baseline() || order.baseline_from_worker());
}

bool EndsOnceMeasured(const WorkOrderProto& order) {
  return order.callgrind() && order.return_dumps() && MeasuresInItsProcess(order);
}

std::string CaseDumpTag(int64_t sequence) { return absl::StrCat("case-", sequence); }

std::string CaseResultPath(const std::string& scratch, int64_t sequence) {
  return absl::StrCat(scratch, "/case-", sequence, ".pb");
}

void CaseProcess::Finish(const WorkerResultProto& result) const {
  const base::PhaseMark ran = base::RecordPhase("case", "run the order", mark_);
  const absl::Status written =
      base::WriteFileAtomically(CaseResultPath(scratch_, sequence_), result.SerializeAsString());
  base::RecordPhase("case", "write the result", ran);
  std::fflush(nullptr);
  _exit(written.ok() ? 0 : 3);
}

void CaseProcess::FinishMeasured() const {
  base::RecordPhase("case", "run the order", mark_);
  std::fflush(nullptr);
  _exit(kCaseMeasuredExitCode);
}

absl::StatusOr<timer::Timer> MakeTimer(const WorkOrderProto& order) {
  timer::TaskSpec spec = timer::TaskSpecFromProto(order.task_spec());
  if (order.measure_baseline()) {
    timer::TimerOptions options;
    options.num_threads = spec.num_threads;
    return timer::Timer::ForBaseline(spec.language, std::move(options));
  }
  timer::TimerOptions options;
  options.label = spec.label;
  options.sub_label = spec.sub_label;
  options.description = spec.description;
  options.env = spec.env;
  options.num_threads = spec.num_threads;
  if (order.canary()) return timer::Timer::ForCallable([] {}, std::move(options), spec.stmt);
  if (!order.compiled_case().empty()) {
    IcountSnippetEntry entry = FindCompiledCase(order.compiled_case());
    if (entry == nullptr) {
      return absl::NotFoundError(absl::StrCat("this worker has no compiled case \"",
                                              order.compiled_case(), "\" (", NumCompiledCases(),
                                              " are compiled in): rebuild the suite"));
    }
    return timer::Timer::ForCompiledEntry(entry, std::move(spec));
  }
  if (spec.language == timer::Language::kCpp) {
    std::string setup = spec.setup;
    if (!order.torchscript_artifact().empty()) {
      setup = absl::StrCat(timer::ArtifactPathDefinition(
                               /*cpp=*/true, base::CppStringLiteral(order.torchscript_artifact())),
                           setup);
    }
    return timer::Timer::ForCpp(spec.stmt, setup, spec.global_setup, options);
  }
  std::string setup = spec.setup;
  if (!order.torchscript_artifact().empty()) {
    setup = absl::StrCat(timer::ArtifactPathDefinition(
                             /*cpp=*/false, base::PythonRawLiteral(order.torchscript_artifact())),
                         setup);
  }
  return timer::Timer::ForPython(spec.stmt, setup, options);
}

WorkOrderProto MeasuredPart(const WorkOrderProto& order) {
  WorkOrderProto measured = order;
  measured.clear_id();
  measured.clear_case_key();
  CopyLabels(timer::TaskSpecProto(), *measured.mutable_task_spec());
  return measured;
}

void RestoreLabels(const WorkOrderProto& order, WorkerResultProto& result) {
  if (!result.has_output()) return;
  WorkerOutputProto& output = *result.mutable_output();
  if (output.has_wall_time()) CopyLabels(order.task_spec(), *output.mutable_wall_time());
  for (timer::CallgrindStatsProto& stats : *output.mutable_callgrind()) {
    CopyLabels(order.task_spec(), *stats.mutable_task_spec());
  }
  if (output.has_callgrind_dumps()) {
    CopyLabels(order.task_spec(), *output.mutable_callgrind_dumps()->mutable_task_spec());
  }
}

WorkerResultProto MeasuredCaseResult(const WorkOrderProto& order, int64_t sequence) {
  timer::CallgrindDumpFiles dumps;
  const std::string directory = timer::CallgrindOutDirectory();
  for (int repeat = 0; repeat < CallgrindRepeats(order); ++repeat) {
    dumps.stmt_dumps.push_back(timer::CallgrindDumpPath(directory, CaseDumpTag(sequence), repeat));
    if (access(dumps.stmt_dumps.back().c_str(), F_OK) != 0) {
      return FailureResult(
          FAILURE_CRASH,
          absl::StrCat("the case exited with code ", kCaseMeasuredExitCode,
                       " (a measured case's) but left no dump at ", dumps.stmt_dumps.back(),
                       ": does its statement or setup end the process?"));
    }
  }
  return DumpsResult(order, MeasuredTaskSpec(order), dumps);
}

WorkerResultProto RunOrder(const WorkOrderProto& order, const CaseProcess& process) {
  const base::PhaseMark start = base::PhaseNow();
  SetCurrentArtifactPath(order.torchscript_artifact());
  absl::StatusOr<timer::Timer> timer = MakeTimer(order);
  base::RecordPhase("case", "make the timer (compile a Python snippet, find a C++ one)", start);
  if (!timer.ok()) return FailureResult(FAILURE_SETUP, std::string(timer.status().message()));
  // Results report the order's own setup, not the artifact line added above.
  const std::string original_setup = order.task_spec().setup();
  WorkerResultProto result;
  WorkerOutputProto* output = result.mutable_output();
  if (order.wall_time()) {
    std::optional<WorkerResultProto> failed =
        MeasureWallTime(order, *timer, original_setup, *output);
    if (failed.has_value()) return *std::move(failed);
  }
  if (order.callgrind()) {
    if (!RUNNING_ON_VALGRIND) {
      return FailureResult(
          FAILURE_WORKER,
          "instruction counts need a worker started under valgrind (the runner does "
          "this); this one runs natively");
    }
    timer::CallgrindOptions options = CallgrindOptionsFor(order);
    if (order.return_dumps()) return CollectDumps(order, *timer, process, options);
    std::optional<WorkerResultProto> failed =
        CountInstructions(order, *timer, options, original_setup, *output);
    if (failed.has_value()) return *std::move(failed);
  }
  return result;
}

}  // namespace icount::worker::internal
