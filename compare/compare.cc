#include "compare/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compare/internal/text.h"
#include "compare/text_table.h"
#include "timer/measurement.h"

namespace icount::compare {
namespace {

using internal::LeftJustify;
using internal::RightJustify;
using internal::TextWidth;

// The reference's ANSI escapes (torch/utils/benchmark/utils/compare.py).
constexpr char kBest[] = "\033[92m";
constexpr char kGood[] = "\033[34m";
constexpr char kBad[] = "\033[2m\033[91m";
constexpr char kVeryBad[] = "\033[31m";
constexpr char kBold[] = "\033[1m";
constexpr char kTerminate[] = "\033[0m";

// The env a table shows, sorts and groups by. The reference means an unset
// env to read "Unspecified env" but its property returns None, so in tables
// where every env is unset it never shows; only mixed tables (where the
// reference fails) see the difference.
std::string EnvOf(const timer::Measurement& m) { return m.EnvName(); }

struct RowKey {
  int num_threads;
  std::string env;
  std::string name;
  bool operator==(const RowKey& other) const {
    return num_threads == other.num_threads && env == other.env && name == other.name;
  }
};

// ceil(log10(x)) of a cell value, computed in float32 like the reference's
// default-dtype tensors. A zero (or non-finite) value, where the reference
// fails, counts as one digit, which is what "0.0" needs.
int LeadingDigits(double value) {
  const float log = std::log10(static_cast<float>(value));
  if (!std::isfinite(log)) return 1;
  return static_cast<int>(std::ceil(log));
}

// One column's number format, shared by all of its cells so that they line
// up: enough integer digits for its largest value and, when trimming, only
// the decimals that its least precise cell supports (the reference's
// tables), or each cell's own (FiguresRule::kBlocks: a 4.2 beside a 48
// keeps its second figure).
class ColumnFormat {
 public:
  ColumnFormat(const std::vector<const timer::Measurement*>& cells, double time_scale,
               const CompareOptions& options)
      : time_scale_(time_scale),
        trim_(options.trim_significant_figures),
        figures_rule_(options.figures_rule),
        decimals_per_cell_(trim_ && figures_rule_ == timer::FiguresRule::kBlocks) {
    highlight_ = options.highlight_warnings &&
                 std::any_of(cells.begin(), cells.end(),
                             [](const timer::Measurement* m) { return m && m->HasWarnings(); });
    std::optional<int> unit_digits;
    std::optional<int> decimal_digits;
    for (const timer::Measurement* m : cells) {
      if (m == nullptr) continue;
      const int digits = LeadingDigits(m->Median() / time_scale_);
      unit_digits = std::max(unit_digits.value_or(digits), digits);
      if (trim_) {
        const int decimals = CellDecimals(m);
        decimal_digits = decimals_per_cell_ ? std::max(decimal_digits.value_or(decimals), decimals)
                                            : std::min(decimal_digits.value_or(decimals), decimals);
      }
    }
    decimal_digits_ = trim_ ? decimal_digits.value_or(1) : 1;
    const int length = unit_digits.value_or(1) + decimal_digits_ + (decimal_digits_ ? 1 : 0);
    // The reference pastes `length` into a format spec: "{:>-7.1f}" parses
    // as sign '-' and width 7, so a negative length (sub-nanosecond times
    // shown in seconds) pads to its absolute value.
    width_ = std::abs(length);
  }

  // The cell text for `m`, or blanks as wide as a cell for nullptr.
  std::string Cell(const timer::Measurement* m) const {
    if (m == nullptr)
      return std::string(TextWidth(Format(1, 1, decimal_digits_, std::nullopt)), ' ');
    std::optional<double> spread;
    if (m->HasWarnings()) spread = m->Iqr() / m->Median();
    return Format(m->Median() / time_scale_, trim_ ? m->SignificantFigures(figures_rule_) : 1,
                  decimals_per_cell_ ? CellDecimals(m) : decimal_digits_, spread);
  }

 private:
  // The decimals `m`'s significant figures need in this unit.
  int CellDecimals(const timer::Measurement* m) const {
    return std::max(m->SignificantFigures(figures_rule_) - LeadingDigits(m->Median() / time_scale_),
                    0);
  }

  std::string Format(double value, int significant_figures, int decimals,
                     std::optional<double> spread) const {
    if (trim_ && value != 0) value = timer::TrimSignificantFigures(value, significant_figures);
    std::string text = absl::StrFormat("%*.*f", width_, decimals, value);
    if (highlight_) {
      const std::string marker =
          spread.has_value() ? absl::StrFormat(" (! %.0f%%)", *spread * 100) : "";
      absl::StrAppend(&text, RightJustify(marker, 7));
    }
    return text;
  }

  double time_scale_;
  bool trim_;
  timer::FiguresRule figures_rule_;
  bool decimals_per_cell_;
  bool highlight_ = false;
  int decimal_digits_ = 1;
  int width_ = 0;
};

// A cell coloured as the reference colours it for `value` against the best
// value it competes with.
TextTable::Cell ColoredCell(std::string text, double value, double best) {
  std::string color;
  if (value <= best * 1.01 || value <= best + 100e-9) {
    color = absl::StrCat(kBest, kBold);
  } else if (value <= best * 1.1) {
    color = absl::StrCat(kGood, kBold);
  } else if (value >= best * 5) {
    color = absl::StrCat(kVeryBad, kBold);
  } else if (value >= best * 2) {
    color = kBad;
  }
  if (color.empty()) return {std::move(text), "", ""};
  return {std::move(text), std::move(color), absl::StrCat(kTerminate, kTerminate)};
}

// The median each cell of row `i` competes with for colour: the fastest of
// the row (rowwise) or of the cell's column within the row's thread group
// (columnwise); nullopt where there is none or no colouring.
std::vector<std::optional<double>> BestMedians(
    const std::vector<std::vector<const timer::Measurement*>>& cells,
    const std::vector<int>& row_group, size_t i, Colorize colorize) {
  std::vector<std::optional<double>> best(cells[i].size());
  auto consider = [](std::optional<double>& best_so_far, const timer::Measurement* m) {
    if (m) best_so_far = std::min(best_so_far.value_or(m->Median()), m->Median());
  };
  if (colorize == Colorize::kRowwise) {
    std::optional<double> row_min;
    for (const timer::Measurement* m : cells[i]) consider(row_min, m);
    best.assign(best.size(), row_min);
  } else if (colorize == Colorize::kColumnwise) {
    for (size_t k = 0; k < cells.size(); ++k) {
      if (row_group[k] != row_group[i]) continue;
      for (size_t j = 0; j < best.size(); ++j) consider(best[j], cells[k][j]);
    }
  }
  return best;
}

// The unit of a table's times: it suits the fastest measurement. A zero
// median (where the reference fails) does not drag the unit down to
// seconds: it shows as 0.
std::pair<std::string, double> TableTimeUnit(const std::vector<const timer::Measurement*>& results,
                                             const CompareOptions& options) {
  std::optional<double> fastest;
  for (const timer::Measurement* m : results) {
    if (m->Median() > 0) fastest = std::min(fastest.value_or(m->Median()), m->Median());
  }
  // The reference shows a table whose fastest cell is under a nanosecond
  // in seconds ("0.00000023"); icount's tables (kBlocks) stay in ns.
  const bool icount_units = options.trim_significant_figures &&
                            options.figures_rule == timer::FiguresRule::kBlocks &&
                            fastest.has_value();
  return timer::SelectTimeUnit(icount_units ? std::max(*fastest, 1e-9) : fastest.value_or(0));
}

RowKey RowOf(const timer::Measurement& m) {
  return RowKey{m.task_spec().num_threads, EnvOf(m), m.RowName()};
}

// A table's measurements placed by row and column.
struct Grid {
  std::vector<RowKey> row_keys;
  std::vector<std::optional<std::string>> column_keys;
  // cells[row][column]; nullptr where no measurement falls.
  std::vector<std::vector<const timer::Measurement*>> cells;
};

Grid ArrangeGrid(const std::vector<const timer::Measurement*>& results) {
  // Rows and columns in first-seen order; rows then stably sorted by thread
  // count and env, which keeps statements in the order they were given.
  Grid grid;
  std::vector<RowKey>& row_keys = grid.row_keys;
  std::vector<std::optional<std::string>>& column_keys = grid.column_keys;
  for (const timer::Measurement* m : results) {
    const RowKey key = RowOf(*m);
    if (std::find(row_keys.begin(), row_keys.end(), key) == row_keys.end()) {
      row_keys.push_back(key);
    }
    const std::optional<std::string>& column = m->task_spec().description;
    if (std::find(column_keys.begin(), column_keys.end(), column) == column_keys.end()) {
      column_keys.push_back(column);
    }
  }
  std::stable_sort(row_keys.begin(), row_keys.end(), [](const RowKey& a, const RowKey& b) {
    return std::tie(a.num_threads, a.env) < std::tie(b.num_threads, b.env);
  });

  grid.cells.assign(row_keys.size(),
                    std::vector<const timer::Measurement*>(column_keys.size(), nullptr));
  for (const timer::Measurement* m : results) {
    const size_t i = std::find(row_keys.begin(), row_keys.end(), RowOf(*m)) - row_keys.begin();
    const size_t j = std::find(column_keys.begin(), column_keys.end(), m->task_spec().description) -
                     column_keys.begin();
    grid.cells[i][j] = m;  // the later of two measurements in one cell wins
  }
  return grid;
}

// The envs shown before row names: only when the table mixes envs, padded
// to the widest.
struct EnvColumn {
  bool shown = false;
  int width = 0;
};

EnvColumn LayOutEnvColumn(const std::vector<RowKey>& row_keys) {
  std::vector<std::string> envs;
  for (const RowKey& key : row_keys) {
    if (std::find(envs.begin(), envs.end(), key.env) == envs.end()) envs.push_back(key.env);
  }
  EnvColumn env_column;
  env_column.shown = envs.size() > 1;
  if (env_column.shown) {
    for (const std::string& env : envs) {
      env_column.width = std::max(env_column.width, TextWidth(env));
    }
  }
  return env_column;
}

// Thread groups: a row starts a group when its thread count changes.
struct RowGroups {
  std::vector<int> row_group;
  std::vector<bool> starts_group;
  // Whether the row shows its env: when it differs from the row above in
  // its group.
  std::vector<bool> shows_env;
};

RowGroups GroupRows(const std::vector<RowKey>& row_keys, bool render_env) {
  const size_t num_rows = row_keys.size();
  RowGroups groups;
  groups.row_group.resize(num_rows);
  groups.starts_group.resize(num_rows);
  groups.shows_env.resize(num_rows);
  int group = -1;
  int prior_threads = -1;
  std::string prior_env;
  for (size_t i = 0; i < num_rows; ++i) {
    groups.starts_group[i] = row_keys[i].num_threads != prior_threads;
    if (groups.starts_group[i]) {
      prior_threads = row_keys[i].num_threads;
      prior_env = "";
      ++group;
    }
    groups.row_group[i] = group;
    groups.shows_env[i] = render_env && row_keys[i].env != prior_env;
    prior_env = row_keys[i].env;
  }
  return groups;
}

std::vector<ColumnFormat> ColumnFormats(const Grid& grid, double time_scale,
                                        const CompareOptions& options) {
  std::vector<ColumnFormat> formats;
  for (size_t j = 0; j < grid.column_keys.size(); ++j) {
    std::vector<const timer::Measurement*> column;
    for (size_t i = 0; i < grid.row_keys.size(); ++i) column.push_back(grid.cells[i][j]);
    formats.emplace_back(column, time_scale, options);
  }
  return formats;
}

// Row `i` of the table: its name (after its env, where shown), then its
// cells, coloured against the medians they compete with.
std::vector<TextTable::Cell> StyledRow(const Grid& grid, const RowGroups& groups, size_t i,
                                       int env_width, const std::vector<ColumnFormat>& formats,
                                       const CompareOptions& options) {
  const std::vector<std::optional<double>> best =
      BestMedians(grid.cells, groups.row_group, i, options.colorize);
  const RowKey& key = grid.row_keys[i];
  const std::string env = groups.shows_env[i] ? absl::StrCat("(", key.env, ")") : "";
  std::vector<TextTable::Cell> row = {
      {absl::StrCat("  ", LeftJustify(env, env_width + 4), key.name), "", ""}};
  for (size_t j = 0; j < grid.column_keys.size(); ++j) {
    const timer::Measurement* m = grid.cells[i][j];
    std::string text = formats[j].Cell(m);
    if (options.colorize != Colorize::kNone && m && best[j].has_value()) {
      row.push_back(ColoredCell(std::move(text), m->Median(), *best[j]));
    } else {
      row.push_back({std::move(text), "", ""});
    }
  }
  return row;
}

// One table: measurements that share a label.
std::string RenderTable(const std::optional<std::string>& label,
                        const std::vector<const timer::Measurement*>& results,
                        const CompareOptions& options) {
  const auto [time_unit, time_scale] = TableTimeUnit(results, options);
  const Grid grid = ArrangeGrid(results);
  const EnvColumn env_column = LayOutEnvColumn(grid.row_keys);
  const RowGroups groups = GroupRows(grid.row_keys, env_column.shown);
  const std::vector<ColumnFormat> formats = ColumnFormats(grid, time_scale, options);

  // The row names take the first column; measurements are centred.
  std::vector<TextTable::Column> columns = {{"", Align::kLeft}};
  for (const auto& column : grid.column_keys) {
    columns.push_back({column.value_or(""), Align::kCenter});
  }
  TextTable table(std::move(columns));
  for (size_t i = 0; i < grid.row_keys.size(); ++i) {
    if (groups.starts_group[i]) {
      table.AddGroup(absl::StrCat(grid.row_keys[i].num_threads, " threads: "));
    }
    table.AddStyledRow(StyledRow(grid, groups, i, env_column.width, formats, options));
  }

  const bool has_warnings =
      options.highlight_warnings &&
      std::any_of(results.begin(), results.end(),
                  [](const timer::Measurement* m) { return m->HasWarnings(); });
  TextTable::TextOptions text_options;
  text_options.title = label.value_or("");
  text_options.group_fill = '-';
  return absl::StrCat(
      table.RenderText(text_options), "\nTimes are in ", timer::TimeUnitToEnglish(time_unit), "s (",
      time_unit, ").\n",
      has_warnings ? "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"
                   : "");
}

}  // namespace

Compare::Compare(std::vector<timer::Measurement> results) : results_(std::move(results)) {}

void Compare::ExtendResults(const std::vector<timer::Measurement>& results) {
  results_.insert(results_.end(), results.begin(), results.end());
}

void Compare::Colorize(bool rowwise) {
  options_.colorize = rowwise ? Colorize::kRowwise : Colorize::kColumnwise;
}

std::string Compare::Render() const {
  // A measurement without times has no median to show; it is left out
  // before merging so that it does not decide where its table, row or column
  // goes.
  std::vector<timer::Measurement> timed;
  for (const timer::Measurement& m : results_) {
    if (!m.raw_times().empty()) timed.push_back(m);
  }
  const std::vector<timer::Measurement> merged = timer::Measurement::Merge(timed);
  // Tables by label, in first-seen order.
  std::vector<std::pair<std::optional<std::string>, std::vector<const timer::Measurement*>>> tables;
  for (const timer::Measurement& m : merged) {
    const std::optional<std::string>& label = m.task_spec().label;
    auto it = std::find_if(tables.begin(), tables.end(),
                           [&](const auto& table) { return table.first == label; });
    if (it == tables.end()) {
      tables.emplace_back(label, std::vector<const timer::Measurement*>{});
      it = std::prev(tables.end());
    }
    it->second.push_back(&m);
  }
  std::vector<std::string> rendered;
  for (const auto& [label, results] : tables) {
    rendered.push_back(RenderTable(label, results, options_));
  }
  return absl::StrJoin(rendered, "\n");
}

void Compare::Print() const { std::cout << Render() << "\n"; }

}  // namespace icount::compare
