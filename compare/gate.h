#ifndef ICOUNT_COMPARE_GATE_H_
#define ICOUNT_COMPARE_GATE_H_

// The regression gate of //tools:ci: per-case verdicts comparing a results
// file against a baseline, and their Markdown summary.
//
// Instruction counts decide: a case regresses when its per-run count grows
// by more than BOTH thresholds (percent and absolute), which can be
// overridden per case by regex. Wall time is judged with a two-sided
// Mann-Whitney U test on the per-run times and reported, never gating: it is
// noisy on shared machines, counts are not.
//
//   absl::StatusOr<GateReport> report = Gate(baseline, current, options);
//   std::cout << GateMarkdown(*report, options);
//   if (report->regressions > 0) return 3;

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compare/gate.pb.h"
#include "timer/measurement_io.h"

namespace icount {

struct GateOptions {
  double threshold_pct = 1.0;
  double threshold_abs = 50;  // instructions per run
  // (RE2 regex on the case key, percent threshold) pairs; first match wins.
  std::vector<std::pair<std::string, double>> pct_overrides;
};

// An error for an override whose regex is invalid or whose threshold, like
// the defaults, is negative. Gate checks this too; front ends call it
// before a long run so a typo does not surface after it.
absl::Status CheckGateOptions(const GateOptions& options);

struct CaseVerdict {
  std::string key;    // the case key
  std::string label;  // for people
  compare::Verdict verdict = compare::VERDICT_UNSPECIFIED;
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
};

// The verdicts; an error only for an override that is not a valid regex.
absl::StatusOr<GateReport> Gate(const ResultsFile& baseline, const ResultsFile& current,
                                const GateOptions& options);

// "ok", "regression", "improvement", "new", "missing".
const char* VerdictName(compare::Verdict verdict);

// A wall-time change the summary points out: p < 0.01.
bool TimeChanged(const CaseVerdict& verdict);

// The summary for a pull request: a headline, the thresholds, then a table
// of the cases worth reading (every verdict but ok, and wall-time changes).
std::string GateMarkdown(const GateReport& report, const GateOptions& options);

// Two-sided p-value of the Mann-Whitney U test (normal approximation with
// tie and continuity corrections). 1 when either sample is empty.
double MannWhitneyPValue(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace icount

#endif  // ICOUNT_COMPARE_GATE_H_
