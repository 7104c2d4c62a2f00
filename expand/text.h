#ifndef ICOUNT_EXPAND_TEXT_H_
#define ICOUNT_EXPAND_TEXT_H_

// Text helpers private to //expand: the normalisation applied to every
// snippet before it is pasted into generated code (textwrap's pieces are in
// base/text.h).

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace icount::expand::internal {

// The canonical form of a snippet (stmt, setup, model setup, global setup):
// dedented, trailing whitespace removed from every line, and leading and
// trailing blank lines dropped. Definitions are written as indented raw
// string literals, so this is what makes R"(\n    x = 1\n  )" and "x = 1"
// the same snippet, and what lets generated code indent it uniformly.
//
//   NormalizeCode("\n    x = 1  \n      y = 2\n  ")  // "x = 1\n  y = 2"
std::string NormalizeCode(absl::string_view text);

// Joins the non-empty parts with newlines, so optional blocks (a model
// setup, a global setup) can be concatenated without stray blank lines.
//
//   JoinBlocks({"a", "", "b"})  // "a\nb"
std::string JoinBlocks(const std::vector<std::string>& parts);

}  // namespace icount::expand::internal

#endif  // ICOUNT_EXPAND_TEXT_H_
