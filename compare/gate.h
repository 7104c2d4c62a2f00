#ifndef ICOUNT_COMPARE_GATE_H_
#define ICOUNT_COMPARE_GATE_H_

// The regression gate of //tools:ci: per-case verdicts comparing a results
// file against a baseline, and their Markdown summary.
//
// Instruction counts decide: a case regresses when its per-run count grows
// by more than BOTH thresholds (percent and absolute), which can be
// overridden per case by regex. Wall time is compared round by round (each
// results file holds one measurement per case and round, ci
// --time_rounds): Welch's t-test on the rounds' log medians, a 95%
// interval, Benjamini-Hochberg over all cases and a minimum effect
// (CompareUnpairedWallTimes, compare/time_comparison.h). It is reported,
// and gates only with gate_on_time: it is noisy on shared machines, counts
// are not.
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

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compare/comparison_file.pb.h"
#include "compare/gate.pb.h"
#include "compare/suite_summary.h"
#include "compare/time_comparison.h"
#include "timer/measurement_io.h"

namespace icount::compare {

struct GateOptions {
  double threshold_pct = 1.0;
  double threshold_abs = 50;  // instructions per run
  // (RE2 regex on the case key, percent threshold) pairs; first match wins.
  std::vector<std::pair<std::string, double>> pct_overrides;
  // A significant wall-time slowdown fails the gate too.
  bool gate_on_time = false;
  // Wall times taken on different hosts (results files' nodes) are not
  // compared unless this is set.
  bool compare_time_across_hosts = false;
  TimeComparisonOptions time;
};

// An error for an override whose regex is invalid or whose threshold, like
// the defaults, is negative. Gate checks this too; front ends call it
// before a long run so a typo does not surface after it.
absl::Status CheckGateOptions(const GateOptions& options);

struct CaseVerdict {
  std::string key;    // the case key
  std::string label;  // for people
  Verdict verdict = VERDICT_UNSPECIFIED;
  std::optional<double> before;  // instructions per run
  std::optional<double> after;
  // Heap allocations per run, where both files counted them.
  std::optional<double> allocations_before;
  std::optional<double> allocations_after;
  // Estimated cycles per run, where both files simulated caches.
  std::optional<double> cycles_before;
  std::optional<double> cycles_after;
  double threshold_pct = 0;
  // Wall time, when both sides have it (a_seconds: the baseline's seconds
  // per run, the geometric mean over rounds; b_seconds: this run's).
  std::optional<TimeComparison> time;
};

struct GateReport {
  std::vector<CaseVerdict> cases;
  int regressions = 0;  // instruction counts
  int improvements = 0;
  int time_regressions = 0;  // significantly slower
  int time_improvements = 0;
  int new_cases = 0;
  int missing_cases = 0;
  // Cases whose heap allocations per run changed (AllocationsChanged).
  int allocation_changes = 0;
  bool checksum_mismatch = false;
  // Counts taken on nodes that count differently, wall times on different
  // hosts (compare/node_check.h): one line each, for people.
  std::vector<std::string> node_warnings;
  // Cases whose wall times were not compared: timed on different hosts.
  int time_across_hosts = 0;
  // The suite-level change per metric, this run against the baseline
  // (compare/suite_summary.h): instructions (up or down beyond 0.1%),
  // allocations where both files counted them, wall time where compared.
  std::vector<SuiteChange> summary;
};

// The verdicts; an error only for an override that is not a valid regex.
absl::StatusOr<GateReport> Gate(const timer::ResultsFile& baseline,
                                const timer::ResultsFile& current, const GateOptions& options);

// "ok", "regression", "improvement", "new", "missing".
const char* VerdictName(Verdict verdict);

// A wall-time change the summary points out: significant after the
// correction, either way.
bool TimeChanged(const CaseVerdict& verdict);
// Whether both sides counted heap allocations and they differ: reported
// whatever the instruction counts did (an allocation more costs little in
// instructions and much in time), never gating.
bool AllocationsChanged(const CaseVerdict& verdict);

// Whether the gate fails: a count regression, or with gate_on_time a
// significant wall-time slowdown.
bool GateFails(const GateReport& report, const GateOptions& options);

// The summary for a pull request: a headline, the thresholds, then a table
// of the cases worth reading (every verdict but ok, and wall-time and
// allocation changes).
std::string GateMarkdown(const GateReport& report, const GateOptions& options);

// ci's --json (base::ProtoToJsonAllFields of it): {"regressions": N,
// "time_regressions": M, "node_warnings": [...], "summary": {...},
// "comparisons": [one per case compared]}.
CiFileProto GateToProto(const GateReport& report);

// Whether `text` is a file ci wrote, which its --markdown or --json may
// replace: OK, or FailedPrecondition saying what it is not.
absl::Status IsGateMarkdown(absl::string_view text);
absl::Status IsGateJson(absl::string_view text);

}  // namespace icount::compare

#endif  // ICOUNT_COMPARE_GATE_H_
