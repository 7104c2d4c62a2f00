#ifndef ICOUNT_EXPAND_VARIANTS_H_
#define ICOUNT_EXPAND_VARIANTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "expand/definition.h"

namespace icount::expand {

// One benchmark of a GroupedVariants: its label below the group's own label
// and its statements, which carry the group's setup and thread counts.
struct Variant {
  std::vector<std::string> label;  // {"add", "Case:  0"}, or {"sum"} for a single line
  GroupedStmts stmts;
};

// Splits a GroupedVariants into its benchmarks, in label order (Python
// block's labels first, then labels only the C++ block has), as described
// at GroupedVariants:
//
//   GroupedVariants v{"# @setup\nx = torch.ones(())\n# @neg\n-x\n# @abs\nx.abs()\nabs(x)", ""};
//   ExpandVariants(v)
//   // {{"neg"}, {py_stmt "-x", setup.py_setup "x = torch.ones(())"}},
//   // {{"abs", "Case:  0"}, {py_stmt "x.abs()", ...}},
//   // {{"abs", "Case:  1"}, {py_stmt "abs(x)", ...}}
//
// Errors are InvalidArgument and quote the offending line; the caller adds
// the group's label.
absl::StatusOr<std::vector<Variant>> ExpandVariants(const GroupedVariants& variants);

}  // namespace icount::expand

#endif  // ICOUNT_EXPAND_VARIANTS_H_
