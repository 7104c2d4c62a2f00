#ifndef ICOUNT_HISTORY_CHANGE_POINTS_H_
#define ICOUNT_HISTORY_CHANGE_POINTS_H_

// Where a case's series over runs steps to a new level, with a method that
// fits each metric.
//
// Instruction counts are exact: the same build and input give the same
// count, so any change beyond a tiny tolerance is a step, and it belongs to
// the first run that shows it.
//
//   CountSteps({1000, 1000, 1030, 1030});  // one step at index 2, +3%
//
// Wall time is noisy, with outliers (a slow process, a busy neighbour):
//   1. work on log(time), so a step is a ratio;
//   2. estimate the noise robustly (the MAD of successive differences);
//   3. clip each point to its running median of 5 +- 3 sigma, so one slow
//      run cannot pass for a level of its own;
//   4. find the optimal segmentation (PELT, squared error) with a penalty
//      of time_penalty * sigma^2 * ln(n) per change and at least
//      time_min_segment runs per level;
//   5. place each change where the (clipped) raw values split best, within
//      two runs of where PELT put it;
//   6. drop changes smaller than time_min_effect_pct between the medians
//      of the levels on either side (re-merging the levels), and
//      excursions: levels shorter than time_max_excursion runs between two
//      levels that agree.
// A step therefore needs time_min_segment runs after it to be told from an
// outlier, and a regression that is fixed within time_max_excursion runs is
// not reported for wall time (counts report it exactly). //history:change_points_benchmark measures the false-alarm and
// detection rates of these defaults on synthetic series.
//
//   TimeSteps({1.0, 1.02, 0.99, 1.01, 1.2, 1.21, 1.19, 1.2}, {});  // at 4, +19%

#include <cstddef>
#include <vector>

namespace icount::history {

struct StepOptions {
  // Counts: a change of more than both is a step.
  double count_tolerance_pct = 0.01;
  double count_tolerance_abs = 0.5;  // instructions per run
  // Wall time.
  double time_min_effect_pct = 5.0;
  int time_min_segment = 3;
  double time_penalty = 6.0;
  // A level shorter than this between two levels that agree is an
  // excursion (slow runs clustering by chance), not two steps.
  int time_max_excursion = 6;
};

struct Step {
  size_t index = 0;   // the first point of the new level
  double before = 0;  // the level before (counts: the previous value)
  double after = 0;   // the new level
  double change_pct = 0;
};

std::vector<Step> CountSteps(const std::vector<double>& values, const StepOptions& options = {});
// Heap allocations per run: exact like counts and small, so every change of
// at least one allocation in 200 runs is a step.
std::vector<Step> AllocationSteps(const std::vector<double>& values);
// `values` must be positive (seconds per run).
std::vector<Step> TimeSteps(const std::vector<double>& values, const StepOptions& options = {});

}  // namespace icount::history

#endif  // ICOUNT_HISTORY_CHANGE_POINTS_H_
