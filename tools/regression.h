#ifndef ICOUNT_TOOLS_REGRESSION_H_
#define ICOUNT_TOOLS_REGRESSION_H_

// The regression gate of //tools:ci: per-case verdicts comparing a results
// file against a baseline.
//
// Instruction counts decide: a case regresses when its per-run count grows
// by more than BOTH thresholds (percent and absolute), which can be
// overridden per case by regex. Wall time is judged with a two-sided
// Mann-Whitney U test on the per-run times and reported, never gating: it is
// noisy on shared machines, counts are not.
//
//   GateReport report = Gate(baseline, current, options);
//   if (report.regressions > 0) return 3;
//   std::cout << report.markdown;

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "timer/measurement_io.h"

namespace icount {

struct GateOptions {
  double threshold_pct = 1.0;
  double threshold_abs = 50;  // instructions per run
  // (RE2 regex on the case key, percent threshold) pairs; first match wins.
  std::vector<std::pair<std::string, double>> pct_overrides;
};

struct CaseVerdict {
  std::string key;    // the case key
  std::string label;  // for people
  // "ok", "regression", "improvement", "new" (not in the baseline),
  // "missing" (only in the baseline)
  std::string verdict;
  std::optional<double> before;  // instructions per run
  std::optional<double> after;
  double threshold_pct = 0;
  // Wall time, when both sides have it.
  std::optional<double> time_before;  // median seconds per run
  std::optional<double> time_after;
  std::optional<double> time_p_value;
};

struct GateReport {
  std::vector<CaseVerdict> cases;
  int regressions = 0;
  int improvements = 0;
  int new_cases = 0;
  int missing_cases = 0;
  bool checksum_mismatch = false;
  std::string markdown;
};

absl::StatusOr<GateReport> Gate(const ResultsFile& baseline, const ResultsFile& current,
                                const GateOptions& options);

// Two-sided p-value of the Mann-Whitney U test (normal approximation with
// tie and continuity corrections). 1 when either sample is empty.
double MannWhitneyPValue(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace icount

#endif  // ICOUNT_TOOLS_REGRESSION_H_
