#include "history/change_points.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace icount::history {
namespace {

double MedianOf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double Percent(double before, double after) {
  return before != 0 ? 100 * (after - before) / std::fabs(before) : (after != 0 ? 100 : 0);
}

// The noise of a series that may hold steps and outliers: the MAD of the
// successive differences, scaled to a normal sigma (each difference has
// twice a point's variance).
double RobustSigma(const std::vector<double>& y) {
  if (y.size() < 3) return 0;
  std::vector<double> differences;
  for (size_t i = 1; i < y.size(); ++i) differences.push_back(y[i] - y[i - 1]);
  const double center = MedianOf(differences);
  for (double& d : differences) d = std::fabs(d - center);
  return 1.4826 * MedianOf(differences) / std::sqrt(2.0);
}

// Change positions (starts of new segments) of the least-squares
// segmentation with `penalty` per change and segments of >= `min_length`,
// found by PELT (exact, with pruning).
std::vector<size_t> Pelt(const std::vector<double>& y, double penalty, size_t min_length) {
  const size_t n = y.size();
  std::vector<double> sum(n + 1, 0), squares(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    sum[i + 1] = sum[i] + y[i];
    squares[i + 1] = squares[i] + y[i] * y[i];
  }
  auto cost = [&](size_t s, size_t t) {  // squared error of y[s, t)
    const double length = static_cast<double>(t - s);
    const double total = sum[t] - sum[s];
    return std::max(0.0, squares[t] - squares[s] - total * total / length);
  };
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  std::vector<double> best(n + 1, kInfinity);
  std::vector<size_t> previous(n + 1, 0);
  best[0] = -penalty;
  std::vector<size_t> candidates;
  for (size_t t = min_length; t <= n; ++t) {
    const size_t newest = t - min_length;  // now far enough back to start a segment
    if (newest == 0 || best[newest] < kInfinity) candidates.push_back(newest);
    for (size_t s : candidates) {
      const double value = best[s] + cost(s, t) + penalty;
      if (value < best[t]) {
        best[t] = value;
        previous[t] = s;
      }
    }
    // PELT's pruning: a start that is already worse than the best by more
    // than the penalty can never be optimal later.
    std::vector<size_t> kept;
    for (size_t s : candidates) {
      if (best[s] + cost(s, t) <= best[t]) kept.push_back(s);
    }
    candidates.swap(kept);
  }
  std::vector<size_t> changes;
  for (size_t t = n; t > 0 && best[t] < kInfinity;) {
    const size_t s = previous[t];
    if (s > 0) changes.push_back(s);
    t = s;
  }
  std::reverse(changes.begin(), changes.end());
  return changes;
}

}  // namespace

std::vector<Step> AllocationSteps(const std::vector<double>& values) {
  StepOptions options;
  options.count_tolerance_pct = 0;
  options.count_tolerance_abs = 0.005;
  return CountSteps(values, options);
}

std::vector<Step> CountSteps(const std::vector<double>& values, const StepOptions& options) {
  std::vector<Step> steps;
  for (size_t i = 1; i < values.size(); ++i) {
    const double before = values[i - 1];
    const double after = values[i];
    const double pct = Percent(before, after);
    if (std::fabs(after - before) > options.count_tolerance_abs &&
        std::fabs(pct) > options.count_tolerance_pct) {
      steps.push_back(Step{i, before, after, pct});
    }
  }
  return steps;
}

namespace {

// Moves each change (by up to 2 runs, between its neighbours) to where the
// values split best: least absolute deviation from each side's median.
// Only the runs near the change decide (at most kNear on each side), which
// keeps this linear in the series' length.
void MoveChangesToBestSplits(const std::vector<double>& values, std::vector<size_t>& changes) {
  const size_t n = values.size();
  auto absolute_deviation = [&](size_t begin, size_t end) {
    const double median =
        MedianOf(std::vector<double>(values.begin() + begin, values.begin() + end));
    double total = 0;
    for (size_t i = begin; i < end; ++i) total += std::fabs(values[i] - median);
    return total;
  };
  constexpr size_t kNear = 10;
  for (size_t k = 0; k < changes.size(); ++k) {
    const size_t begin =
        std::max(k == 0 ? 0 : changes[k - 1], changes[k] >= kNear ? changes[k] - kNear : 0);
    const size_t end = std::min(k + 1 == changes.size() ? n : changes[k + 1], changes[k] + kNear);
    size_t best = changes[k];
    double best_cost = absolute_deviation(begin, best) + absolute_deviation(best, end);
    const size_t low = std::max(begin + 1, changes[k] >= 2 ? changes[k] - 2 : 0);
    const size_t high = std::min(end - 1, changes[k] + 2);
    for (size_t c = low; c <= high; ++c) {
      const double cost = absolute_deviation(begin, c) + absolute_deviation(c, end);
      if (cost < best_cost) {
        best_cost = cost;
        best = c;
      }
    }
    changes[k] = best;
  }
}

// The median of each point and the two on either side of it (fewer at the
// ends of the series).
std::vector<double> RunningMedian(const std::vector<double>& y) {
  const size_t n = y.size();
  std::vector<double> running_median(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t begin = i >= 2 ? i - 2 : 0;
    const size_t end = std::min(n, i + 3);
    running_median[i] = MedianOf(std::vector<double>(y.begin() + begin, y.begin() + end));
  }
  return running_median;
}

// The median of the raw values of level k: the runs from the change before
// it (or the first run) to the change after it (or the last run).
double LevelMedian(const std::vector<double>& values, const std::vector<size_t>& changes,
                   size_t k) {
  const size_t begin = k == 0 ? 0 : changes[k - 1];
  const size_t end = k == changes.size() ? values.size() : changes[k];
  return MedianOf(std::vector<double>(values.begin() + begin, values.begin() + end));
}

// Levels whose medians differ by less than the minimum effect are one
// level: merge the closest pair, re-measure the merged level, repeat.
// `levels` holds the median of each level between `changes`.
void MergeCloseLevels(const std::vector<double>& values, double min_effect_pct,
                      std::vector<size_t>& changes, std::vector<double>& levels) {
  while (!changes.empty()) {
    size_t smallest = 0;
    double smallest_pct = std::numeric_limits<double>::infinity();
    for (size_t k = 0; k < changes.size(); ++k) {
      const double pct = std::fabs(Percent(levels[k], levels[k + 1]));
      if (pct < smallest_pct) {
        smallest_pct = pct;
        smallest = k;
      }
    }
    if (smallest_pct >= min_effect_pct) break;
    changes.erase(changes.begin() + static_cast<std::ptrdiff_t>(smallest));
    levels.erase(levels.begin() + static_cast<std::ptrdiff_t>(smallest) + 1);
    levels[smallest] = LevelMedian(values, changes, smallest);
  }
}

// A short level between two that agree is an excursion (a cluster of slow
// runs, which noise with outliers produces now and then), not a step:
// merge it away. So is a level the refinement left too short.
void MergeExcursionsAndShortLevels(const std::vector<double>& values, const StepOptions& options,
                                   size_t min_length, std::vector<size_t>& changes,
                                   std::vector<double>& levels) {
  const size_t n = values.size();
  auto length = [&](size_t k) {
    return (k == changes.size() ? n : changes[k]) - (k == 0 ? 0 : changes[k - 1]);
  };
  for (size_t k = 0; k <= changes.size() && !changes.empty();) {
    const bool interior = k > 0 && k < changes.size();
    const bool excursion =
        interior && length(k) < static_cast<size_t>(options.time_max_excursion) &&
        std::fabs(Percent(levels[k - 1], levels[k + 1])) < options.time_min_effect_pct;
    if (excursion) {
      changes.erase(changes.begin() + static_cast<std::ptrdiff_t>(k) - 1,
                    changes.begin() + static_cast<std::ptrdiff_t>(k) + 1);
      levels.erase(levels.begin() + static_cast<std::ptrdiff_t>(k),
                   levels.begin() + static_cast<std::ptrdiff_t>(k) + 2);
      levels[k - 1] = LevelMedian(values, changes, k - 1);
      k = k - 1;
    } else if (length(k) < min_length) {
      // Too short at the start or the end: join the neighbouring level.
      const size_t change = k == 0 ? 0 : k - 1;
      changes.erase(changes.begin() + static_cast<std::ptrdiff_t>(change));
      levels.erase(levels.begin() + static_cast<std::ptrdiff_t>(change) + 1);
      levels[change] = LevelMedian(values, changes, change);
      k = change;
    } else {
      ++k;
    }
  }
}

}  // namespace

std::vector<Step> TimeSteps(const std::vector<double>& values, const StepOptions& options) {
  const size_t n = values.size();
  const size_t min_length = static_cast<size_t>(std::max(1, options.time_min_segment));
  if (n < 2 * min_length) return {};
  std::vector<double> y(n);
  for (size_t i = 0; i < n; ++i) y[i] = std::log(values[i]);
  // A series without noise (identical times) still has a scale: 0.01%.
  const double sigma = std::max(RobustSigma(y), 1e-4);
  const std::vector<double> running_median = RunningMedian(y);
  const double penalty = options.time_penalty * sigma * sigma * std::log(static_cast<double>(n));
  std::vector<size_t> changes = Pelt(running_median, penalty, min_length);
  // The running median blurs an edge by a run or two (most at the end of
  // the series); place each change where the raw values split best
  // (least absolute deviation from each side's median), near where PELT
  // found it and between its neighbours.
  // Outliers are clipped to their running median +- 3 sigma first, so a
  // slow run next to a step does not pull the step onto itself.
  std::vector<double> winsorized(n);
  for (size_t i = 0; i < n; ++i) {
    winsorized[i] = std::clamp(y[i], running_median[i] - 3 * sigma, running_median[i] + 3 * sigma);
  }
  MoveChangesToBestSplits(winsorized, changes);
  std::vector<double> levels;
  for (size_t k = 0; k <= changes.size(); ++k) levels.push_back(LevelMedian(values, changes, k));
  MergeCloseLevels(values, options.time_min_effect_pct, changes, levels);
  MergeExcursionsAndShortLevels(values, options, min_length, changes, levels);
  std::vector<Step> steps;
  for (size_t k = 0; k < changes.size(); ++k) {
    const double before = levels[k];
    const double after = levels[k + 1];
    steps.push_back(Step{changes[k], before, after, Percent(before, after)});
  }
  return steps;
}

}  // namespace icount::history
