#ifndef ICOUNT_EXPAND_TEXT_H_
#define ICOUNT_EXPAND_TEXT_H_

// Text helpers private to //expand (the snippet normalisation and textwrap's
// pieces are in base/text.h).

#include <string>
#include <vector>

namespace icount::expand::internal {

// Joins the non-empty parts with newlines, so optional blocks (a model
// setup, a global setup) can be concatenated without stray blank lines.
//
//   JoinBlocks({"a", "", "b"})  // "a\nb"
std::string JoinBlocks(const std::vector<std::string>& parts);

}  // namespace icount::expand::internal

#endif  // ICOUNT_EXPAND_TEXT_H_
