#ifndef ICOUNT_REPORT_REPORT_DATA_H_
#define ICOUNT_REPORT_REPORT_DATA_H_

// What a report page shows (report/report_data.proto), computed once here
// for its script to lay out: one ReportCaseProto per case with its counts,
// wall-time median and spread, its comparison with the baseline (the same
// CaseComparisonProto as ab_test's and ci's --json), history and call
// trees, so that every figure comes from one implementation (the same
// Measurement statistics and comparisons as the text tables).
//
//   ReportInput input;
//   input.current = *ReadResultsFile("now.json");
//   input.baseline = *ReadResultsFile("before.json");  // optional
//   absl::StatusOr<std::string> json = ReportDataJson(input);
//   // {"report_version": ..., "kind": "comparison", "cases": [...], ...}

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compare/time_comparison.h"
#include "history/store.h"
#include "report/report_data.pb.h"
#include "timer/measurement_io.h"

namespace icount::report {

struct ReportInput {
  std::string title;  // e.g. "icount main", "A/B: A vs B"
  // The command line that made the results; empty: the one the results
  // file records.
  std::string command;
  timer::ResultsFile current;
  std::string current_name = "current";  // "B", a file name, ...
  std::optional<timer::ResultsFile> baseline;
  std::string baseline_name = "baseline";
  // Wall-time comparisons by case key, when the caller has better ones than
  // the unpaired comparison of the two files' rounds (ab_test's paired
  // rounds). Without them, a baseline is compared as ci does (Gate).
  std::optional<std::map<std::string, compare::TimeComparison>> time_comparisons;
  // Each case's series over the store's runs (counts and wall time), with
  // the change points //tools:history finds: the last `history_runs` runs
  // (a page of 201 cases with 100 runs is ~3 MB more), change points found
  // over each whole series.
  history::Store* history = nullptr;
  int history_runs = 100;
};

absl::StatusOr<ReportDataProto> ReportData(const ReportInput& input);

// ReportData as the page carries it: base::ProtoToJsonAllFields.
absl::StatusOr<std::string> ReportDataJson(const ReportInput& input);

}  // namespace icount::report

#endif  // ICOUNT_REPORT_REPORT_DATA_H_
