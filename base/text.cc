#include "base/text.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace icount::base {
namespace {

absl::string_view LeadingWhitespace(absl::string_view line) {
  size_t n = 0;
  while (n < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
  return line.substr(0, n);
}

// The code point at the start of `text` and its length in bytes; a byte
// that does not start valid UTF-8 is one Latin-1 character.
std::pair<uint32_t, size_t> DecodeUtf8OrLatin1(absl::string_view text) {
  const unsigned char lead = static_cast<unsigned char>(text[0]);
  const size_t extra = (lead & 0xE0) == 0xC0   ? 1
                       : (lead & 0xF0) == 0xE0 ? 2
                       : (lead & 0xF8) == 0xF0 ? 3
                                               : 0;
  if (extra == 0 || extra >= text.size()) return {lead, 1};
  uint32_t code = lead & (0x7F >> (extra + 1));
  for (size_t k = 1; k <= extra; ++k) {
    const unsigned char continuation = static_cast<unsigned char>(text[k]);
    if ((continuation & 0xC0) != 0x80) return {lead, 1};
    code = (code << 6) | (continuation & 0x3F);
  }
  return {code, extra + 1};
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
  std::vector<std::string> lines = absl::StrSplit(Dedent(text), '\n');
  for (std::string& line : lines) {
    line.resize(absl::StripTrailingAsciiWhitespace(line).size());
  }
  size_t begin = 0;
  while (begin < lines.size() && lines[begin].empty()) ++begin;
  size_t end = lines.size();
  while (end > begin && lines[end - 1].empty()) --end;
  return absl::StrJoin(lines.begin() + begin, lines.begin() + end, "\n");
}

std::string JsonString(absl::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
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

std::string PythonJsonString(absl::string_view text) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size();) {
    auto [code, length] = DecodeUtf8OrLatin1(text.substr(i));
    i += length;
    switch (code) {
      case '"':
        out += "\\\"";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\r':
        out += "\\r";
        continue;
      case '\t':
        out += "\\t";
        continue;
      case '\b':
        out += "\\b";
        continue;
      case '\f':
        out += "\\f";
        continue;
      default:
        break;
    }
    if (code >= 0x20 && code < 0x7F) {
      out += static_cast<char>(code);
    } else if (code < 0x10000) {
      absl::StrAppendFormat(&out, "\\u%04x", code);
    } else {
      code -= 0x10000;
      absl::StrAppendFormat(&out, "\\u%04x\\u%04x", 0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF));
    }
  }
  return out + "\"";
}

std::string CppStringLiteral(absl::string_view text) {
  return absl::StrCat(
      "\"", absl::StrReplaceAll(text, {{"\\", "\\\\"}, {"\"", "\\\""}, {"\n", "\\n"}}), "\"");
}

std::string PythonRawLiteral(absl::string_view text) { return absl::StrCat("r'''", text, "'''"); }

std::string CountOf(size_t n, absl::string_view noun) {
  return absl::StrCat(n, " ", noun, n == 1 ? "" : "s");
}

}  // namespace icount::base
