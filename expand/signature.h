#ifndef ICOUNT_EXPAND_SIGNATURE_H_
#define ICOUNT_EXPAND_SIGNATURE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace icount::expand {

// The data flow of a benchmark: which setup variables its statement reads
// and which variable it produces. Generated code needs it to call a model
// (`y = model(x, w)`), to script a statement into a function, and to run
// backward on the output (`y.backward()`).
//
//   ParseSignature("f(x, w) -> y")      // args {"x", "w"}, output "y"
//   ParseSignature("f(x,w)->None")      // args {"x", "w"}, no output
//   ParseSignature(" f( ) -> out ")     // no args, output "out"
struct Signature {
  std::vector<std::string> args;
  // Unset for "-> None": the statement works in place and returns nothing.
  std::optional<std::string> output;

  // The arguments as written in a call: "x, w".
  std::string ArgList() const;
  // The canonical spelling, "f(x, w) -> y" or "f(x) -> None".
  std::string ToString() const;
};

// Parses "f(a, b, ...) -> out". Spacing is free, there may be no arguments,
// and "None" as the output means there is none. Names must be identifiers
// valid in both Python and C++ (letters, digits, underscores, not starting
// with a digit), arguments must be distinct, and there is at most one output
// (upstream's rule: "-> y, z" is rejected). Errors are InvalidArgument and
// quote the signature.
absl::StatusOr<Signature> ParseSignature(absl::string_view signature);

}  // namespace icount::expand

#endif  // ICOUNT_EXPAND_SIGNATURE_H_
