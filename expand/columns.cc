#include "expand/columns.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "base/text.h"
#include "re2/re2.h"

namespace icount::expand {
namespace {

absl::Status LineError(size_t index, absl::string_view line, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("side-by-side table, line ", index + 1, " \"", line, "\": ", why));
}

}  // namespace

absl::StatusOr<Columns> SplitColumns(absl::string_view table) {
  std::vector<std::string> lines = absl::StrSplit(base::NormalizeSnippet(table), '\n');
  if (lines.size() < 2 || lines[0].empty()) {
    return absl::InvalidArgumentError(
        "side-by-side table: expected a \"Python | C++\" header and a \"--- | ---\" rule");
  }

  static const RE2* const kHeader = new RE2(R"(Python +\| C\+\+\s*)");
  if (!RE2::FullMatch(lines[0], *kHeader)) {
    return LineError(0, lines[0], "the header must be \"Python <spaces> | C++\"");
  }
  const size_t bar = lines[0].find('|');

  static const RE2* const kRule = new RE2(R"(-+ \| -+)");
  if (!RE2::FullMatch(lines[1], *kRule) || lines[1].find('|') != bar) {
    return LineError(
        1, lines[1],
        absl::StrCat("expected dashes with \" | \" at column ", bar + 1, ", under the header's"));
  }

  std::vector<absl::string_view> python, cpp;
  for (size_t i = 2; i < lines.size(); ++i) {
    absl::string_view line = lines[i];
    // Everything up to the space before the bar is Python.
    absl::string_view left = line.substr(0, bar - 1);
    absl::string_view right;
    if (line.size() > bar - 1) {
      if (line[bar - 1] != ' ' || line.size() < bar + 1 || line[bar] != '|') {
        return LineError(i, line,
                         absl::StrCat("expected \" | \" at column ", bar + 1,
                                      " (is the Python code wider than its column?)"));
      }
      if (line.size() > bar + 1) {
        if (line[bar + 1] != ' ') {
          return LineError(i, line,
                           absl::StrCat("expected a space after the \"|\" at column ", bar + 1));
        }
        right = line.substr(bar + 2);
      }
    }
    python.push_back(absl::StripTrailingAsciiWhitespace(left));
    cpp.push_back(absl::StripTrailingAsciiWhitespace(right));
  }
  return Columns{absl::StrJoin(python, "\n"), absl::StrJoin(cpp, "\n")};
}

}  // namespace icount::expand
