#ifndef ICOUNT_COMPARE_SUITE_SUMMARY_H_
#define ICOUNT_COMPARE_SUITE_SUMMARY_H_

// One suite-level answer to "is B better or worse overall?": per metric,
// the geometric mean over the compared cases of B / A, with a bootstrap
// confidence interval over cases, and how many cases went up or down.
//
//   SuiteChangeBuilder instructions(SuiteMetric::kInstructions, /*unchanged_pct=*/0.1);
//   instructions.Add(4981, 5093);  // one case: A, B
//   ...
//   SuiteChange change = instructions.Summarize();
//   FormatSuiteChange(change);
//   // "instructions: +0.42% [+0.31, +0.55] over 201 cases (37 up, 2 down,
//   //  162 within 0.1%)"
//
// What the interval means: the cases are taken as a sample of the operator
// space the suite stands for, and the interval says where the geometric
// mean over that whole space would lie, were the suite drawn again (a
// percentile bootstrap over cases: the cases resampled with replacement
// 2,000 times). It does not describe the noise of one case: instruction
// counts have none, and wall times have their per-case intervals. Two
// geometric means compare only over the same case set: SuiteChange counts
// the cases each side had alone, left out of the mean, so that a reader
// sees when the sets differed.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compare/comparison_file.pb.h"
#include "compare/time_comparison.h"
#include "timer/measurement_io.h"

namespace icount::compare {

enum class SuiteMetric { kInstructions, kAllocations, kEstimatedCycles, kWallTime };

// "instructions", "allocations", "estimated cycles", "wall time".
std::string SuiteMetricName(SuiteMetric metric);

struct SuiteChange {
  SuiteMetric metric = SuiteMetric::kInstructions;
  // Cases in the mean: measured on both sides with positive values.
  int cases = 0;
  // (geometric mean of B / A - 1) * 100, and its 95% bootstrap interval
  // (has_interval: over two cases or more; resampling one case gives only
  // itself); all 0 when `cases` is 0.
  double geomean_pct = 0;
  double ci_low_pct = 0;
  double ci_high_pct = 0;
  bool has_interval() const { return cases >= 2; }
  // Cases up, down, and within the threshold (both sides measured; cases
  // with a zero value on a side count here but are not in the mean).
  int up = 0;
  int down = 0;
  int unchanged = 0;
  // What "up" means: a change of more than this many percent, or, for
  // wall time (`by_verdict`), a significant verdict.
  double unchanged_pct = 0;
  bool by_verdict = false;
  // Cases one side has and the other does not (left out).
  int only_a = 0;
  int only_b = 0;
  // Wall time: cases timed on both sides without a verdict (too few
  // rounds, unusable times), left out.
  int no_verdict = 0;
};

// Collects one metric's cases and summarises them.
class SuiteChangeBuilder {
 public:
  // A case is up (down) when B exceeds (falls short of) A by more than
  // `unchanged_pct` percent of A; any difference counts with 0.
  SuiteChangeBuilder(SuiteMetric metric, double unchanged_pct);

  // One case measured on both sides.
  void Add(double a, double b);
  // One case's wall-time verdict: the change is its delta_pct, up and down
  // its significant verdicts. Verdicts without a change (too few rounds,
  // unusable) are left out.
  void AddTime(const TimeComparison& comparison);
  // A case measured on one side only.
  void AddOnlyA() { ++only_a_; }
  void AddOnlyB() { ++only_b_; }

  // The summary; the bootstrap is seeded, so the same cases give the same
  // interval.
  SuiteChange Summarize() const;

 private:
  SuiteMetric metric_;
  double unchanged_pct_;
  bool by_verdict_ = false;
  std::vector<double> log_ratios_;
  int up_ = 0;
  int down_ = 0;
  int unchanged_ = 0;
  int only_a_ = 0;
  int only_b_ = 0;
  int no_verdict_ = 0;
};

// What one case measured on each side, as SummarizeSuite reads it: any part
// may be missing (a case on one side only, results without allocations, no
// wall-time comparison).
struct CaseValues {
  std::optional<double> a_instructions;  // per run
  std::optional<double> b_instructions;
  std::optional<double> a_allocations;  // heap allocations per run
  std::optional<double> b_allocations;
  std::optional<double> a_cycles;  // estimated cycles per run (--cache_sim)
  std::optional<double> b_cycles;
  const TimeComparison* time = nullptr;
};

// A case's values from each side's instruction counts (either may be
// null: a case on one side only) and its wall-time comparison (may be
// null).
CaseValues CaseValuesOf(const timer::InstructionCounts* a, const timer::InstructionCounts* b,
                        const TimeComparison* time);

// What ab_test's and ci's --json say of the case: the change in counts and
// estimated cycles (in percent) and in allocations where both sides have
// them, and the wall-time comparison; nullopt when there is neither a count
// change nor a time to show.
std::optional<CaseComparison> CompareCase(const CaseValues& values);

// The summary ab_test, ci and the report show: instructions (a case is up
// or down beyond 0.1%), heap allocations where both sides counted them
// (any change), estimated cycles where both sides simulated caches (beyond
// 0.1%), and wall time where cases were compared (by verdict).
std::vector<SuiteChange> SummarizeSuite(const std::vector<CaseValues>& cases);

// "instructions: +0.42% [+0.31, +0.55] over 201 cases (37 up, 2 down, 162
// within 0.1%)"; wall time: "(case by case: 3 significantly slower, 1 significantly faster, 40 not)";
// "; 2 cases on one side only, left out" when the sets differ; "no case
// measured on both sides" when there is none.
std::string FormatSuiteChange(const SuiteChange& change);

// {"cases": 201, "geomean_change_pct": 0.42, "ci_pct": [0.31, 0.55],
//  "up": 37, "down": 2, "unchanged": 162, "unchanged_pct": 0.1,
//  "only_a": 0, "only_b": 0} as JSON (no geomean_change_pct and an empty
//  ci_pct without cases); wall time has "by": "significance" instead of
//  unchanged_pct, and "no_verdict".
SuiteChangeProto SuiteChangeToProto(const SuiteChange& change);

// The "summary" of ab_test's and ci's --json: one member per metric
// summarised ("instructions", "allocations", "estimated_cycles",
// "wall_time").
SuiteSummaryProto SuiteSummaryToProto(const std::vector<SuiteChange>& changes);

}  // namespace icount::compare

#endif  // ICOUNT_COMPARE_SUITE_SUMMARY_H_
