#ifndef ICOUNT_COMPARE_COMPARE_H_
#define ICOUNT_COMPARE_COMPARE_H_

#include <string>
#include <vector>

#include "timer/measurement.h"

namespace icount::compare {

// How Compare colours the cells of a table. Colour marks a cell by how much
// slower it is than the best cell it competes with: the fastest cell of its
// column within its thread group (kColumnwise) or of its row (kRowwise).
// As in the reference: within 1% or 100 ns of the best is bold bright green,
// within 10% bold blue, 5x or more bold red, 2x or more dim bright red.
enum class Colorize { kNone, kColumnwise, kRowwise };

// The switches of a Compare table; each defaults to off, as in the reference.
struct CompareOptions {
  // Rounds every cell to the significant figures its measurement supports
  // and drops decimals the column does not need.
  bool trim_significant_figures = false;
  // How many figures a measurement supports: the reference's rule, or
  // icount's (FiguresRule::kBlocks: its blocks' spread, the clock's floor
  // per block), which main's tables use. With kBlocks each cell also shows
  // all of its own figures (the reference cuts a column to the decimals of
  // its least precise cell), and a table of sub-nanosecond cells stays in
  // nanoseconds (the reference switches to seconds).
  timer::FiguresRule figures_rule = timer::FiguresRule::kReference;
  Colorize colorize = Colorize::kNone;
  // Suffixes cells whose measurement has high variance with "(! XX%)", where
  // XX is IQR / median * 100, and explains the marker below the table.
  bool highlight_warnings = false;
};

// Arranges wall-time Measurements into tables, byte-for-byte as
// torch.utils.benchmark.Compare (PyTorch 1.13) prints them:
//
//   Compare compare(measurements);
//   compare.Print();
//
//   [--------------- mul ----------------]
//                    |  float  |  µ-kernel
//   1 threads: ---------------------------
//         x * y      |   3.3   |    3.9
//         x.mul_(y)  |   8.1   |
//   2 threads: ---------------------------
//         x * y      |   4.1   |    2.0
//
//   Times are in microseconds (us).
//
// TrimSignificantFigures(), Colorize() and HighlightWarnings() switch on the
// reference's options before rendering.
//
// Measurements with the same TaskSpec are merged first (Measurement::Merge).
// There is one table per label, in the order labels are first seen; its rows
// are (num_threads, env, sub_label or else stmt), grouped under
// "N threads:" lines and sorted by thread count, then env; its columns are
// descriptions in first-seen order. A cell without a measurement is blank,
// and when two measurements land in one cell the later one is shown (this
// includes measurements that differ only in language, which the reference's
// TaskSpec does not have). All cells of a table share one time unit, chosen
// from its fastest median. Widths count characters, not UTF-8 bytes.
//
// Where the reference raises an exception, Compare renders instead:
//  - A table mixing measurements without an env and with one (the reference
//    fails comparing None with a string): an unset env is shown, sorted and
//    grouped as "Unspecified env", which is what the reference's
//    Measurement.env property means to return.
//  - A measurement without a description (the reference fails measuring the
//    length of None): its column has an empty header, distinct from a column
//    whose description is "".
//  - Measurements without any times (the reference fails choosing a unit for
//    the median -1) are left out before anything else, so they add no
//    table, row or column.
//  - A zero median (the reference fails on log10(0)) shows as 0, and the
//    table's unit comes from the fastest non-zero median.
class Compare {
 public:
  explicit Compare(std::vector<timer::Measurement> results = {});

  // Adds more measurements; the next Render() merges them with the others.
  void ExtendResults(const std::vector<timer::Measurement>& results);

  // The reference's switches. Colorize(false) colours columnwise.
  void TrimSignificantFigures(timer::FiguresRule rule = timer::FiguresRule::kReference) {
    options_.trim_significant_figures = true;
    options_.figures_rule = rule;
  }
  void Colorize(bool rowwise = false);
  void HighlightWarnings() { options_.highlight_warnings = true; }

  // All switches at once, e.g. from command-line flags.
  const CompareOptions& options() const { return options_; }
  void set_options(const CompareOptions& options) { options_ = options; }

  // The tables, as str(compare) in the reference: each table ends with a
  // newline and tables are separated by a blank line. Empty when there is
  // nothing to show.
  std::string Render() const;
  // Writes Render() and a newline to stdout, like compare.print().
  void Print() const;

 private:
  std::vector<timer::Measurement> results_;
  CompareOptions options_;
};

}  // namespace icount::compare

#endif  // ICOUNT_COMPARE_COMPARE_H_
