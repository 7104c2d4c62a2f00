#include "expand/text.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "base/text.h"

namespace icount::expand::internal {
std::string NormalizeCode(absl::string_view text) {
  std::vector<std::string> lines = absl::StrSplit(base::Dedent(text), '\n');
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
