#include "timer/callgrind_dumps.h"

#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "timer/function_counts.h"
#include "timer/internal/allocation_calls.h"
#include "timer/internal/call_tree_builder.h"
#include "timer/internal/callgrind_parser.h"
#include "timer/internal/unnamed_functions.h"

namespace icount::timer {
namespace {

// LibTorch's functions carry file names only with debug information;
// without it callgrind names their file "???".
bool HasLibTorchDebugInfo(const FunctionCounts& counts) {
  for (const FunctionCount& row : counts.rows()) {
    const FunctionKey& key = row.function;
    if (key.file() != "???" &&
        (absl::StrContains(key.object(), "libtorch") || absl::StrContains(key.file(), "libtorch"))) {
      return true;
    }
  }
  return false;
}

absl::StatusOr<timer::internal::CallgrindProfile> ParseDump(const std::string& path,
                                                            const ObjectNames& object_names) {
  absl::StatusOr<timer::internal::CallgrindProfile> profile =
      timer::internal::ParseCallgrindFile(path, object_names);
  if (!profile.ok()) {
    return absl::DataLossError(
        absl::StrCat("cannot read callgrind's output: ", profile.status().message()));
  }
  return profile;
}

HeapCalls HeapCallsOf(const timer::internal::CallgrindProfile& profile) {
  const timer::internal::AllocationCalls calls = timer::internal::CountAllocationCalls(profile);
  return HeapCalls{calls.allocations, calls.frees};
}

}  // namespace

absl::StatusOr<std::vector<CallgrindStats>> CallgrindStatsFromDumps(const TaskSpec& spec,
                                                                    int64_t number_per_run,
                                                                    const CallgrindDumpFiles& dumps,
                                                                    bool keep_files,
                                                                    const ObjectNames& object_names) {
  std::optional<FunctionCounts> baseline_inclusive;
  std::optional<FunctionCounts> baseline_exclusive;
  std::optional<HeapCalls> baseline_heap_calls;
  std::optional<CacheEvents> baseline_cache_events;
  if (!dumps.baseline_dump.empty()) {
    absl::StatusOr<timer::internal::CallgrindProfile> parsed =
        ParseDump(dumps.baseline_dump, object_names);
    if (!parsed.ok()) return parsed.status();
    const timer::internal::CallgrindProfile baseline =
        timer::internal::MergeUnnamedFunctions(*parsed);
    baseline_inclusive = FunctionCounts::FromMap(baseline.inclusive, true);
    baseline_exclusive = FunctionCounts::FromMap(baseline.exclusive, false);
    baseline_heap_calls = HeapCallsOf(baseline);
    baseline_cache_events = CacheEventsFromTotals(baseline.events, baseline.event_totals);
  }
  // Dumps are removed once read unless kept for the caller; a long run
  // must not fill the disk (or slow down directory scans).
  if (!dumps.baseline_dump.empty() && !keep_files) std::remove(dumps.baseline_dump.c_str());
  std::vector<CallgrindStats> stats;
  for (const std::string& dump : dumps.stmt_dumps) {
    absl::StatusOr<timer::internal::CallgrindProfile> raw = ParseDump(dump, object_names);
    if (!raw.ok()) return raw.status();
    // Flat counts with each object's unnamed functions as one; the tree
    // merges them itself, path by path (timer/internal/unnamed_functions.h).
    const timer::internal::CallgrindProfile profile =
        timer::internal::MergeUnnamedFunctions(*raw);
    FunctionCounts exclusive = FunctionCounts::FromMap(profile.exclusive, false);
    const bool debug_info = HasLibTorchDebugInfo(exclusive);
    stats.emplace_back(spec, number_per_run, debug_info,
                       FunctionCounts::FromMap(profile.inclusive, true), std::move(exclusive),
                       baseline_inclusive, baseline_exclusive,
                       keep_files ? std::optional<std::string>(dump) : std::nullopt);
    stats.back().set_heap_calls(HeapCallsOf(profile), baseline_heap_calls);
    if (std::optional<CacheEvents> events =
            CacheEventsFromTotals(profile.events, profile.event_totals)) {
      stats.back().set_cache_events(*events, baseline_cache_events);
    }
    // Repeats have identical counts; one tree is what reports draw.
    if (stats.size() == 1) stats.back().set_call_tree(timer::internal::BuildCallTree(*raw));
    if (!keep_files) std::remove(dump.c_str());
  }
  return stats;
}

}  // namespace icount::timer
