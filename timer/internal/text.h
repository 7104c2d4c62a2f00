#ifndef ICOUNT_TIMER_INTERNAL_TEXT_H_
#define ICOUNT_TIMER_INTERNAL_TEXT_H_

#include <string>
#include "absl/strings/string_view.h"

namespace icount::timer_internal {

// Python's textwrap.dedent: removes the longest common leading whitespace of
// all non-blank lines; blank lines become empty.
std::string Dedent(absl::string_view text);

// Python's textwrap.indent(text, prefix): prefixes every non-blank line.
std::string Indent(absl::string_view text, absl::string_view prefix);

// Timer's normalisation of stmt and setup: dedent, drop one leading newline,
// strip trailing whitespace.
std::string NormalizeSnippet(absl::string_view text);

// `text` as a JSON string literal, quotes included: '"' and '\\' escaped,
// control characters as \n, \t or \u00XX; other bytes (UTF-8) as they are.
//   JsonString("a\"b") == "\"a\\\"b\""
std::string JsonString(absl::string_view text);

}  // namespace icount::timer_internal

#endif  // ICOUNT_TIMER_INTERNAL_TEXT_H_
