#include "timer/internal/text.h"

#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace icount::timer_internal {
namespace {

bool IsBlank(absl::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v') return false;
  }
  return true;
}

absl::string_view LeadingWhitespace(absl::string_view line) {
  size_t n = 0;
  while (n < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
  return line.substr(0, n);
}

}  // namespace

std::string Dedent(absl::string_view text) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  // textwrap.dedent's margin is the longest common prefix of the leading
  // whitespace of non-blank lines (tabs and spaces are not equated).
  std::optional<absl::string_view> margin;
  for (absl::string_view line : lines) {
    if (IsBlank(line)) continue;
    absl::string_view indent = LeadingWhitespace(line);
    if (!margin.has_value()) {
      margin = indent;
      continue;
    }
    size_t common = 0;
    while (common < margin->size() && common < indent.size() && (*margin)[common] == indent[common]) {
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
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    size_t stop = end == absl::string_view::npos ? text.size() : end + 1;
    absl::string_view line = text.substr(start, stop - start);
    if (!IsBlank(line.substr(0, line.size() - (line.back() == '\n' ? 1 : 0)))) {
      absl::StrAppend(&out, prefix);
    }
    absl::StrAppend(&out, line);
    start = stop;
  }
  return out;
}

std::string NormalizeSnippet(absl::string_view text) {
  std::string out = Dedent(text);
  if (!out.empty() && out.front() == '\n') out.erase(0, 1);
  while (!out.empty() && absl::ascii_isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
  return out;
}

std::string JsonString(absl::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppend(&out, "\\u00", absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace icount::timer_internal
