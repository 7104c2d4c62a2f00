// One self-contained HTML page from results files (see //report):
//
//   bazel run //tools:report -- --input=now.json --output=report.html
//   bazel run //tools:report -- --input=now.json --baseline=before.json
//       --history=history.db --output=report.html  (one line)
//   bazel run //tools:report -- --input=ab.json --output=ab.html   # ab_test --json
//
// An ab_test --json file is a comparison of its two sides: B against A,
// wall time compared in the rounds ab_test paired (each measurement's
// "round"), as ab_test compared them.

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/flags.h"
#include "base/status.h"
#include "cli/tool_flags.h"
#include "compare/time_comparison.h"
#include "history/import.h"
#include "history/store.h"
#include "report/report_data.h"
#include "timer/measurement_io.h"
#include "tools/html_report_file.h"

ABSL_FLAG(std::string, input, "",
          "Results file (main, ci, merge_results, Timer) or ab_test --json file (required).");
ABSL_FLAG(std::string, baseline, "", "Results file to compare --input against.");
ABSL_FLAG(std::string, history, "",
          "History store (//tools:history) whose per-case series the page shows.");
ABSL_FLAG(std::string, output, "", "The HTML file to write (required).");
ABSL_FLAG(std::string, title, "", "The page's title; default: from the input's name.");
ABSL_FLAG(int, history_runs, 100,
          "With --history: runs shown per case (change points are found over all runs).");

namespace icount::tools {
namespace {

// B against A in the rounds both sides measured (metadata "round"), each
// round's median per side: ab_test's paired comparison.
std::map<std::string, compare::TimeComparison> PairedRoundComparisons(const timer::ResultsFile& a,
                                                                      const timer::ResultsFile& b) {
  auto per_round = [](const timer::ResultsFile& file) {
    std::map<std::string, std::map<std::string, double>> times;  // case -> round -> median
    for (const timer::Measurement& m : file.measurements) {
      auto round = m.metadata().find("round");
      if (round == m.metadata().end()) continue;
      times[timer::ResultCaseKey(m.metadata(), m.task_spec())][round->second] =
          m.raw_times().empty() ? std::nan("") : m.Median();
    }
    return times;
  };
  const auto a_times = per_round(a);
  const auto b_times = per_round(b);
  std::vector<std::string> keys;
  std::vector<compare::PairedRounds> rounds;
  for (const auto& [key, a_rounds] : a_times) {
    auto b_rounds = b_times.find(key);
    if (b_rounds == b_times.end()) continue;
    compare::PairedRounds paired;
    for (const auto& [round, median] : a_rounds) {
      auto other = b_rounds->second.find(round);
      if (other == b_rounds->second.end()) continue;
      paired.a.push_back(median);
      paired.b.push_back(other->second);
    }
    keys.push_back(key);
    rounds.push_back(std::move(paired));
  }
  const std::vector<compare::TimeComparison> verdicts = compare::CompareWallTimes(rounds);
  std::map<std::string, compare::TimeComparison> by_key;
  for (size_t i = 0; i < keys.size(); ++i) by_key[keys[i]] = verdicts[i];
  return by_key;
}

absl::Status Run(const std::vector<char*>& positional) {
  ICOUNT_RETURN_IF_ERROR(base::CheckNoPositionalArguments(positional));
  const std::string input_path = absl::GetFlag(FLAGS_input);
  const std::string baseline_path = absl::GetFlag(FLAGS_baseline);
  const std::string output = absl::GetFlag(FLAGS_output);
  if (input_path.empty()) {
    return absl::InvalidArgumentError("--input is required: a results file or ab_test --json file");
  }
  if (output.empty())
    return absl::InvalidArgumentError("--output is required: the HTML file to write");
  ICOUNT_RETURN_IF_ERROR(CheckReportDestination("output", output));
  ICOUNT_RETURN_IF_ERROR(
      base::CheckFlagAtLeast("history_runs", absl::GetFlag(FLAGS_history_runs), 1));

  report::ReportInput input;
  ICOUNT_ASSIGN_OR_RETURN(std::vector<history::ImportedRun> runs,
                          history::ReadRunsToImport(input_path));
  if (runs.size() > 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--input: ", input_path, " holds ", runs.size(),
        " sides (an ab_test --sides file); a report shows one run or two: record the sides with "
        "`history import` and report each against --history, or compare two with ab_test"));
  }
  // An ab_test --json file (or a --sides file of two): the second side against the first.
  if (runs.size() == 2) {
    if (!baseline_path.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--baseline: ", input_path,
          " is an ab_test --json file, which compares its own sides (B against A); drop "
          "--baseline or pass one side's results file as --input"));
    }
    input.baseline = std::move(runs[0].results);
    input.baseline_name = runs[0].info.side;
    input.current = std::move(runs[1].results);
    input.current_name = runs[1].info.side;
    input.time_comparisons = PairedRoundComparisons(*input.baseline, input.current);
    input.title = absl::StrCat("A/B: ", input_path);
  } else {
    input.current = std::move(runs[0].results);
    input.current_name = input_path;
    input.title = absl::StrCat("icount: ", input_path);
    if (!baseline_path.empty()) {
      ICOUNT_ASSIGN_OR_RETURN(timer::ResultsFile baseline, timer::ReadResultsFile(baseline_path));
      input.baseline = std::move(baseline);
      input.baseline_name = baseline_path;
      input.title = absl::StrCat("icount: ", input_path, " against ", baseline_path);
    }
  }
  if (!absl::GetFlag(FLAGS_title).empty()) input.title = absl::GetFlag(FLAGS_title);
  std::optional<history::Store> store;
  if (const std::string db = absl::GetFlag(FLAGS_history); !db.empty()) {
    ICOUNT_ASSIGN_OR_RETURN(history::Store opened, history::Store::OpenForReading(db));
    store.emplace(std::move(opened));
    input.history = &*store;
    input.history_runs = absl::GetFlag(FLAGS_history_runs);
  }
  return WriteHtmlReport(output, input);
}

}  // namespace
}  // namespace icount::tools

int main(int argc, char** argv) {
  const std::vector<char*> positional = icount::cli::ParseToolFlags(
      argc, argv,
      "Writes one self-contained HTML report of a run or a comparison.\n\nUsage: bazel run "
      "//tools:report -- --input=RESULTS.json [--baseline=OTHER.json] [--history=DB] "
      "--output=report.html");
  if (absl::Status status = icount::tools::Run(positional); !status.ok())
    return icount::base::Fail(status);
  return 0;
}
