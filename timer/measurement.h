#ifndef ICOUNT_TIMER_MEASUREMENT_H_
#define ICOUNT_TIMER_MEASUREMENT_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "timer/task_spec.h"

namespace icount::timer {

// The result of a wall-time measurement: `raw_times[i]` seconds for a block
// of `number_per_run` runs of the statement. Statistics are per run and are
// computed exactly as torch.utils.benchmark.Measurement computes them
// (quantiles with linear interpolation, the same warnings and the same
// significant-figure estimate), so tables and summaries match the reference.
//
//   Measurement m(/*number_per_run=*/100, /*raw_times=*/{1.2e-4, 1.1e-4}, spec);
//   m.Median();      // 1.15e-6 seconds per run
//   m.Summary();     // "add\n  Median: 1.15 us\n  2 measurements, 100 runs ..."
// How Measurement::SignificantFigures judges the precision of a median.
enum class FiguresRule {
  // torch.utils.benchmark's: 1.645 population standard deviations of the
  // interquartile per-run times over the square root of their number, but
  // never below 25 ns a run. Compare's golden tables use it. The floor makes
  // every case under 2.5 us a one-figure cell, however many blocks agree.
  kReference,
  // icount's tables: the same interquartile times, with Student's t (95%,
  // one-sided, as 1.645 is) for their number and the sample standard
  // deviation, so two blocks claim less than two hundred; one block alone
  // supports one figure. The 25 ns floor is the clock's, so it bounds a
  // timed block: 25 ns / number_per_run a run.
  //
  //   // 50 blocks of 1,000 runs, interquartile spread 0.5% of 200 ns:
  //   m.SignificantFigures();                      // 1 (25 ns floor)
  //   m.SignificantFigures(FiguresRule::kBlocks);  // 2
  kBlocks,
};

class Measurement {
 public:
  Measurement(int64_t number_per_run, std::vector<double> raw_times, TaskSpec task_spec,
              std::map<std::string, std::string> metadata = {});

  int64_t number_per_run() const { return number_per_run_; }
  const std::vector<double>& raw_times() const { return raw_times_; }
  const TaskSpec& task_spec() const { return task_spec_; }
  // Reserved for user payloads; not carried over by Merge().
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  std::map<std::string, std::string>& mutable_metadata() { return metadata_; }

  // Per-run times: raw_times / number_per_run, in recorded order.
  std::vector<double> Times() const;
  // Statistics of the per-run times (seconds). With no times, all are -1 as
  // in the reference.
  double Median() const { return stats_.median; }
  double Mean() const { return stats_.mean; }
  double P25() const { return stats_.p25; }
  double P75() const { return stats_.p75; }
  double Iqr() const { return stats_.p75 - stats_.p25; }
  // Number of significant figures the spread supports, 1..4.
  int SignificantFigures(FiguresRule rule = FiguresRule::kReference) const;
  // iqr / median < threshold.
  bool MeetsConfidence(double threshold = 0.1) const;
  bool HasWarnings() const { return !warnings_.empty(); }
  // "  WARNING: Interquartile range is 12.3% of the median measurement.\n"
  // "           This could indicate system fluctuation." (one per warning)
  const std::vector<std::string>& Warnings() const { return warnings_; }

  // The row name tables use: sub_label, else stmt, else "[Unknown]".
  std::string RowName() const;
  // "Unspecified env" when env is unset.
  std::string EnvName() const;

  // The reference's repr without its first line (the Python object), e.g.
  //   add
  //     Median: 5.73 us
  //     IQR:    2.25 us (4.01 to 6.26)
  //     372 measurements, 100 runs per measurement, 1 thread
  std::string Summary() const;

  // Runs in each timed block: number_per_run, except after Merge(), which
  // keeps the smallest block size of what it pooled (FiguresRule::kBlocks
  // floors a block's precision at the clock's, whatever number_per_run).
  int64_t runs_per_block() const { return runs_per_block_; }

  // Groups by task spec (first-seen order) and pools each group's per-run
  // times into one Measurement with number_per_run = 1 and no metadata.
  static std::vector<Measurement> Merge(const std::vector<Measurement>& measurements);

 private:
  struct Stats {
    std::vector<double> sorted_times;
    double median = -1, mean = -1, p25 = -1, p75 = -1;
  };
  void ComputeStats();
  // FiguresRule::kBlocks over the sorted per-run times [lower, upper).
  int BlockFigures(size_t lower, size_t upper) const;

  int64_t number_per_run_;
  int64_t runs_per_block_;
  std::vector<double> raw_times_;
  TaskSpec task_spec_;
  std::map<std::string, std::string> metadata_;
  Stats stats_;
  std::vector<std::string> warnings_;
};

// How torch.utils.benchmark picks a unit for a time in seconds:
// {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3} or {"s", 1}.
std::pair<std::string, double> SelectTimeUnit(double seconds);
// "ns" -> "nanosecond", ...
std::string TimeUnitToEnglish(const std::string& unit);
// Rounds `x` to `n` significant figures (3.14159, 2 -> 3.1).
double TrimSignificantFigures(double x, int n);
// torch.quantile's linear interpolation on sorted values, q in [0, 1].
double Quantile(const std::vector<double>& sorted, double q);

}  // namespace icount::timer

#endif  // ICOUNT_TIMER_MEASUREMENT_H_
