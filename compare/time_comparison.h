#ifndef ICOUNT_COMPARE_TIME_COMPARISON_H_
#define ICOUNT_COMPARE_TIME_COMPARISON_H_

// Wall-time comparison of two sides measured in paired rounds, with the
// false alarms of a whole suite under control.
//
// Each round times every case once on each side, close together in time
// (ab_test: A, then B, each on the whole machine, B first in every other
// round), so
// whatever slows the machine during a round slows both sides of it alike.
// Per case the change is the geometric mean over rounds of B / A, with a
// 95% confidence interval from Student's t over the rounds' log ratios; a
// change is significant when the paired t-test's p-value passes the
// Benjamini-Hochberg procedure over all compared cases at 5% and the change
// is at least min_effect_pct. Under identical sides every p-value is
// uniform, so BH keeps the chance of any false alarm in the whole suite
// at about 5%; with real changes, at most 5% of the flagged cases are
// expected to be false (bench/wall_time_ab.py measures both rates).
//
//   std::vector<PairedRounds> cases(2);
//   cases[0] = {{1.00e-6, 1.02e-6, 0.99e-6}, {1.10e-6, 1.11e-6, 1.09e-6}};
//   cases[1] = {{5.0e-6, 5.1e-6, 4.9e-6}, {5.0e-6, 5.0e-6, 5.1e-6}};
//   std::vector<TimeComparison> verdicts = CompareWallTimes(cases);
//   verdicts[0].delta_pct;    // ~ +9.6
//   verdicts[0].significant;  // true: p = 0.002 passes BH, and >= 1%
//   verdicts[1].significant;  // false
//   FormatTimeChange(verdicts[0]);  // "+9.6% [+7.9, +11.4]"

#include <optional>
#include <string>
#include <vector>

#include "compare/comparison_file.pb.h"

namespace icount::compare {

// One case's per-round times of each side (seconds per run, e.g. each
// round's median), paired by index: a[i] and b[i] are round i.
struct PairedRounds {
  std::vector<double> a;
  std::vector<double> b;
};

struct TimeComparisonOptions {
  // The false discovery rate over all cases, and 1 - the confidence
  // intervals' level.
  double alpha = 0.05;
  // Changes smaller than this (in percent) are never flagged, however
  // consistent: below it, what differs between two processes (code
  // placement, a core's neighbour) matters more than the code under test.
  double min_effect_pct = 1.0;
  // Fewer paired rounds than this give no verdict.
  int min_rounds = 3;
};

enum class TimeVerdict {
  kUnchanged,     // not significant
  kSlower,        // significant, B slower
  kFaster,        // significant, B faster
  kTooFewRounds,  // fewer than min_rounds usable rounds: no test
  kUnusable,      // a side's times cannot be used (zero, negative, not finite)
};

// "unchanged", "slower", "faster", "too few rounds", "unusable".
const char* TimeVerdictName(TimeVerdict verdict);

struct TimeComparison {
  TimeVerdict verdict = TimeVerdict::kTooFewRounds;
  int rounds = 0;
  // Seconds per run on each side: the geometric mean over rounds of each
  // round's median, so that b_seconds / a_seconds - 1 is delta_pct (the
  // median over rounds could lie on the other side of an outlier round).
  double a_seconds = 0;
  double b_seconds = 0;
  // (geometric mean of B / A over rounds - 1) * 100, and its 95% interval.
  double delta_pct = 0;
  double ci_low_pct = 0;
  double ci_high_pct = 0;
  double p_value = 1;  // paired t-test on the rounds' log ratios
  bool significant = false;
  // The smallest change this case's round-to-round noise would show as
  // significant half the time at the 5% level (without the suite-wide
  // correction): what the comparison can resolve for this case.
  double resolvable_pct = 0;
  // For kTooFewRounds and kUnusable: what is wrong, e.g. "side B's time in
  // round 2 is 0 (a timer that went backwards?)".
  std::string problem;
};

// One verdict per case, in order. Cases with too few rounds or unusable
// times get that verdict and take no part in the correction; the others
// are compared as described above.
std::vector<TimeComparison> CompareWallTimes(const std::vector<PairedRounds>& cases,
                                             const TimeComparisonOptions& options = {});

// One case's per-round times of two separate runs (ci: a baseline file
// and this run), not paired: each side's rounds are that side's own.
struct UnpairedRounds {
  std::vector<double> a;  // the baseline
  std::vector<double> b;  // now
};

// The same verdicts for runs made apart in time: the change is the ratio
// of the two sides' geometric means, its interval and p-value from Welch's
// t-test on the log times (unequal variances, Welch-Satterthwaite degrees
// of freedom); each side needs min_rounds rounds. Benjamini-Hochberg and
// the minimum effect apply as above.
std::vector<TimeComparison> CompareUnpairedWallTimes(const std::vector<UnpairedRounds>& cases,
                                                     const TimeComparisonOptions& options = {});

// "+9.6% [+7.9, +11.4]": the change and its interval; "too few rounds (2
// of 3)" or "unusable: ..." when there is no verdict.
std::string FormatTimeChange(const TimeComparison& comparison);

// What ab_test and ci compared for one case (any part may be missing).
struct CaseComparison {
  std::optional<double> counts_delta_pct;   // instructions per run, (B - A) / A * 100
  std::optional<double> allocations_delta;  // heap allocations per run, B - A
  std::optional<double> cycles_delta_pct;   // estimated cycles per run (--cache_sim)
  const TimeComparison* time = nullptr;
};

// `x` with 6 significant digits, as ab_test's and ci's --json give their
// figures: 10, not 10.000000000000009 (the tables show fewer).
double RoundedForJson(double x);

// (b - a) / |a| * 100, or nullopt when a is 0.
std::optional<double> PercentChange(double a, double b);

// One member of the "comparisons" list in ab_test's and ci's --json
// (comparison_file.proto):
//   {"case": KEY, "counts_delta_pct": 2.1, "allocations_delta": 1,
//    "estimated_cycles_delta_pct": 2.4, "time_delta_pct": 3.1,
//    "time_ci_pct": [1.2, 5.0], "time_significant": true,
//    "time_verdict": "slower", "time_rounds": 6, "time_p_value": 0.001,
//    "time_resolvable_pct": 2.4}
// without what was not measured (no counts; no allocations or no cycles on
// a side; no time, or no verdict: then "time_problem" says why), and
// without figures that are not finite.
CaseComparisonProto CaseComparisonToProto(const std::string& case_key,
                                          const CaseComparison& comparison);

// The pieces, for tests and other callers.
// Which p-values the Benjamini-Hochberg step-up procedure rejects at
// false discovery rate q.
std::vector<bool> BenjaminiHochberg(const std::vector<double>& p_values, double q);

}  // namespace icount::compare

#endif  // ICOUNT_COMPARE_TIME_COMPARISON_H_
