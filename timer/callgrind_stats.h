#ifndef ICOUNT_TIMER_CALLGRIND_STATS_H_
#define ICOUNT_TIMER_CALLGRIND_STATS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "timer/cache_model.h"
#include "timer/call_tree.h"
#include "timer/callgrind.pb.h"
#include "timer/function_counts.h"
#include "timer/measurement_io.h"
#include "timer/task_spec.h"

namespace icount::timer {

// Calls into the heap allocator counted in a measured region: calls into
// malloc, calloc, realloc, aligned_alloc, posix_memalign, memalign, valloc
// or any operator new are allocations; into free or any operator delete,
// frees. Only calls from outside these functions count (operator new
// calling malloc is one allocation). Python's small-object arenas
// (PyObject_Malloc) are not the heap allocator: allocations there do not
// count.
struct HeapCalls {
  int64_t allocations = 0;
  int64_t frees = 0;
};

// Instruction counts of one repeat of Timer::CollectCallgrind, like
// torch.utils.benchmark's CallgrindStats.
//
// Counts() is the total over the measured region (number_per_run runs of
// the statement), as the reference reports it. CountsPerRun() is what icount
// tables show: (Counts() - BaselineCounts()) / number_per_run, where the
// baseline is the same loop around an empty statement measured in the same
// process, so the loop and the collection toggles cancel out. Without a
// baseline it is Counts() / number_per_run.
//
//   absl::StatusOr<std::vector<CallgrindStats>> stats = timer.CollectCallgrind();
//   std::cout << (*stats)[0].Summary() << "\n"
//             << (*stats)[0].Stats().Denoise().Slice(0, 10).ToString() << "\n";
class CallgrindStats {
 public:
  CallgrindStats() = default;
  CallgrindStats(TaskSpec task_spec, int64_t number_per_run, bool built_with_debug_symbols,
                 FunctionCounts stmt_inclusive, FunctionCounts stmt_exclusive,
                 std::optional<FunctionCounts> baseline_inclusive,
                 std::optional<FunctionCounts> baseline_exclusive,
                 std::optional<std::string> stmt_callgrind_out);

  const TaskSpec& task_spec() const { return task_spec_; }
  int64_t number_per_run() const { return number_per_run_; }
  bool built_with_debug_symbols() const { return built_with_debug_symbols_; }
  bool has_baseline() const { return baseline_exclusive_.has_value(); }
  // Empty FunctionCounts when no baseline was collected.
  FunctionCounts BaselineStats(bool inclusive = false) const;
  // The path of the retained callgrind out file (opens in KCachegrind).
  const std::optional<std::string>& stmt_callgrind_out() const { return stmt_callgrind_out_; }
  // Where the measured region's instructions went (timer/call_tree.h); the
  // Timer builds it for the first repeat of a collection only.
  const std::optional<CallTree>& call_tree() const { return call_tree_; }
  void set_call_tree(CallTree tree) { call_tree_ = std::move(tree); }

  // Heap calls of the measured region and of the baseline, from the call
  // counts of the same callgrind dumps; absent in results written before
  // icount counted them.
  const std::optional<HeapCalls>& heap_calls() const { return heap_calls_; }
  const std::optional<HeapCalls>& baseline_heap_calls() const { return baseline_heap_calls_; }
  void set_heap_calls(HeapCalls stmt, std::optional<HeapCalls> baseline) {
    heap_calls_ = stmt;
    baseline_heap_calls_ = baseline;
  }
  // Allocations and frees per run of the statement, baseline subtracted;
  // nullopt without heap_calls().
  std::optional<double> AllocationsPerRun() const;
  std::optional<double> FreesPerRun() const;

  // Cache-simulation totals of the measured region and of the baseline,
  // when callgrind simulated caches (CallgrindOptions::cache_sim).
  const std::optional<CacheEvents>& cache_events() const { return cache_events_; }
  const std::optional<CacheEvents>& baseline_cache_events() const { return baseline_cache_events_; }
  void set_cache_events(CacheEvents stmt, std::optional<CacheEvents> baseline) {
    cache_events_ = stmt;
    baseline_cache_events_ = baseline;
  }
  // EstimatedCycles per run of the statement, baseline subtracted; nullopt
  // without cache_events().
  std::optional<double> EstimatedCyclesPerRun() const;

  // Per-function counts of the measured region.
  const FunctionCounts& Stats(bool inclusive = false) const {
    return inclusive ? stmt_inclusive_ : stmt_exclusive_;
  }
  // Total instructions of the measured region (all number_per_run runs).
  int64_t Counts(bool denoise = false) const;
  int64_t BaselineCounts(bool denoise = false) const;
  // Instructions per run of the statement, baseline subtracted.
  double CountsPerRun(bool denoise = false) const;
  // This minus other, per function.
  FunctionCounts Delta(const CallgrindStats& other, bool inclusive = false) const;
  // Function names with build paths and library suffixes stripped.
  CallgrindStats AsStandardized() const;

  // The reference's repr without its first line, plus the per-run count:
  //   add
  //                            All          Noisy symbols removed
  //       Instructions:       943020                     943020
  //       Baseline:             4210                       4210
  //   100 runs per measurement, 1 thread
  //       Per run:              9388.10 (baseline subtracted)
  std::string Summary() const;

 private:
  TaskSpec task_spec_;
  int64_t number_per_run_ = 0;
  bool built_with_debug_symbols_ = false;
  FunctionCounts stmt_inclusive_;
  FunctionCounts stmt_exclusive_;
  std::optional<FunctionCounts> baseline_inclusive_;
  std::optional<FunctionCounts> baseline_exclusive_;
  std::optional<std::string> stmt_callgrind_out_;
  std::optional<CallTree> call_tree_;
  std::optional<HeapCalls> heap_calls_;
  std::optional<HeapCalls> baseline_heap_calls_;
  std::optional<CacheEvents> cache_events_;
  std::optional<CacheEvents> baseline_cache_events_;
};

// The compact form results files carry: totals per repeat, the baseline,
// per-run counts and the first repeat's exclusive profile and call tree.
InstructionCounts SummarizeInstructionCounts(const std::vector<CallgrindStats>& repeats);

// TaskSpec <-> proto (shared with the callgrind child protocol).
timer::TaskSpecProto TaskSpecToProto(const TaskSpec& spec);
TaskSpec TaskSpecFromProto(const timer::TaskSpecProto& proto);

timer::CallgrindStatsProto CallgrindStatsToProto(const CallgrindStats& stats);
absl::StatusOr<CallgrindStats> CallgrindStatsFromProto(const timer::CallgrindStatsProto& proto);

// JSON with proto field names, carrying the schema and timer versions.
std::string CallgrindStatsToJson(const std::vector<CallgrindStats>& stats);
absl::StatusOr<std::vector<CallgrindStats>> CallgrindStatsFromJson(absl::string_view json,
                                                                   absl::string_view source);

}  // namespace icount::timer

#endif  // ICOUNT_TIMER_CALLGRIND_STATS_H_
