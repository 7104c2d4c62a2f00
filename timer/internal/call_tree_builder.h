#ifndef ICOUNT_TIMER_INTERNAL_CALL_TREE_BUILDER_H_
#define ICOUNT_TIMER_INTERNAL_CALL_TREE_BUILDER_H_

// Unfolds a callgrind profile's call graph into the CallTree a flamegraph
// draws (timer/call_tree.h says what the widths mean).
//
// The root is the function that runs the measured block: collection is
// switched on inside it (CALLGRIND_TOGGLE_COLLECT, in a call it makes), so
// the dump has no call into it, and of the functions without one it is by
// far the most expensive: the C++ harness's block loop
// ("icount_case_11(...)"), or the interpreter call running the Python
// statement ("PyObject_Vectorcall").

#include <cstdint>

#include "timer/call_tree.h"
#include "timer/internal/callgrind_parser.h"

namespace icount::timer::internal {

struct CallTreeOptions {
  // Calls cheaper than this fraction of the program total are left out.
  double min_fraction = 0.001;
  // The tree never has more nodes; the threshold doubles until it fits.
  int max_nodes = 400;
};

// An empty tree when the profile has no cost. Functions without a symbol
// appear as one "(unknown in OBJECT)" frame per object and call path
// (MergeUnnamedNodes).
CallTree BuildCallTree(const CallgrindProfile& profile, const CallTreeOptions& options = {});

}  // namespace icount::timer::internal

#endif  // ICOUNT_TIMER_INTERNAL_CALL_TREE_BUILDER_H_
