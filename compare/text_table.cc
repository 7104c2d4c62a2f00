#include "compare/text_table.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "compare/internal/text.h"

namespace icount::compare {
namespace {

using internal::Center;
using internal::LeftJustify;
using internal::RightJustify;
using internal::TextWidth;

std::string Pad(absl::string_view text, int width, Align align) {
  switch (align) {
    case Align::kLeft:
      return LeftJustify(text, width);
    case Align::kRight:
      return RightJustify(text, width);
    case Align::kCenter:
      break;
  }
  return Center(text, width);
}

const char* MarkdownRule(Align align) {
  switch (align) {
    case Align::kLeft:
      return ":---";
    case Align::kRight:
      return "---:";
    case Align::kCenter:
      break;
  }
  return ":---:";
}

}  // namespace

TextTable::TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

void TextTable::AddRow(const std::vector<std::string>& cells) {
  std::vector<Cell> row;
  for (const std::string& text : cells) row.push_back(Cell{text, "", ""});
  AddStyledRow(std::move(row));
}

void TextTable::AddStyledRow(std::vector<Cell> cells) {
  cells.resize(columns_.size());
  lines_.push_back(Line{false, "", std::move(cells)});
}

void TextTable::AddGroup(std::string heading) {
  lines_.push_back(Line{true, std::move(heading), {}});
}

int TextTable::Width(absl::string_view text) { return TextWidth(text); }

std::string TextTable::RenderText(const TextOptions& options) const {
  std::vector<int> widths;
  for (const Column& column : columns_) {
    widths.push_back(std::max(column.min_width, TextWidth(column.header)));
  }
  for (const Line& line : lines_) {
    for (size_t j = 0; j < line.cells.size(); ++j) {
      widths[j] = std::max(widths[j], TextWidth(line.cells[j].text));
    }
  }
  std::string header;
  for (size_t j = 0; j < columns_.size(); ++j) {
    if (j > 0) header += columns_[j].separator;
    header += Pad(columns_[j].header, widths[j], columns_[j].header_align);
  }
  const int header_width = TextWidth(header);
  std::vector<std::string> out;
  if (options.title.has_value()) {
    out.push_back(absl::StrCat(
        "[", Center(absl::StrCat(" ", *options.title, " "), header_width - 2, '-'), "]"));
  }
  out.push_back(header);
  if (options.rule_under_header) out.push_back(std::string(header_width, '-'));
  for (const Line& line : lines_) {
    if (line.group) {
      out.push_back(options.group_fill == '\0'
                        ? line.heading
                        : LeftJustify(line.heading, header_width, options.group_fill));
      continue;
    }
    std::string text;
    for (size_t j = 0; j < columns_.size(); ++j) {
      if (j > 0) text += columns_[j].separator;
      const Cell& cell = line.cells[j];
      absl::StrAppend(&text, cell.before, Pad(cell.text, widths[j], columns_[j].align), cell.after);
    }
    out.push_back(std::move(text));
  }
  return absl::StrCat(absl::StrJoin(out, "\n"), "\n");
}

std::string TextTable::RenderMarkdown() const {
  std::vector<std::string> header, rule;
  for (const Column& column : columns_) {
    header.push_back(column.header);
    rule.push_back(MarkdownRule(column.align));
  }
  std::string out = absl::StrCat("| ", absl::StrJoin(header, " | "), " |\n| ",
                                 absl::StrJoin(rule, " | "), " |\n");
  for (const Line& line : lines_) {
    std::vector<std::string> cells;
    if (line.group) {
      cells.assign(columns_.size(), "");
      if (!cells.empty()) cells[0] = line.heading;
    } else {
      for (const Cell& cell : line.cells) cells.push_back(cell.text);
    }
    absl::StrAppend(&out, "| ", absl::StrJoin(cells, " | "), " |\n");
  }
  return out;
}

std::string MarkdownEscape(absl::string_view text) {
  return absl::StrReplaceAll(text, {{"\\", "\\\\"}, {"|", "\\|"}, {"~", "\\~"}});
}

}  // namespace icount::compare
