#include "compare/delta_table.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "compare/internal/text.h"
#include "compare/text_table.h"
#include "timer/measurement.h"

namespace icount::compare {
namespace {

using internal::RightJustify;

constexpr char kReset[] = "\033[0m";
constexpr char kNoiseColor[] = "\033[90m";

// Changes smaller than this (in percent) are neither coloured nor marked.
constexpr double kNoticeable = 0.5;

// "1,234,567" for a non-negative whole number.
std::string GroupThousands(uint64_t n) {
  std::string digits = absl::StrCat(n);
  std::string grouped;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return grouped;
}

// An instruction count: whole with thousands separators, except that a
// small fractional count (an average over runs) keeps one decimal so that a
// delta of 0.3 does not read "+0".
std::string FormatCount(double x, bool show_sign) {
  const char* sign = x < 0 ? "-" : (show_sign ? "+" : "");
  const double magnitude = std::fabs(x);
  if (magnitude < 100 && magnitude != std::floor(magnitude)) {
    return absl::StrFormat("%s%.1f", sign, magnitude);
  }
  return absl::StrCat(sign, GroupThousands(static_cast<uint64_t>(std::llround(magnitude))));
}

std::string FormatPercent(double percent) {
  if (!std::isfinite(percent)) return "n/a";  // from A == 0
  return std::fabs(percent) < 1 ? absl::StrFormat("%+.2f%%", percent)
                                : absl::StrFormat("%+.1f%%", percent);
}

std::string FormatTime(double seconds, const std::pair<std::string, double>& unit, bool show_sign) {
  return absl::StrFormat(show_sign ? "%+.2f %s" : "%.2f %s", seconds / unit.second, unit.first);
}

// (B - A) / A in percent; infinite when A is zero and B is not.
double PercentChange(double a, double b) {
  if (a == 0) return b > 0 ? INFINITY : -INFINITY;
  return (b - a) / std::fabs(a) * 100;
}

// What one cell says, before padding: either a single text (blank, "...",
// "A only: x") or the three aligned parts of a change.
struct CellText {
  std::string whole;
  bool is_change = false;
  std::string delta, b, percent;
  double change = 0;   // percent, for colour and markers
  bool noise = false;  // a wall-time change within noise, or not significant
  bool one_sided = false;
  bool paired = false;      // a wall-time change over paired rounds
  bool no_verdict = false;  // paired rounds too few or unusable
  int rounds = 0;           // paired rounds behind the change
};

CellText CountCell(const DeltaValues& values) {
  CellText cell;
  const auto& a = values.a_instructions;
  const auto& b = values.b_instructions;
  if (!a && !b) return cell;
  if (!a || !b) {
    cell.one_sided = true;
    cell.whole = absl::StrCat(a ? "A only: " : "B only: ", FormatCount(a ? *a : *b, false));
    return cell;
  }
  if (*a == *b) {
    cell.whole = "...";
    return cell;
  }
  cell.is_change = true;
  cell.delta = FormatCount(*b - *a, true);
  cell.b = FormatCount(*b, false);
  cell.change = PercentChange(*a, *b);
  cell.percent = FormatPercent(cell.change);
  return cell;
}

// A measurement without times has no median: it counts as missing.
const timer::Measurement* Timed(const std::optional<timer::Measurement>& m) {
  return m.has_value() && !m->raw_times().empty() ? &*m : nullptr;
}

// A change over paired rounds: medians, change, interval, significance.
CellText PairedTimeCell(const TimeComparison& comparison) {
  CellText cell;
  if (comparison.verdict == TimeVerdict::kTooFewRounds ||
      comparison.verdict == TimeVerdict::kUnusable) {
    cell.no_verdict = true;
    cell.whole = FormatTimeChange(comparison);
    return cell;
  }
  const auto unit = timer::SelectTimeUnit(comparison.b_seconds);
  cell.is_change = true;
  cell.paired = true;
  cell.rounds = comparison.rounds;
  cell.delta = FormatTime(comparison.b_seconds - comparison.a_seconds, unit, true);
  cell.b = FormatTime(comparison.b_seconds, unit, false);
  cell.change = comparison.delta_pct;
  cell.noise = !comparison.significant;
  cell.percent =
      absl::StrCat(cell.noise ? "~" : "", FormatTimeChange(comparison), cell.noise ? "" : " *");
  return cell;
}

CellText TimeCell(const DeltaValues& values) {
  if (values.time_comparison.has_value()) return PairedTimeCell(*values.time_comparison);
  CellText cell;
  const timer::Measurement* a = Timed(values.a_time);
  const timer::Measurement* b = Timed(values.b_time);
  if (!a && !b) return cell;
  if (!a || !b) {
    const timer::Measurement& m = a ? *a : *b;
    cell.one_sided = true;
    cell.whole = absl::StrCat(a ? "A only: " : "B only: ",
                              FormatTime(m.Median(), timer::SelectTimeUnit(m.Median()), false));
    return cell;
  }
  if (a->Median() == b->Median()) {
    cell.whole = "...";
    return cell;
  }
  const auto unit = timer::SelectTimeUnit(b->Median());
  cell.is_change = true;
  cell.delta = FormatTime(b->Median() - a->Median(), unit, true);
  cell.b = FormatTime(b->Median(), unit, false);
  cell.change = PercentChange(a->Median(), b->Median());
  cell.noise = WithinNoise(*a, *b);
  // "~" says "within noise" where colour cannot.
  cell.percent = absl::StrCat(cell.noise ? "~" : "", FormatPercent(cell.change));
  return cell;
}

// Whether an entry has instruction counts, or wall time, to show.
bool HasCounts(const DeltaValues& v) { return v.a_instructions || v.b_instructions; }

bool HasTime(const DeltaValues& v) {
  return Timed(v.a_time) || Timed(v.b_time) || v.time_comparison.has_value();
}

// A table row's key: label, thread count, autograd.
using RowKey = std::tuple<std::vector<std::string>, int, std::string>;

RowKey RowKeyOf(const DeltaKey& key) { return RowKey(key.label, key.num_threads, key.autograd); }

// The rows and columns that a table's entries with values use.
struct UsedKeys {
  std::vector<RowKey> rows;          // in the table's order
  std::vector<std::string> columns;  // as first used
  bool autograd = false;             // whether any row names its autograd
};

UsedKeys CollectUsedKeys(const std::deque<std::pair<DeltaKey, DeltaValues>>& entries) {
  UsedKeys used;
  // Rows: grouped by label in first-seen order, then by thread count, then
  // in the order added. Entries without values take no space.
  std::map<std::vector<std::string>, size_t> label_rank;
  std::set<RowKey> seen;
  std::vector<std::pair<size_t, RowKey>> ranked;
  for (const auto& [key, values] : entries) {
    if (!HasCounts(values) && !HasTime(values)) continue;
    label_rank.emplace(key.label, label_rank.size());
    const RowKey row = RowKeyOf(key);
    if (seen.insert(row).second) ranked.emplace_back(label_rank[key.label], row);
    if (std::find(used.columns.begin(), used.columns.end(), key.column) == used.columns.end()) {
      used.columns.push_back(key.column);
    }
    if (!key.autograd.empty()) used.autograd = true;
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) {
    return std::make_pair(x.first, std::get<1>(x.second)) <
           std::make_pair(y.first, std::get<1>(y.second));
  });
  for (const auto& [rank, key] : ranked) used.rows.push_back(key);
  return used;
}

// Columns: the requested order first, then the rest as first used.
std::vector<std::string> OrderColumns(const std::vector<std::string>& column_names,
                                      const std::vector<std::string>& column_order) {
  std::vector<std::string> ordered;
  for (const std::string& name : column_order) {
    if (std::find(column_names.begin(), column_names.end(), name) != column_names.end() &&
        std::find(ordered.begin(), ordered.end(), name) == ordered.end()) {
      ordered.push_back(name);
    }
  }
  for (const std::string& name : column_names) {
    if (std::find(ordered.begin(), ordered.end(), name) == ordered.end()) ordered.push_back(name);
  }
  return ordered;
}

}  // namespace

std::string DeltaColumn(timer::Language language, absl::string_view runtime) {
  return absl::StrCat(timer::LanguageName(language), " ", runtime);
}

std::string FormatAllocations(double per_run) {
  std::string text = absl::StrFormat("%.2f", per_run);
  // Trailing zeros and a trailing point go: "4.00" -> "4", "0.50" -> "0.5".
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text == "-0" ? "0" : text;
}

bool AllocationsDiffer(double a, double b) { return std::fabs(b - a) > 1e-9; }

std::string DeltaColor(double percent) {
  if (std::isnan(percent) || std::fabs(percent) < kNoticeable) return "";
  if (percent < 0) return percent <= -10 ? "\033[1m\033[92m" : "\033[32m";
  if (percent < 2.5) return "\033[33m";
  if (percent < 10) return "\033[93m";
  if (percent < 25) return "\033[31m";
  if (percent < 50) return "\033[91m";
  if (percent < 100) return "\033[1m\033[91m";
  return "\033[1m\033[7m\033[91m";
}

bool WithinNoise(const timer::Measurement& a, const timer::Measurement& b) {
  if (a.raw_times().size() < 4 || b.raw_times().size() < 4) return true;
  return a.P25() <= b.P75() && b.P25() <= a.P75();
}

struct DeltaTable::Row {
  std::vector<std::string> label;
  int num_threads;
  std::string autograd;
};

struct DeltaTable::Column {
  std::string header;
  bool time;                    // wall time rather than instruction counts
  std::vector<CellText> cells;  // one per row
};

struct DeltaTable::Layout {
  std::vector<Row> rows;
  bool show_autograd = false;
  std::vector<Column> columns;
};

DeltaTable::DeltaTable(std::string title, std::vector<std::string> column_order)
    : title_(std::move(title)), column_order_(std::move(column_order)) {}

DeltaValues& DeltaTable::Entry(const DeltaKey& key) {
  auto [it, added] = index_.try_emplace(
      std::make_tuple(key.label, key.num_threads, key.autograd, key.column), entries_.size());
  if (added) entries_.emplace_back(key, DeltaValues{});
  return entries_[it->second].second;
}

DeltaTable::Layout DeltaTable::Arrange() const {
  Layout layout;
  const UsedKeys used = CollectUsedKeys(entries_);
  layout.show_autograd = used.autograd;
  std::map<RowKey, size_t> row_of;
  for (const RowKey& key : used.rows) {
    row_of.emplace(key, layout.rows.size());
    layout.rows.push_back(Row{std::get<0>(key), std::get<1>(key), std::get<2>(key)});
  }
  const std::vector<std::string> ordered = OrderColumns(used.columns, column_order_);

  const bool any_counts = std::any_of(entries_.begin(), entries_.end(),
                                      [](const auto& entry) { return HasCounts(entry.second); });
  // Instruction-count columns, then wall-time columns.
  for (bool time : {false, true}) {
    for (const std::string& name : ordered) {
      Column column{name, time, std::vector<CellText>(layout.rows.size())};
      if (time && any_counts) column.header = absl::StrCat(name, " (time)");
      bool used_column = false;
      for (const auto& [key, values] : entries_) {
        if (key.column != name || !(time ? HasTime(values) : HasCounts(values))) continue;
        used_column = true;
        column.cells[row_of[RowKeyOf(key)]] = time ? TimeCell(values) : CountCell(values);
      }
      if (used_column) layout.columns.push_back(std::move(column));
    }
  }
  return layout;
}

namespace {

enum class Style { kPlain, kAnsi, kMarkdown };

// What a table's legend has to explain.
struct LegendFacts {
  bool counts = false;
  bool times = false;     // wall time, one measurement a side
  int paired_rounds = 0;  // wall time over paired rounds: the most rounds
  bool one_sided = false;
  bool noise = false;  // an unpaired change within noise
  bool no_verdict = false;
  bool marked = false;  // a change big enough to be coloured or marked

  void Add(bool time, const CellText& cell) {
    if (!time) {
      counts = true;
    } else if (cell.paired || cell.no_verdict) {
      paired_rounds = std::max(paired_rounds, std::max(cell.rounds, 1));
    } else {
      times = true;
    }
    one_sided |= cell.one_sided;
    noise |= cell.noise && !cell.paired;
    no_verdict |= cell.no_verdict;
    marked |= cell.is_change && !cell.noise && std::fabs(cell.change) >= kNoticeable;
  }
};

// The lines under a table, one sentence each.
std::vector<std::string> Legend(const LegendFacts& facts, Style style,
                                const std::string& quantity) {
  const char* parts =
      style == Style::kMarkdown ? "B - A (B, (B - A) / A)" : "B - A, B, (B - A) / A";
  std::vector<std::string> lines;
  if (facts.counts) {
    lines.push_back(absl::StrCat(quantity, ": ", parts, "; \"...\" where A and B are equal."));
  }
  if (facts.times) {
    lines.push_back(
        absl::StrCat("Wall time, median per run: ", parts, "; \"...\" where A and B are equal."));
  }
  const char* how = style == Style::kAnsi       ? " (grey)"
                    : style == Style::kMarkdown ? " (italics)"
                                                : "";
  if (facts.paired_rounds > 0) {
    lines.push_back(
        absl::StrCat("Wall time over paired rounds (up to ", facts.paired_rounds,
                     "): B - A and B per run (each side's rounds' medians, their geometric mean), "
                     "then the change [its 95% confidence interval], from each round's B / A."));
    lines.push_back(absl::StrCat(
        "* significant: the change passes Benjamini-Hochberg over all compared cases at 5% "
        "(false alarms between identical sides in about 1 run in 20) and is at least 1%; ~",
        how, ": not significant."));
  }
  if (facts.no_verdict) {
    lines.push_back(
        "too few rounds, unusable: no verdict for that case (a side's times are missing, zero or "
        "went backwards); the other cases are compared.");
  }
  if (facts.noise) {
    lines.push_back(absl::StrCat("~", how,
                                 ": within noise; the interquartile ranges overlap or a side "
                                 "has fewer than 4 times."));
  }
  if (facts.one_sided) lines.push_back("A only, B only: measured on one side only.");
  if (facts.marked && style == Style::kAnsi) {
    lines.push_back(
        "Colours: faster by >=0.5% green (>=10% bold); slower by >=0.5% yellow, >=2.5% bright "
        "yellow, >=10% red, >=25% bright red, >=50% bold red, >=100% reversed.");
  }
  if (facts.marked && style == Style::kMarkdown) {
    lines.push_back(
        "🟢 faster by >=0.5%; 🟡 slower by >=0.5%; 🔴 slower by >=10% (bold from 50%).");
  }
  return lines;
}

// A change as one Markdown cell: "+112 (5,093, +2.2%)" with its marker.
std::string MarkdownChange(const CellText& cell) {
  std::string text =
      MarkdownEscape(absl::StrCat(cell.delta, " (", cell.b, ", ", cell.percent, ")"));
  if (cell.noise) return absl::StrCat("_", text, "_");
  if (cell.change <= -kNoticeable) return absl::StrCat("🟢 ", text);
  if (cell.change >= 50) return absl::StrCat("🔴 **", text, "**");
  if (cell.change >= 10) return absl::StrCat("🔴 ", text);
  if (cell.change >= kNoticeable) return absl::StrCat("🟡 ", text);
  return text;
}

// The row-header columns: benchmark, threads and, when any row has one,
// autograd.
std::vector<TextTable::Column> RowHeaderColumns(bool show_autograd) {
  std::vector<TextTable::Column> columns = {{"Benchmark", Align::kLeft, Align::kLeft},
                                            {"Threads", Align::kRight, Align::kRight, 0, "  "}};
  if (show_autograd) columns.push_back({"Autograd", Align::kLeft, Align::kLeft, 0, "  "});
  return columns;
}

// The row-header cells of row `i`; a label shows only in the first of its
// rows.
template <typename Rows>
std::vector<std::string> RowHeaderCells(const Rows& rows, size_t i, bool show_autograd) {
  const bool first_of_label = i == 0 || rows[i - 1].label != rows[i].label;
  std::vector<std::string> cells = {first_of_label ? absl::StrJoin(rows[i].label, " / ") : "",
                                    absl::StrCat(rows[i].num_threads)};
  if (show_autograd) cells.push_back(rows[i].autograd);
  return cells;
}

}  // namespace

std::string DeltaTable::Render(bool colorize) const {
  const Layout layout = Arrange();
  if (layout.rows.empty()) return "";
  std::vector<TextTable::Column> columns = RowHeaderColumns(layout.show_autograd);
  // The three parts of a change line up within their column.
  LegendFacts facts;
  std::vector<std::vector<TextTable::Cell>> cells;  // per column
  for (const Column& column : layout.columns) {
    columns.push_back({column.header, Align::kRight, Align::kCenter});
    int delta_width = 0, b_width = 0, percent_width = 0;
    for (const CellText& cell : column.cells) {
      facts.Add(column.time, cell);
      if (!cell.is_change) continue;
      delta_width = std::max(delta_width, TextTable::Width(cell.delta));
      b_width = std::max(b_width, TextTable::Width(cell.b));
      percent_width = std::max(percent_width, TextTable::Width(cell.percent));
    }
    std::vector<TextTable::Cell>& texts = cells.emplace_back();
    for (const CellText& cell : column.cells) {
      TextTable::Cell& text = texts.emplace_back();
      if (!cell.is_change) {
        text.text = cell.whole;
        continue;
      }
      text.text =
          absl::StrCat(RightJustify(cell.delta, delta_width), "  ", RightJustify(cell.b, b_width),
                       "  ", RightJustify(cell.percent, percent_width));
      const std::string color = !colorize ? "" : cell.noise ? kNoiseColor : DeltaColor(cell.change);
      if (!color.empty()) {
        text.before = color;
        text.after = kReset;
      }
    }
  }
  TextTable table(std::move(columns));
  for (size_t i = 0; i < layout.rows.size(); ++i) {
    std::vector<TextTable::Cell> row;
    for (std::string& text : RowHeaderCells(layout.rows, i, layout.show_autograd)) {
      row.push_back({std::move(text), "", ""});
    }
    for (const auto& column : cells) row.push_back(column[i]);
    table.AddStyledRow(std::move(row));
  }
  TextTable::TextOptions options;
  if (!title_.empty()) options.title = title_;
  std::string text = absl::StrCat(table.RenderText(options), "\n");
  for (const std::string& line :
       Legend(facts, colorize ? Style::kAnsi : Style::kPlain, quantity_)) {
    absl::StrAppend(&text, line, "\n");
  }
  return text;
}

std::string DeltaTable::RenderMarkdown() const {
  const Layout layout = Arrange();
  if (layout.rows.empty()) return "";
  std::vector<TextTable::Column> columns = RowHeaderColumns(layout.show_autograd);
  for (TextTable::Column& column : columns) column.header = MarkdownEscape(column.header);
  for (const Column& column : layout.columns) {
    columns.push_back({MarkdownEscape(column.header), Align::kRight});
  }
  TextTable table(std::move(columns));
  LegendFacts facts;
  for (size_t i = 0; i < layout.rows.size(); ++i) {
    std::vector<std::string> cells;
    for (const std::string& text : RowHeaderCells(layout.rows, i, layout.show_autograd)) {
      cells.push_back(MarkdownEscape(text));
    }
    for (const Column& column : layout.columns) {
      const CellText& cell = column.cells[i];
      facts.Add(column.time, cell);
      cells.push_back(cell.is_change ? MarkdownChange(cell) : MarkdownEscape(cell.whole));
    }
    table.AddRow(cells);
  }
  std::string text = title_.empty() ? "" : absl::StrCat("**", MarkdownEscape(title_), "**\n\n");
  absl::StrAppend(&text, table.RenderMarkdown(), "\n");
  for (const std::string& line : Legend(facts, Style::kMarkdown, quantity_)) {
    absl::StrAppend(&text, "- ", MarkdownEscape(line), "\n");
  }
  return text;
}

}  // namespace icount::compare
