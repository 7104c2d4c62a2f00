#ifndef ICOUNT_COMPARE_INTERNAL_TEXT_H_
#define ICOUNT_COMPARE_INTERNAL_TEXT_H_

#include <string>

#include "absl/strings/string_view.h"

namespace icount::compare::internal {

// Python's len() of a UTF-8 string: the number of code points, so that a
// "µs" header is as wide as the reference makes it (2, not 3 bytes).
int TextWidth(absl::string_view text);

// Python's str.center(width, fill): on odd padding the extra fill goes to
// the right, except when `width` is odd and the padding is odd, where it goes
// to the left ("abc".center(6) == " abc  ", "ab".center(5) == "  ab ").
std::string Center(absl::string_view text, int width, char fill = ' ');

// Python's str.ljust / str.rjust.
std::string LeftJustify(absl::string_view text, int width, char fill = ' ');
std::string RightJustify(absl::string_view text, int width, char fill = ' ');

}  // namespace icount::compare::internal

#endif  // ICOUNT_COMPARE_INTERNAL_TEXT_H_
