#ifndef ICOUNT_TIMER_CALL_TREE_H_
#define ICOUNT_TIMER_CALL_TREE_H_

// Where a measured region's instructions went, as a tree of calls: what a
// flamegraph (or icicle) draws. Callgrind records a call *graph* (who called
// whom, with the inclusive cost of those calls), not every path through it;
// the tree unfolds the graph from the measured region down, and where a
// function is reached from several callers its callees' costs are shared
// out in proportion to the cost of each call into it (gprof's assumption).
// So widths are exact for a function's own calls and approximate below a
// function called from several places.
//
// For the C++ variant of the suite's `add` case 0 (100 runs; the dump is
// timer/testdata/add_cpp.callgrind.out), the tree reads
//
//   nodes[0]  "???:(anonymous namespace)::icount_case_11(...) [...]"  inclusive 1,510,317
//   nodes[1]   "???:at::_ops::add__Scalar::call(...) [...]"           inclusive 1,508,291
//   nodes[2]    ...
//
// with nodes in pre-order (a node's children follow it, the most expensive
// first), so parents come before children and depths take one pass:
//
//   const CallTree& tree = *stats.call_tree();
//   std::vector<int> depth(tree.nodes.size(), 0);
//   for (size_t i = 0; i < tree.nodes.size(); ++i) {
//     const CallTree::Node& node = tree.nodes[i];
//     if (node.parent >= 0) depth[i] = depth[node.parent] + 1;
//     std::printf("%*s%s %lld\n", 2 * depth[i], "", tree.functions[node.function].text().c_str(),
//                 static_cast<long long>(node.inclusive));
//   }

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "timer/function_key.h"
#include "timer/measurement.pb.h"

namespace icount::timer {

struct CallTree {
  struct Node {
    int parent = -1;   // index into nodes; -1 for the root
    int function = 0;  // index into functions
    // Instructions in this call and below it, and in the function itself
    // (whole numbers; shared out in proportion where a function has several
    // callers). Calls cheaper than the tree's threshold are not nodes: their
    // cost is in the parent's inclusive cost but in no child's, so the
    // parent's width shows a gap where they were.
    int64_t inclusive = 0;
    int64_t self = 0;
    // No call counts: callgrind also counts the calls of the warm-up that
    // ran uncollected before the measured block, so they would mislead.
  };
  // The functions nodes name (FunctionCounts' keys).
  std::vector<FunctionKey> functions;
  std::vector<Node> nodes;  // pre-order; nodes[0] is the root
  // Program total of the measured region, and the smallest call kept.
  int64_t total = 0;
  int64_t threshold = 0;

  bool empty() const { return nodes.empty(); }
};

timer::CallTreeProto CallTreeToProto(const CallTree& tree);
// Checks what a reader relies on: parents before children, indices in
// range, a single root. `source` (when not empty) prefixes errors.
absl::StatusOr<CallTree> CallTreeFromProto(const timer::CallTreeProto& proto,
                                           const std::string& source);

}  // namespace icount::timer

#endif  // ICOUNT_TIMER_CALL_TREE_H_
