#ifndef ICOUNT_TIMER_INTERNAL_TEXT_H_
#define ICOUNT_TIMER_INTERNAL_TEXT_H_

#include <string>

#include "absl/strings/string_view.h"

namespace icount::timer::internal {

// Timer's normalisation of stmt and setup (as torch.utils.benchmark's):
// dedent, drop one leading newline, strip trailing whitespace.
//
//   NormalizeSnippet("\n    x = 1\n    y = x\n    ")  // "x = 1\ny = x"
std::string NormalizeSnippet(absl::string_view text);

}  // namespace icount::timer::internal

#endif  // ICOUNT_TIMER_INTERNAL_TEXT_H_
