#include "timer/internal/unnamed_functions.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace icount::timer::internal {
namespace {

using Groups = absl::flat_hash_map<FunctionKey, FunctionKey>;

const FunctionKey& GroupOf(const Groups& groups, const FunctionKey& key) {
  auto it = groups.find(key);
  return it == groups.end() ? key : it->second;
}

class TreeMerger {
 public:
  TreeMerger(const CallTree& tree, const Groups& groups)
      : tree_(tree), children_(tree.nodes.size()) {
    for (const FunctionKey& function : tree.functions) {
      names_.push_back(GroupOf(groups, function));
      grouped_.push_back(groups.contains(function));
    }
    for (size_t i = 1; i < tree.nodes.size(); ++i) {
      children_[tree.nodes[i].parent].push_back(static_cast<int>(i));
    }
    merged_.total = tree.total;
    merged_.threshold = tree.threshold;
  }

  CallTree Merge() && {
    Emit(-1, {0});
    return std::move(merged_);
  }

 private:
  const FunctionKey& Name(int node) const { return names_[tree_.nodes[node].function]; }
  bool Grouped(int node) const { return grouped_[tree_.nodes[node].function]; }

  // One node for `group` (old nodes under one parent that share a name).
  void Emit(int parent, const std::vector<int>& group) {
    CallTree::Node node{parent, FunctionIndex(Name(group[0])), 0, 0};
    std::vector<int> callees;
    for (int old : group) {
      node.inclusive += tree_.nodes[old].inclusive;
      Absorb(old, node.self, callees);
    }
    // Each old node's cost is rounded on its own (BuildCallTree), so the
    // selves absorbed may exceed the frame's width by a few instructions.
    node.self = std::min(node.self, node.inclusive);
    const int index = static_cast<int>(merged_.nodes.size());
    merged_.nodes.push_back(node);
    // Callees sharing a name become one node; the most expensive first, as
    // BuildCallTree orders children.
    std::vector<std::vector<int>> groups;
    std::vector<int64_t> inclusive;
    absl::flat_hash_map<FunctionKey, size_t> slot;
    for (int callee : callees) {
      auto [it, inserted] = slot.try_emplace(Name(callee), groups.size());
      if (inserted) {
        groups.emplace_back();
        inclusive.push_back(0);
      }
      groups[it->second].push_back(callee);
      inclusive[it->second] += tree_.nodes[callee].inclusive;
    }
    std::vector<size_t> order(groups.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return inclusive[x] > inclusive[y]; });
    for (size_t i : order) Emit(index, groups[i]);
  }

  // Adds `old`'s own cost to `self`, and its callees to `callees`, except
  // that an unnamed callee of the same object is absorbed in turn.
  void Absorb(int old, int64_t& self, std::vector<int>& callees) const {
    self += tree_.nodes[old].self;
    for (int callee : children_[old]) {
      if (Grouped(old) && Grouped(callee) && Name(callee) == Name(old)) {
        Absorb(callee, self, callees);
      } else {
        callees.push_back(callee);
      }
    }
  }

  int FunctionIndex(const FunctionKey& name) {
    auto [it, inserted] =
        function_index_.try_emplace(name, static_cast<int>(merged_.functions.size()));
    if (inserted) merged_.functions.push_back(name);
    return it->second;
  }

  const CallTree& tree_;
  std::vector<FunctionKey> names_;  // per function of tree_
  std::vector<bool> grouped_;
  std::vector<std::vector<int>> children_;
  CallTree merged_;
  absl::flat_hash_map<FunctionKey, int> function_index_;
};

}  // namespace

CallgrindProfile MergeUnnamedFunctions(const CallgrindProfile& profile) {
  if (profile.unnamed_groups.empty()) return profile;
  const Groups& groups = profile.unnamed_groups;
  CallgrindProfile merged;
  merged.creator = profile.creator;
  merged.command = profile.command;
  merged.events = profile.events;
  merged.num_parts = profile.num_parts;
  merged.total = profile.total;
  merged.total_is_calculated = profile.total_is_calculated;
  merged.event_totals = profile.event_totals;
  for (const auto& [key, cost] : profile.exclusive) merged.exclusive[GroupOf(groups, key)] += cost;
  for (const auto& [key, cost] : profile.inclusive) merged.inclusive[GroupOf(groups, key)] += cost;
  // Ordered, as the parser orders its arcs.
  std::map<std::pair<FunctionKey, FunctionKey>, CallgrindProfile::CallArc> arcs;
  for (const CallgrindProfile::CallArc& arc : profile.calls) {
    const FunctionKey& caller = GroupOf(groups, arc.caller);
    const FunctionKey& callee = GroupOf(groups, arc.callee);
    if (caller == callee && arc.caller != arc.callee) {
      merged.inclusive[callee] -= arc.inclusive;
      continue;
    }
    CallgrindProfile::CallArc& sum = arcs[{caller, callee}];
    sum.caller = caller;
    sum.callee = callee;
    sum.calls += arc.calls;
    sum.inclusive += arc.inclusive;
  }
  merged.calls.reserve(arcs.size());
  for (auto& [ends, arc] : arcs) merged.calls.push_back(std::move(arc));
  return merged;
}

CallTree MergeUnnamedNodes(const CallTree& tree, const Groups& unnamed_groups) {
  if (tree.empty() ||
      std::none_of(tree.functions.begin(), tree.functions.end(),
                   [&](const FunctionKey& f) { return unnamed_groups.contains(f); })) {
    return tree;
  }
  return TreeMerger(tree, unnamed_groups).Merge();
}

}  // namespace icount::timer::internal
