#include "tools/function_rows.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "absl/strings/str_format.h"

namespace icount::tools {

std::string LargestFunctionRows(const timer::FunctionCounts& counts, size_t shown, RestSum sum) {
  std::vector<timer::FunctionCount> rows = counts.rows();
  std::stable_sort(rows.begin(), rows.end(),
                   [](const timer::FunctionCount& x, const timer::FunctionCount& y) {
                     return std::llabs(x.count) > std::llabs(y.count);
                   });
  shown = std::min(shown, rows.size());
  int64_t rest = 0;
  for (size_t r = shown; r < rows.size(); ++r) rest += rows[r].count;
  const size_t others = rows.size() - shown;
  rows.resize(shown);
  // Printed as inclusive rows, which FunctionCounts prints without a
  // "Total:" line; sliced, so that it shows every one of them.
  std::string text = timer::FunctionCounts(rows, /*inclusive=*/true).Slice(0, shown).ToString();
  if (others > 0) {
    absl::StrAppendFormat(
        &text, "%s  %s in %d other function%s", shown > 0 ? "\n" : "",
        sum == RestSum::kSigned ? absl::StrFormat("%+d", rest) : absl::StrFormat("%d", rest),
        others, others == 1 ? "" : "s");
  }
  return text;
}

}  // namespace icount::tools
