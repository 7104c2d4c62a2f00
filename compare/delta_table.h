#ifndef ICOUNT_COMPARE_DELTA_TABLE_H_
#define ICOUNT_COMPARE_DELTA_TABLE_H_

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "compare/time_comparison.h"
#include "timer/measurement.h"

namespace icount::compare {

// Where one A/B pair of results goes in a DeltaTable. A row is a benchmark
// (its hierarchical label, thread count and autograd mode); a column is
// where it ran, e.g. "Python Eager" or "C++ TorchScript".
struct DeltaKey {
  std::vector<std::string> label;  // e.g. {"Pointwise", "Math", "add"}
  int num_threads = 1;
  // The autograd mode as the caller spells it ("Forward", "Forward +
  // Backward"), or empty where autograd does not apply; the Autograd
  // column is left out when it is empty in every row.
  std::string autograd;
  // A column name, e.g. DeltaColumn(Language::kCpp, "TorchScript").
  std::string column;
};

// "Python Eager", "C++ TorchScript", ...
std::string DeltaColumn(timer::Language language, absl::string_view runtime);

// Heap allocations per run as people write them: "4", "0.5", "1.01"
// (whole numbers without decimals, others with up to two).
std::string FormatAllocations(double per_run);

// Whether two sides' heap allocations per run differ (ratios of whole
// numbers: equal ones compare equal up to rounding).
bool AllocationsDiffer(double a, double b);

// What the two sides measured for one key; any part may be missing on
// either side (a benchmark added or removed by the change under test).
struct DeltaValues {
  // Instructions per run of the statement.
  std::optional<double> a_instructions;
  std::optional<double> b_instructions;
  // Wall time; the median per-run time is compared. A Measurement without
  // times counts as missing.
  std::optional<timer::Measurement> a_time;
  std::optional<timer::Measurement> b_time;
  // Wall time measured in paired rounds (ab_test): when set, the time cell
  // shows its medians over rounds, its change with the 95% interval and
  // whether the change is significant, instead of comparing a_time and
  // b_time; or why there is no verdict (too few rounds, unusable times).
  std::optional<TimeComparison> time_comparison;
};

// How a change of `percent` ((B - A) / A * 100) is coloured in ANSI output:
//
//   change            colour                        escape
//   |x| < 0.5%        none                          ""
//   -10% < x <= -0.5% green (faster)                \033[32m
//   x <= -10%         bold bright green             \033[1m\033[92m
//   0.5% <= x < 2.5%  yellow                        \033[33m
//   2.5% <= x < 10%   bright yellow                 \033[93m
//   10% <= x < 25%    red                           \033[31m
//   25% <= x < 50%    bright red                    \033[91m
//   50% <= x < 100%   bold bright red               \033[1m\033[91m
//   x >= 100%         bold bright red, reversed     \033[1m\033[7m\033[91m
//
// Wall-time changes within noise (see WithinNoise) are grey (\033[90m)
// whatever their size.
std::string DeltaColor(double percent);

// Whether the difference between two wall-time measurements is
// indistinguishable from their noise: true when either has fewer than 4
// times (too few to estimate a spread; Measurement::Summary shows no IQR
// below 4 either) or when their interquartile ranges [P25, P75] overlap.
// Disjoint IQRs mean that three quarters of one side's runs are slower than
// three quarters of the other's, a shift that noise alone rarely makes.
bool WithinNoise(const timer::Measurement& a, const timer::Measurement& b);

// A table of B-against-A deltas, as text for terminals or as Markdown for
// pull-request comments.
//
//   DeltaTable table("Instruction counts per run");
//   DeltaValues& add = table.Entry({{"Pointwise", "Math", "add"}, 1, "Forward",
//                                   DeltaColumn(Language::kPython, "Eager")});
//   add.a_instructions = 4981;
//   add.b_instructions = 5093;
//   std::cout << table.Render(/*colorize=*/false);
//
//   [----------------- Instruction counts per run -----------------]
//   Benchmark               Threads  Autograd  |     Python Eager
//   Pointwise / Math / add        1  Forward   |  +112  5,093  +2.2%
//
//   Instructions per run: B - A, B, (B - A) / A; "..." where A and B are equal.
//
// A cell shows "..." when A and B are equal, "A only: x" or "B only: x" when
// one side is missing, and is blank when neither side has that key.
// Instruction counts are whole numbers with thousands separators (one
// decimal below 100 if fractional); percentages have two decimals below 1%
// and one above. When any entry has wall times, each column that has them
// gets a time column after the instruction-count columns, named
// "<column> (time)" when the table shows both kinds; time cells show the
// medians' delta, B's median and the percentage, which is prefixed "~" when
// the change is within noise (WithinNoise). With a time_comparison the
// percentage is the change and its interval, "+9.6% [+7.9, +11.4] *",
// marked "*" when significant and prefixed "~" when not.
//
// Rows keep the order in which their label was first added; rows sharing a
// label follow it, by thread count, then in the order added, and repeat the
// label only in their first row.
class DeltaTable {
 public:
  // Columns named in `column_order` come first, in that order (those without
  // any entry are left out); other columns follow in the order first used.
  explicit DeltaTable(std::string title, std::vector<std::string> column_order = {});

  // The values for `key`, created empty on first use, so counts and times
  // can be filled in separately. The reference stays valid as long as the
  // table.
  DeltaValues& Entry(const DeltaKey& key);

  // What a_instructions and b_instructions hold, as the legend names it:
  // "Instructions per run" unless set (ab_test's table of estimated cycles
  // fills them with cycles).
  void set_quantity(std::string quantity) { quantity_ = std::move(quantity); }

  // A fixed-width table with a legend, or "" when no entry has a value.
  // With `colorize`, changes are coloured by DeltaColor and wall times
  // within noise are grey.
  std::string Render(bool colorize = true) const;
  // A GitHub-flavoured Markdown table with a legend, or "" when no entry has
  // a value. A change is written "B - A (B, (B - A) / A)"; changes of at
  // least 0.5% are marked 🟢 (faster), 🟡 (slower, under 10%) or 🔴 (slower
  // by 10% or more, bold from 50%); wall times within noise are in italics
  // and unmarked. "|" in labels is escaped.
  std::string RenderMarkdown() const;

 private:
  struct Row;
  struct Column;
  struct Layout;
  Layout Arrange() const;

  std::string title_;
  std::string quantity_ = "Instructions per run";
  std::vector<std::string> column_order_;
  // A deque, so that Entry() references survive later additions.
  std::deque<std::pair<DeltaKey, DeltaValues>> entries_;
  std::map<std::tuple<std::vector<std::string>, int, std::string, std::string>, size_t> index_;
};

}  // namespace icount::compare

#endif  // ICOUNT_COMPARE_DELTA_TABLE_H_
