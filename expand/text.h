#ifndef ICOUNT_EXPAND_TEXT_H_
#define ICOUNT_EXPAND_TEXT_H_

// Text helpers private to //expand: the pieces of Python's textwrap that
// benchmark definitions rely on, and the normalisation applied to every
// snippet before it is pasted into generated code.

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "timer/internal/text.h"

namespace icount::expand::internal {

// True when `line` holds only spaces, tabs or other ASCII whitespace.
bool IsBlank(absl::string_view line);

// Python's textwrap.dedent: removes the longest common leading whitespace of
// the non-blank lines; blank lines become empty.
//
//   Dedent("  a\n    b\n")  // "a\n  b\n"
using ::icount::timer_internal::Dedent;  // one implementation, shared with //timer

// Python's textwrap.indent(text, prefix): prefixes every non-blank line.
//
//   Indent("a\n\nb", "    ")  // "    a\n\n    b"
using ::icount::timer_internal::Indent;

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
