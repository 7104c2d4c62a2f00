#ifndef ICOUNT_TIMER_INTERNAL_UNNAMED_FUNCTIONS_H_
#define ICOUNT_TIMER_INTERNAL_UNNAMED_FUNCTIONS_H_

// One "(unknown in OBJECT)" function per object in place of the functions
// callgrind found no symbol for (CallgrindProfile::unnamed_groups). Their
// address names differ between any two runs that load something else first
// (a preloaded allocator moves every later library), so keyed by address
// they never match a baseline: a differential flamegraph painted them all,
// and everything below them, as changed. Merged, the same code counts the
// same under the same name in every run, and two builds of a library
// compare by what their unnamed code costs in all.
//
// Debian's LibTorch exports few of its internal symbols, so e.g.
//   ???:0x0000000003b67fe0 [/usr/lib/x86_64-linux-gnu/libtorch_cpu.so]  self 120
//   ???:0x0000000000d54260 [/usr/lib/x86_64-linux-gnu/libtorch_cpu.so]  self 80
// become
//   ???:(unknown in libtorch_cpu.so) [/usr/lib/x86_64-linux-gnu/libtorch_cpu.so]  self 200

#include "timer/call_tree.h"
#include "timer/function_key.h"
#include "timer/internal/callgrind_parser.h"

namespace icount::timer::internal {

// The profile with each object's unnamed functions as one: self costs and
// arcs summed, arcs from one unnamed function to another of the same object
// dropped (they are now inside the function), and the inclusive cost the
// sum of the members' less those inner arcs, so that a chain of unnamed
// calls is not counted once per link.
CallgrindProfile MergeUnnamedFunctions(const CallgrindProfile& profile);

// The tree with each unnamed node named by its group, a node of a group
// called from the same group folded into its caller (its own cost becomes
// the caller's, its callees the caller's), and siblings that now share a
// function merged into one node, recursively. Widths and self costs are
// kept (a folded frame's self no more than its width: each old node was
// rounded on its own); only the frames change. Merging the tree rather than the graph it
// comes from keeps call paths apart: in the merged graph, named code
// between two unnamed calls would read as recursion.
CallTree MergeUnnamedNodes(const CallTree& tree,
                           const absl::flat_hash_map<FunctionKey, FunctionKey>& unnamed_groups);

}  // namespace icount::timer::internal

#endif  // ICOUNT_TIMER_INTERNAL_UNNAMED_FUNCTIONS_H_
