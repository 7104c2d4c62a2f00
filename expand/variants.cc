#include "expand/variants.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "base/text.h"
#include "expand/columns.h"
#include "re2/re2.h"

namespace icount::expand {
namespace {

constexpr char kSetup[] = "SETUP";
constexpr char kGlobalSetup[] = "GLOBAL_SETUP";

// A block split at its label lines.
struct Sections {
  std::vector<std::string> order;  // case labels, first appearance first
  absl::flat_hash_map<std::string, std::vector<std::string>> lines;  // label -> lines
  std::vector<std::string> setup;
  std::vector<std::string> global_setup;
};

absl::StatusOr<Sections> SplitBlock(absl::string_view block, timer::Language language) {
  const bool python = language == timer::Language::kPython;
  const absl::string_view marker = python ? "#" : "//";
  const absl::string_view name = python ? "Python block" : "C++ block";
  // Upstream searches for "# @label" anywhere in a line, so a trailing
  // comment such as `x + 1  # @note` would start a new label; a label line
  // here is a comment and nothing else.
  static const RE2* const kPythonLabel = new RE2(R"(#\s*@\s*(.*?)\s*)");
  static const RE2* const kCppLabel = new RE2(R"(//\s*@\s*(.*?)\s*)");
  const RE2& label_pattern = python ? *kPythonLabel : *kCppLabel;

  Sections sections;
  absl::flat_hash_map<std::string, bool> seen;
  std::vector<std::string>* current = nullptr;
  for (absl::string_view raw : absl::StrSplit(base::NormalizeSnippet(block), '\n')) {
    absl::string_view line = absl::StripAsciiWhitespace(raw);
    std::string label;
    if (RE2::FullMatch(re2::StringPiece(line.data(), line.size()), label_pattern, &label)) {
      if (label.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(name, ": label line \"", line, "\" has no label"));
      }
      std::string canonical = absl::AsciiStrToUpper(absl::StrReplaceAll(label, {{" ", "_"}}));
      std::string section = canonical == kSetup || canonical == kGlobalSetup ? canonical : label;
      if (seen[section]) {
        return absl::InvalidArgumentError(absl::StrCat(
            name, ": \"", line, "\" repeats a label; each label may appear once per block"));
      }
      seen[section] = true;
      if (section == kSetup) {
        current = &sections.setup;
      } else if (section == kGlobalSetup) {
        current = &sections.global_setup;
      } else {
        sections.order.push_back(section);
        current = &sections.lines[section];
      }
      continue;
    }
    const bool comment = absl::StartsWith(line, marker);
    if (current == nullptr) {
      if (line.empty() || comment) continue;
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": \"", line, "\" comes before the first label (\"", marker,
                       " @label\"); start the block with \"", marker, " @setup\" or a label"));
    }
    if (current == &sections.setup || current == &sections.global_setup) {
      // Setup is code as written: it keeps its indentation (multi-line
      // statements) and its comments.
      current->emplace_back(raw);
    } else {
      // A case is one line, whose indentation means nothing. A comment line
      // is a blank line: it keeps its position, so that the Python and C++
      // lines of a label still pair up.
      current->emplace_back(comment ? absl::string_view() : line);
    }
  }
  return sections;
}

// The Python and C++ blocks: as given, or split from the table.
absl::StatusOr<Columns> Blocks(const GroupedVariants& variants) {
  if (variants.table.empty()) return Columns{variants.py_block, variants.cpp_block};
  if (!variants.py_block.empty() || !variants.cpp_block.empty()) {
    return absl::InvalidArgumentError(
        "GroupedVariants has both a table and separate blocks; use one or the other");
  }
  return SplitColumns(variants.table);
}

// The Python and C++ lines of `label`, paired by position; a pair blank in
// both blocks is left out.
std::vector<std::pair<std::string, std::string>> LabelRows(Sections& py, Sections& cpp,
                                                           const std::string& label) {
  std::vector<std::string> py_lines = py.lines[label];
  std::vector<std::string> cpp_lines = cpp.lines[label];
  const size_t n = std::max(py_lines.size(), cpp_lines.size());
  py_lines.resize(n);
  cpp_lines.resize(n);
  std::vector<std::pair<std::string, std::string>> rows;
  for (size_t i = 0; i < n; ++i) {
    if (!py_lines[i].empty() || !cpp_lines[i].empty()) {
      rows.emplace_back(py_lines[i], cpp_lines[i]);
    }
  }
  return rows;
}

// A variant per row of `label`, appended to `out`.
void AppendVariants(const GroupedVariants& variants, const GroupedSetup& setup,
                    const std::string& label,
                    const std::vector<std::pair<std::string, std::string>>& rows,
                    std::vector<Variant>& out) {
  for (size_t i = 0; i < rows.size(); ++i) {
    Variant variant;
    variant.label.push_back(label);
    // Upstream's f"Case: {i:>2}"; the exact text is part of CI keys.
    if (rows.size() > 1) variant.label.push_back(absl::StrFormat("Case: %2d", i));
    variant.stmts.py_stmt = rows[i].first;
    variant.stmts.cpp_stmt = rows[i].second;
    variant.stmts.setup = setup;
    variant.stmts.num_threads = variants.num_threads;
    variant.stmts.min_libtorch_version = variants.min_libtorch_version;
    variant.stmts.where = variants.where;
    out.push_back(std::move(variant));
  }
}

}  // namespace

absl::StatusOr<std::vector<Variant>> ExpandVariants(const GroupedVariants& variants) {
  absl::StatusOr<Columns> blocks = Blocks(variants);
  if (!blocks.ok()) return blocks.status();

  absl::StatusOr<Sections> py = SplitBlock(blocks->python, timer::Language::kPython);
  if (!py.ok()) return py.status();
  absl::StatusOr<Sections> cpp = SplitBlock(blocks->cpp, timer::Language::kCpp);
  if (!cpp.ok()) return cpp.status();
  if (!base::NormalizeSnippet(absl::StrJoin(py->global_setup, "\n")).empty()) {
    return absl::InvalidArgumentError(
        "Python block: \"# @global_setup\" has code, but global setup is C++ only (it is "
        "code at namespace scope); put Python imports in \"# @setup\"");
  }

  GroupedSetup setup{base::NormalizeSnippet(absl::StrJoin(py->setup, "\n")),
                     base::NormalizeSnippet(absl::StrJoin(cpp->setup, "\n")),
                     base::NormalizeSnippet(absl::StrJoin(cpp->global_setup, "\n"))};

  std::vector<std::string> labels = py->order;
  for (const std::string& label : cpp->order) {
    if (std::find(labels.begin(), labels.end(), label) == labels.end()) labels.push_back(label);
  }

  std::vector<Variant> out;
  for (const std::string& label : labels) {
    const std::vector<std::pair<std::string, std::string>> rows = LabelRows(*py, *cpp, label);
    if (rows.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("label \"", label, "\" has no statements in either block"));
    }
    AppendVariants(variants, setup, label, rows, out);
  }
  if (out.empty()) {
    return absl::InvalidArgumentError(
        "GroupedVariants defines no benchmarks (no \"# @label\" / \"// @label\" sections)");
  }
  return out;
}

}  // namespace icount::expand
