#include "timer/callgrind_stats.h"

#include <google/protobuf/util/json_util.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/proto_json.h"
#include "timer/internal/task_spec_fields.h"
#include "timer/measurement_io.h"
#include "timer/version.h"

namespace icount::timer {
namespace {

timer::CacheEventsProto CacheEventsToProto(const CacheEvents& e) {
  timer::CacheEventsProto proto;
  proto.set_ir(e.ir);
  proto.set_dr(e.dr);
  proto.set_dw(e.dw);
  proto.set_i1mr(e.i1mr);
  proto.set_d1mr(e.d1mr);
  proto.set_d1mw(e.d1mw);
  proto.set_ilmr(e.ilmr);
  proto.set_dlmr(e.dlmr);
  proto.set_dlmw(e.dlmw);
  return proto;
}

CacheEvents CacheEventsFromProto(const timer::CacheEventsProto& p) {
  return CacheEvents{p.ir(),   p.dr(),   p.dw(),   p.i1mr(), p.d1mr(),
                     p.d1mw(), p.ilmr(), p.dlmr(), p.dlmw()};
}

}  // namespace

timer::TaskSpecProto TaskSpecToProto(const TaskSpec& spec) {
  timer::TaskSpecProto proto;
  timer::internal::WriteTaskSpecFields(spec, &proto);
  return proto;
}

TaskSpec TaskSpecFromProto(const timer::TaskSpecProto& proto) {
  return timer::internal::ReadTaskSpecFields(proto);
}

CallgrindStats::CallgrindStats(TaskSpec task_spec, int64_t number_per_run,
                               bool built_with_debug_symbols, FunctionCounts stmt_inclusive,
                               FunctionCounts stmt_exclusive,
                               std::optional<FunctionCounts> baseline_inclusive,
                               std::optional<FunctionCounts> baseline_exclusive,
                               std::optional<std::string> stmt_callgrind_out)
    : task_spec_(std::move(task_spec)),
      number_per_run_(number_per_run),
      built_with_debug_symbols_(built_with_debug_symbols),
      stmt_inclusive_(std::move(stmt_inclusive)),
      stmt_exclusive_(std::move(stmt_exclusive)),
      baseline_inclusive_(std::move(baseline_inclusive)),
      baseline_exclusive_(std::move(baseline_exclusive)),
      stmt_callgrind_out_(std::move(stmt_callgrind_out)) {}

FunctionCounts CallgrindStats::BaselineStats(bool inclusive) const {
  const std::optional<FunctionCounts>& counts =
      inclusive ? baseline_inclusive_ : baseline_exclusive_;
  return counts.has_value() ? *counts : FunctionCounts({}, inclusive);
}

int64_t CallgrindStats::Counts(bool denoise) const {
  return denoise ? stmt_exclusive_.Denoise().Sum() : stmt_exclusive_.Sum();
}

int64_t CallgrindStats::BaselineCounts(bool denoise) const {
  const FunctionCounts baseline = BaselineStats(/*inclusive=*/false);
  return denoise ? baseline.Denoise().Sum() : baseline.Sum();
}

double CallgrindStats::CountsPerRun(bool denoise) const {
  if (number_per_run_ <= 0) return 0;
  return static_cast<double>(Counts(denoise) - BaselineCounts(denoise)) /
         static_cast<double>(number_per_run_);
}

std::optional<double> CallgrindStats::AllocationsPerRun() const {
  if (!heap_calls_.has_value() || number_per_run_ <= 0) return std::nullopt;
  const int64_t baseline = baseline_heap_calls_ ? baseline_heap_calls_->allocations : 0;
  return static_cast<double>(heap_calls_->allocations - baseline) /
         static_cast<double>(number_per_run_);
}

std::optional<double> CallgrindStats::FreesPerRun() const {
  if (!heap_calls_.has_value() || number_per_run_ <= 0) return std::nullopt;
  const int64_t baseline = baseline_heap_calls_ ? baseline_heap_calls_->frees : 0;
  return static_cast<double>(heap_calls_->frees - baseline) / static_cast<double>(number_per_run_);
}

std::optional<double> CallgrindStats::EstimatedCyclesPerRun() const {
  if (!cache_events_.has_value() || number_per_run_ <= 0) return std::nullopt;
  const double baseline = baseline_cache_events_ ? EstimatedCycles(*baseline_cache_events_) : 0;
  return (EstimatedCycles(*cache_events_) - baseline) / static_cast<double>(number_per_run_);
}

FunctionCounts CallgrindStats::Delta(const CallgrindStats& other, bool inclusive) const {
  // Both sides' counts of one kind: the subtraction cannot fail.
  return *Stats(inclusive).Subtract(other.Stats(inclusive));
}

CallgrindStats CallgrindStats::AsStandardized() const {
  auto standardize = [](const std::optional<FunctionCounts>& counts) {
    return counts.has_value() ? std::optional<FunctionCounts>(counts->Standardized())
                              : std::nullopt;
  };
  CallgrindStats standardized(task_spec_, number_per_run_, built_with_debug_symbols_,
                              stmt_inclusive_.Standardized(), stmt_exclusive_.Standardized(),
                              standardize(baseline_inclusive_), standardize(baseline_exclusive_),
                              std::nullopt);
  if (heap_calls_.has_value()) standardized.set_heap_calls(*heap_calls_, baseline_heap_calls_);
  if (cache_events_.has_value()) {
    standardized.set_cache_events(*cache_events_, baseline_cache_events_);
  }
  return standardized;
}

std::string CallgrindStats::Summary() const {
  const FunctionCounts baseline = BaselineStats(false);
  const int threads = task_spec_.num_threads;
  std::string text = absl::StrFormat(
      "%s\n"
      "  %25sAll%10sNoisy symbols removed\n"
      "    Instructions: %12d%15s%12d\n"
      "    Baseline:     %12d%15s%12d\n"
      "%d runs per measurement, %d thread%s",
      task_spec_.Summarize(), "", "", Counts(false), "", Counts(true), baseline.Sum(), "",
      baseline.Denoise().Sum(), number_per_run_, threads, threads > 1 ? "s" : "");
  absl::StrAppendFormat(&text, "\n    Per run:      %12.2f (%s)", CountsPerRun(false),
                        has_baseline() ? "baseline subtracted" : "no baseline collected");
  if (std::optional<double> allocations = AllocationsPerRun()) {
    absl::StrAppendFormat(&text, "\n    Allocations:  %12.2f per run, frees %.2f", *allocations,
                          FreesPerRun().value_or(0));
  }
  if (std::optional<double> cycles = EstimatedCyclesPerRun()) {
    absl::StrAppendFormat(&text, "\n    Est. cycles:  %12.2f per run (cache model)", *cycles);
  }
  if (!built_with_debug_symbols_) {
    absl::StrAppend(&text,
                    "\nWarning: LibTorch has no debug symbols here.\n"
                    "         Source information may be limited. Install its debug\n"
                    "         symbols (or build with REL_WITH_DEB_INFO=1) for file:line detail.");
  }
  return text;
}

InstructionCounts SummarizeInstructionCounts(const std::vector<CallgrindStats>& repeats) {
  InstructionCounts counts;
  if (repeats.empty()) return counts;
  const CallgrindStats& first = repeats.front();
  counts.task_spec = first.task_spec();
  counts.number_per_run = first.number_per_run();
  for (const CallgrindStats& repeat : repeats) counts.counts.push_back(repeat.Counts());
  counts.baseline = first.BaselineCounts();
  counts.counts_per_run = first.CountsPerRun();
  counts.exclusive = first.Stats(/*inclusive=*/false);
  counts.call_tree = first.call_tree();
  counts.allocations_per_run = first.AllocationsPerRun();
  counts.frees_per_run = first.FreesPerRun();
  counts.estimated_cycles_per_run = first.EstimatedCyclesPerRun();
  return counts;
}

timer::CallgrindStatsProto CallgrindStatsToProto(const CallgrindStats& stats) {
  timer::CallgrindStatsProto proto;
  *proto.mutable_task_spec() = TaskSpecToProto(stats.task_spec());
  proto.set_number_per_run(stats.number_per_run());
  proto.set_built_with_debug_symbols(stats.built_with_debug_symbols());
  *proto.mutable_stmt_inclusive() = FunctionCountsToProto(stats.Stats(true));
  *proto.mutable_stmt_exclusive() = FunctionCountsToProto(stats.Stats(false));
  proto.set_has_baseline(stats.has_baseline());
  if (stats.has_baseline()) {
    *proto.mutable_baseline_inclusive() = FunctionCountsToProto(stats.BaselineStats(true));
    *proto.mutable_baseline_exclusive() = FunctionCountsToProto(stats.BaselineStats(false));
  }
  if (stats.stmt_callgrind_out()) proto.set_stmt_callgrind_out(*stats.stmt_callgrind_out());
  if (stats.call_tree()) *proto.mutable_stmt_call_tree() = CallTreeToProto(*stats.call_tree());
  if (stats.heap_calls()) {
    proto.mutable_stmt_heap_calls()->set_allocations(stats.heap_calls()->allocations);
    proto.mutable_stmt_heap_calls()->set_frees(stats.heap_calls()->frees);
  }
  if (stats.baseline_heap_calls()) {
    proto.mutable_baseline_heap_calls()->set_allocations(stats.baseline_heap_calls()->allocations);
    proto.mutable_baseline_heap_calls()->set_frees(stats.baseline_heap_calls()->frees);
  }
  if (stats.cache_events()) {
    *proto.mutable_stmt_cache_events() = CacheEventsToProto(*stats.cache_events());
  }
  if (stats.baseline_cache_events()) {
    *proto.mutable_baseline_cache_events() = CacheEventsToProto(*stats.baseline_cache_events());
  }
  return proto;
}

absl::StatusOr<CallgrindStats> CallgrindStatsFromProto(const timer::CallgrindStatsProto& proto) {
  if (proto.number_per_run() <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("number_per_run must be positive, got ", proto.number_per_run()));
  }
  std::optional<FunctionCounts> baseline_inclusive;
  std::optional<FunctionCounts> baseline_exclusive;
  if (proto.has_baseline()) {
    baseline_inclusive = FunctionCountsFromProto(proto.baseline_inclusive());
    baseline_exclusive = FunctionCountsFromProto(proto.baseline_exclusive());
  }
  CallgrindStats stats(TaskSpecFromProto(proto.task_spec()), proto.number_per_run(),
                       proto.built_with_debug_symbols(), FunctionCountsFromProto(proto.stmt_inclusive()),
                       FunctionCountsFromProto(proto.stmt_exclusive()), std::move(baseline_inclusive),
                       std::move(baseline_exclusive),
                       proto.stmt_callgrind_out().empty()
                           ? std::nullopt
                           : std::optional<std::string>(proto.stmt_callgrind_out()));
  if (proto.has_stmt_call_tree()) {
    absl::StatusOr<CallTree> tree = CallTreeFromProto(proto.stmt_call_tree(), "");
    if (!tree.ok()) return tree.status();
    stats.set_call_tree(*std::move(tree));
  }
  if (proto.has_stmt_heap_calls()) {
    auto heap_calls = [](const timer::HeapCallsProto& calls) {
      return HeapCalls{calls.allocations(), calls.frees()};
    };
    stats.set_heap_calls(heap_calls(proto.stmt_heap_calls()),
                         proto.has_baseline_heap_calls()
                             ? std::optional<HeapCalls>(heap_calls(proto.baseline_heap_calls()))
                             : std::nullopt);
  }
  if (proto.has_stmt_cache_events()) {
    stats.set_cache_events(
        CacheEventsFromProto(proto.stmt_cache_events()),
        proto.has_baseline_cache_events()
            ? std::optional<CacheEvents>(CacheEventsFromProto(proto.baseline_cache_events()))
            : std::nullopt);
  }
  return stats;
}

std::string CallgrindStatsToJson(const std::vector<CallgrindStats>& stats) {
  timer::CallgrindStatsFileProto file;
  file.set_schema_version(kResultsSchemaVersion);
  (*file.mutable_versions())["timer"] = kTimerVersion;
  for (const CallgrindStats& s : stats) *file.add_stats() = CallgrindStatsToProto(s);
  return base::ProtoToJson(file) + "\n";
}

absl::StatusOr<std::vector<CallgrindStats>> CallgrindStatsFromJson(absl::string_view json,
                                                                   absl::string_view source) {
  timer::CallgrindStatsFileProto file;
  auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), &file);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": not a valid callgrind stats file: ", status.message().as_string()));
  }
  if (file.schema_version() > kResultsSchemaVersion) {
    return absl::FailedPreconditionError(absl::StrCat(
        source, ": schema_version ", file.schema_version(), " is newer than this build reads (",
        kResultsSchemaVersion, ", timer ", kTimerVersion, "); update icount to read it"));
  }
  std::vector<CallgrindStats> stats;
  for (int i = 0; i < file.stats_size(); ++i) {
    absl::StatusOr<CallgrindStats> s = CallgrindStatsFromProto(file.stats(i));
    if (!s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": stats ", i + 1, ": ", s.status().message()));
    }
    stats.push_back(*std::move(s));
  }
  return stats;
}

}  // namespace icount::timer
