// compare: renders a saved results file as torch.utils.benchmark-style
// tables, as measurement summaries, or as wall-time deltas against a
// baseline results file.
//
//   bazel run //tools:compare -- --input=results.json --trim_significant_figures
//   bazel run //tools:compare -- --input=branch.json --baseline=main.json --markdown
#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "base/files.h"
#include "cli/tool_flags.h"
#include "compare/compare.h"
#include "compare/delta_table.h"
#include "timer/measurement.h"
#include "timer/measurement_io.h"

ABSL_FLAG(std::string, input, "", "Results file (JSON) to render (required).");
ABSL_FLAG(bool, trim_significant_figures, false,
          "Rounds each cell to the significant figures its measurement supports.");
ABSL_FLAG(std::string, figures, "reference",
          "Significant-figure rule: reference (torch.utils.benchmark's) or blocks (main's; "
          "implies --trim_significant_figures).");
ABSL_FLAG(std::string, colorize, "none",
          "none, columnwise or rowwise: colours cells against the fastest in their column or row "
          "(with --baseline: any but none colours the deltas).");
ABSL_FLAG(bool, highlight_warnings, false,
          "Marks high-variance measurements with (! XX%), XX being IQR / median * 100.");
ABSL_FLAG(bool, summary, false, "Prints each measurement's summary instead of a table.");
ABSL_FLAG(std::string, baseline, "",
          "Results file to compare against: prints the change of each median per-run time from "
          "BASELINE to INPUT.");
ABSL_FLAG(bool, markdown, false, "With --baseline: prints the delta table as Markdown.");

namespace icount::tools {
namespace {

constexpr char kUsage[] = R"(Renders saved icount results.

  compare --input=FILE.json [--trim_significant_figures] [--figures=reference|blocks]
          [--colorize=none|columnwise|rowwise] [--highlight_warnings]
  compare --input=FILE.json --summary
  compare --input=FILE.json --baseline=OTHER.json [--markdown] [--colorize=columnwise]

The first form prints torch.utils.benchmark.Compare tables: one per label,
rows by thread count, env and sub_label (or stmt), columns by description.
--baseline prints a table of wall-time changes from OTHER.json (A) to
FILE.json (B): rows by label, sub_label (or stmt) and thread count, columns
by description (and env when the files use more than one), each cell
comparing the median per-run times of measurements with the same label,
sub_label, description, env and thread count. Replicates are merged first.
Exit status: 0 on success (also when there is nothing to show), 1 on error.)";

absl::StatusOr<compare::Colorize> ParseColorize(const std::string& value) {
  if (value == "none") return compare::Colorize::kNone;
  if (value == "columnwise") return compare::Colorize::kColumnwise;
  if (value == "rowwise") return compare::Colorize::kRowwise;
  return absl::InvalidArgumentError(
      absl::StrCat("--colorize=", value, " is not one of none, columnwise, rowwise"));
}

absl::StatusOr<timer::FiguresRule> ParseFigures(const std::string& value) {
  if (value == "reference") return timer::FiguresRule::kReference;
  if (value == "blocks") return timer::FiguresRule::kBlocks;
  return absl::InvalidArgumentError(
      absl::StrCat("--figures=", value, " is not one of reference, blocks"));
}

// Merged measurements that have times to compare.
std::vector<timer::Measurement> Comparable(const std::vector<timer::Measurement>& measurements) {
  std::vector<timer::Measurement> timed;
  for (const timer::Measurement& m : measurements) {
    if (!m.raw_times().empty()) timed.push_back(m);
  }
  return timer::Measurement::Merge(timed);
}

// The wall-time delta table of `input` (B) against `baseline` (A).
compare::DeltaTable BaselineTable(const std::string& input_path,
                                  const std::vector<timer::Measurement>& input,
                                  const std::string& baseline_path,
                                  const std::vector<timer::Measurement>& baseline) {
  const std::vector<timer::Measurement> a = Comparable(baseline);
  const std::vector<timer::Measurement> b = Comparable(input);
  // Envs name columns only where they tell columns apart.
  std::vector<std::string> envs;
  for (const auto* side : {&a, &b}) {
    for (const timer::Measurement& m : *side) {
      if (std::find(envs.begin(), envs.end(), m.EnvName()) == envs.end()) {
        envs.push_back(m.EnvName());
      }
    }
  }
  auto key_of = [&](const timer::Measurement& m) {
    const timer::TaskSpec& spec = m.task_spec();
    compare::DeltaKey key;
    if (spec.label.has_value() && !spec.label->empty()) key.label.push_back(*spec.label);
    key.label.push_back(m.RowName());
    key.num_threads = spec.num_threads;
    key.column = spec.description.value_or("");
    if (envs.size() > 1) {
      key.column = key.column.empty() ? absl::StrCat("(", m.EnvName(), ")")
                                      : absl::StrCat(key.column, " (", m.EnvName(), ")");
    }
    return key;
  };
  compare::DeltaTable table(
      absl::StrCat("Wall time: ", base::PathForDisplay(input_path), " (B) against ",
                   base::PathForDisplay(baseline_path), " (A)"));
  // Input first, so rows and columns follow the file being examined. Of two
  // measurements with one key (e.g. differing only in setup), the later is
  // compared.
  for (const timer::Measurement& m : b) table.Entry(key_of(m)).b_time = m;
  for (const timer::Measurement& m : a) table.Entry(key_of(m)).a_time = m;
  return table;
}

// Arguments and flag combinations that make no sense, refused before
// anything is read.
absl::Status CheckArguments(const std::vector<char*>& positional) {
  if (positional.size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unexpected argument '", positional[1], "'; name the results file with --input=FILE.json"));
  }
  if (absl::GetFlag(FLAGS_input).empty()) {
    return absl::InvalidArgumentError(
        "--input is required, e.g. --input=results.json (see --help)");
  }
  const bool with_baseline = !absl::GetFlag(FLAGS_baseline).empty();
  if (absl::GetFlag(FLAGS_summary) && with_baseline) {
    return absl::InvalidArgumentError("--summary and --baseline cannot be combined; use one");
  }
  if (absl::GetFlag(FLAGS_markdown) && !with_baseline) {
    return absl::InvalidArgumentError(
        "--markdown formats the --baseline delta table; add --baseline=OTHER.json");
  }
  return absl::OkStatus();
}

// Prints "compare: <message>" to stderr; returns 1, the exit status of an
// error. (base::Fail would name the program as it was invoked.)
int PrintError(absl::string_view message) {
  std::cerr << "compare: " << message << "\n";
  return 1;
}

// --summary: each measurement's summary.
void PrintSummaries(const std::vector<timer::Measurement>& measurements) {
  std::vector<std::string> summaries;
  for (const timer::Measurement& m : measurements) summaries.push_back(m.Summary());
  std::cout << absl::StrJoin(summaries, "\n\n") << "\n";
}

// --baseline: the delta table of `input` (B) against `baseline` (A).
void PrintDeltas(const std::string& input_path, const timer::ResultsFile& input,
                 const std::string& baseline_path, const timer::ResultsFile& baseline,
                 compare::Colorize colorize) {
  const compare::DeltaTable table =
      BaselineTable(input_path, input.measurements, baseline_path, baseline.measurements);
  const std::string text = absl::GetFlag(FLAGS_markdown)
                               ? table.RenderMarkdown()
                               : table.Render(/*colorize=*/colorize != compare::Colorize::kNone);
  if (text.empty()) {
    std::cerr << "compare: no measurement in " << input_path << " or " << baseline_path
              << " has times; nothing to show\n";
    return;
  }
  std::cout << text;
}

// The torch.utils.benchmark.Compare tables of `input`.
void PrintTables(const std::string& input_path, const timer::ResultsFile& input,
                 timer::FiguresRule figures, compare::Colorize colorize) {
  compare::Compare compare(input.measurements);
  compare::CompareOptions options;
  options.trim_significant_figures =
      absl::GetFlag(FLAGS_trim_significant_figures) || figures == timer::FiguresRule::kBlocks;
  options.figures_rule = figures;
  options.colorize = colorize;
  options.highlight_warnings = absl::GetFlag(FLAGS_highlight_warnings);
  compare.set_options(options);
  const std::string text = compare.Render();
  if (text.empty()) {
    std::cerr << "compare: no measurement in " << input_path << " has times; nothing to show\n";
    return;
  }
  std::cout << text << "\n";  // as Compare.print()
}

int Run(int argc, char** argv) {
  if (absl::Status arguments = CheckArguments(cli::ParseToolFlags(argc, argv, kUsage));
      !arguments.ok()) {
    return PrintError(arguments.message());
  }
  const std::string input_path = absl::GetFlag(FLAGS_input);
  const std::string baseline_path = absl::GetFlag(FLAGS_baseline);
  const absl::StatusOr<compare::Colorize> colorize = ParseColorize(absl::GetFlag(FLAGS_colorize));
  if (!colorize.ok()) return PrintError(colorize.status().message());
  const absl::StatusOr<timer::FiguresRule> figures = ParseFigures(absl::GetFlag(FLAGS_figures));
  if (!figures.ok()) return PrintError(figures.status().message());

  const absl::StatusOr<timer::ResultsFile> input = timer::ReadResultsFile(input_path);
  if (!input.ok()) return PrintError(input.status().message());
  std::optional<timer::ResultsFile> baseline;
  if (!baseline_path.empty()) {
    absl::StatusOr<timer::ResultsFile> read = timer::ReadResultsFile(baseline_path);
    if (!read.ok()) return PrintError(read.status().message());
    baseline = *std::move(read);
  }
  if (input->measurements.empty()) {
    std::cerr << "compare: " << input_path << " has no measurements; nothing to show\n";
    return 0;
  }

  if (absl::GetFlag(FLAGS_summary)) {
    PrintSummaries(input->measurements);
  } else if (baseline.has_value()) {
    PrintDeltas(input_path, *input, baseline_path, *baseline, *colorize);
  } else {
    PrintTables(input_path, *input, *figures, *colorize);
  }
  return 0;
}

}  // namespace
}  // namespace icount::tools

int main(int argc, char** argv) { return icount::tools::Run(argc, argv); }
