#ifndef ICOUNT_EXPAND_COLUMNS_H_
#define ICOUNT_EXPAND_COLUMNS_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace icount::expand {

// Python and C++ code written side by side, split into the two programs.
struct Columns {
  std::string python;
  std::string cpp;
};

// Splits a two-column table of Python and C++ code, so that equivalent code
// in the two languages can be read (and reviewed) line against line:
//
//   auto columns = SplitColumns(R"(
//       Python                   | C++
//       ------------------------ | ------------------------
//       # @setup                 | // @setup
//       x = torch.ones((4, 4))   | auto x = torch::ones({4, 4});
//       y = torch.ones(          | auto y = torch::ones({4});
//           (4,))                |
//   )");
//   columns->python  // "# @setup\nx = torch.ones((4, 4))\ny = torch.ones(\n    (4,))"
//   columns->cpp     // "// @setup\nauto x = torch::ones({4, 4});\nauto y = torch::ones({4});"
//
// The table is dedented and blank lines around it are ignored. The first
// line is the header "Python <spaces> | C++" and fixes the separator column:
// the column of its "|". The second line is dashes on both sides of a "|" in
// that column. On every later line the text left of " | " is Python and the
// text right of it is C++; a line may end before the separator (Python only)
// or right after it (no C++). Both sides keep their relative indentation
// and lose trailing spaces; a line whose halves are both empty keeps its
// place as an empty line on each side, so the two programs stay aligned.
//
// This is upstream's `parse_stmts`, except that the Python column may have
// any width (upstream requires exactly 40 characters). Errors are
// InvalidArgument and name the offending line.
absl::StatusOr<Columns> SplitColumns(absl::string_view table);

}  // namespace icount::expand

#endif  // ICOUNT_EXPAND_COLUMNS_H_
