#ifndef ICOUNT_COMPARE_TEXT_TABLE_H_
#define ICOUNT_COMPARE_TEXT_TABLE_H_

// The one table renderer of icount: a grid of already formatted cells laid
// out as aligned text for terminals or as GitHub Markdown. Compare, the
// delta table, the suite's counts table and the CI gate's summary decide
// what goes in the cells; TextTable decides where it goes.
//
//   TextTable table({{"Benchmark"}, {"Instructions", Align::kRight}});
//   table.AddGroup("1 thread:");
//   table.AddRow({"add", "5,093"});
//   std::cout << table.RenderText({.title = "counts"});
//
//   [------- counts -------]
//   Benchmark  |  Instructions
//   1 thread:
//   add        |         5,093
//
// Widths count code points, not UTF-8 bytes ("µs" is 2 wide), and every
// cell, the last included, is padded to its column's width.

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace icount::compare {

enum class Align { kLeft, kRight, kCenter };

class TextTable {
 public:
  struct Column {
    std::string header;
    Align align = Align::kLeft;  // of the cells
    Align header_align = Align::kCenter;
    int min_width = 0;
    // Text between the previous column and this one (unused for the first).
    std::string separator = "  |  ";
  };

  // A cell's text and, for colour, what goes around it after padding
  // (e.g. "\033[31m" and "\033[0m"); widths ignore both.
  struct Cell {
    std::string text;
    std::string before;
    std::string after;
  };

  explicit TextTable(std::vector<Column> columns);

  // A row; missing trailing cells are blank.
  void AddRow(const std::vector<std::string>& cells);
  void AddStyledRow(std::vector<Cell> cells);
  // A heading on a line of its own before the next row ("2 threads:").
  void AddGroup(std::string heading);

  bool empty() const { return lines_.empty(); }

  struct TextOptions {
    // Above the header: "[" + title centred in dashes + "]", as wide as the
    // header line ("[------  ------]" for an empty title).
    std::optional<std::string> title;
    // A line of dashes as wide as the header line, under it.
    bool rule_under_header = false;
    // Pads group headings to the header line's width with this character
    // ("2 threads: -----------"); '\0': no padding.
    char group_fill = '\0';
  };
  // The lines, each ending in a newline.
  std::string RenderText(const TextOptions& options) const;

  // "| a | b |" lines with a ":---" (left), "---:" (right) or ":---:"
  // (centre) rule after the header, each ending in a newline; groups
  // become rows with the heading in the first cell. Cells are written as
  // given: escape them with MarkdownEscape where they are plain text.
  std::string RenderMarkdown() const;

  // Code points in `text`, as Python's len() counts them.
  static int Width(absl::string_view text);

 private:
  struct Line {
    bool group = false;
    std::string heading;
    std::vector<Cell> cells;
  };
  std::vector<Column> columns_;
  std::vector<Line> lines_;
};

// Markdown text with "\", "|" and "~" escaped, so labels cannot break a
// table or strike text through.
std::string MarkdownEscape(absl::string_view text);

}  // namespace icount::compare

#endif  // ICOUNT_COMPARE_TEXT_TABLE_H_
