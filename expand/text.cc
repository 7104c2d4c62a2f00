#include "expand/text.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace icount::expand::internal {
namespace {

absl::string_view LeadingWhitespace(absl::string_view line) {
  size_t n = 0;
  while (n < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
  return line.substr(0, n);
}

}  // namespace

bool IsBlank(absl::string_view line) {
  for (char c : line) {
    if (!absl::ascii_isspace(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string Dedent(absl::string_view text) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  // Like textwrap.dedent, the margin is the longest common prefix of the
  // non-blank lines' leading whitespace; a tab and spaces are not equated.
  std::optional<absl::string_view> margin;
  for (absl::string_view line : lines) {
    if (IsBlank(line)) continue;
    absl::string_view indent = LeadingWhitespace(line);
    if (!margin.has_value()) {
      margin = indent;
      continue;
    }
    size_t common = 0;
    while (common < margin->size() && common < indent.size() &&
           (*margin)[common] == indent[common]) {
      ++common;
    }
    margin = margin->substr(0, common);
  }
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += '\n';
    if (IsBlank(lines[i])) continue;
    absl::StrAppend(&out, lines[i].substr(margin.has_value() ? margin->size() : 0));
  }
  return out;
}

std::string Indent(absl::string_view text, absl::string_view prefix) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += '\n';
    if (!IsBlank(lines[i])) absl::StrAppend(&out, prefix);
    absl::StrAppend(&out, lines[i]);
  }
  return out;
}

std::string NormalizeCode(absl::string_view text) {
  std::vector<std::string> lines = absl::StrSplit(Dedent(text), '\n');
  for (std::string& line : lines) {
    absl::string_view stripped = absl::StripTrailingAsciiWhitespace(line);
    line.resize(stripped.size());
  }
  size_t begin = 0;
  while (begin < lines.size() && lines[begin].empty()) ++begin;
  size_t end = lines.size();
  while (end > begin && lines[end - 1].empty()) --end;
  return absl::StrJoin(lines.begin() + begin, lines.begin() + end, "\n");
}

std::string JoinBlocks(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) {
    if (part.empty()) continue;
    if (!out.empty()) out += '\n';
    out += part;
  }
  return out;
}

}  // namespace icount::expand::internal
