#include "timer/internal/call_tree_builder.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "timer/internal/unnamed_functions.h"

namespace icount::timer::internal {
namespace {

// The profile as a graph over function ids.
struct Graph {
  struct Arc {
    int callee = 0;
    int64_t inclusive = 0;
  };
  std::vector<FunctionKey> keys;
  std::vector<int64_t> self;
  std::vector<std::vector<Arc>> out;  // most expensive first
  std::vector<int> incoming;          // arcs into each function
  // Self cost plus the calls made: what one pass through the function costs
  // over the whole run, the denominator when sharing its cost out.
  std::vector<int64_t> through;

  int Id(const FunctionKey& key) {
    auto [it, inserted] = ids.try_emplace(key, static_cast<int>(keys.size()));
    if (inserted) {
      keys.push_back(key);
      self.push_back(0);
      out.emplace_back();
      incoming.push_back(0);
      through.push_back(0);
    }
    return it->second;
  }
  absl::flat_hash_map<FunctionKey, int> ids;
};

Graph MakeGraph(const CallgrindProfile& profile) {
  Graph graph;
  // Sorted keys, so that ids (and ties below) do not depend on hash order.
  std::vector<std::pair<FunctionKey, int64_t>> exclusive(profile.exclusive.begin(),
                                                         profile.exclusive.end());
  std::sort(exclusive.begin(), exclusive.end());
  for (const auto& [key, cost] : exclusive) graph.self[graph.Id(key)] = cost;
  for (const CallgrindProfile::CallArc& arc : profile.calls) {
    const int caller = graph.Id(arc.caller);
    const int callee = graph.Id(arc.callee);
    graph.out[caller].push_back({callee, arc.inclusive});
    ++graph.incoming[callee];
  }
  for (size_t f = 0; f < graph.keys.size(); ++f) {
    std::stable_sort(
        graph.out[f].begin(), graph.out[f].end(),
        [](const Graph::Arc& x, const Graph::Arc& y) { return x.inclusive > y.inclusive; });
    graph.through[f] = graph.self[f];
    for (const Graph::Arc& arc : graph.out[f]) graph.through[f] += arc.inclusive;
  }
  return graph;
}

class Unfolder {
 public:
  Unfolder(const Graph& graph, int64_t threshold, int max_nodes, CallTree* tree)
      : graph_(graph),
        threshold_(threshold),
        max_nodes_(max_nodes),
        tree_(tree),
        on_path_(graph.keys.size(), false) {}

  // Adds `function` reached at `cost` below `parent`. Stops early once the
  // tree has more than max_nodes nodes (the caller retries with a higher
  // threshold).
  void Add(int function, int parent, double cost) {
    if (static_cast<int>(tree_->nodes.size()) > max_nodes_) return;
    const int index = static_cast<int>(tree_->nodes.size());
    tree_->nodes.push_back({parent, FunctionIndex(function), std::llround(cost), 0});
    const int64_t through = graph_.through[function];
    const double scale = through > 0 ? cost / static_cast<double>(through) : 0;
    double self = static_cast<double>(graph_.self[function]) * scale;
    on_path_[function] = true;
    for (const Graph::Arc& arc : graph_.out[function]) {
      const double share = static_cast<double>(arc.inclusive) * scale;
      if (on_path_[arc.callee]) {
        self += share;  // recursion: the function's cost, drawn as its own
      } else if (share >= static_cast<double>(threshold_)) {
        Add(arc.callee, index, share);
      }
    }
    on_path_[function] = false;
    CallTree::Node& node = tree_->nodes[index];
    node.self = std::min<int64_t>(std::llround(self), node.inclusive);
  }

 private:
  int FunctionIndex(int function) {
    auto [it, inserted] =
        function_index_.try_emplace(function, static_cast<int>(tree_->functions.size()));
    if (inserted) tree_->functions.push_back(graph_.keys[function]);
    return it->second;
  }

  const Graph& graph_;
  const int64_t threshold_;
  const int max_nodes_;
  CallTree* tree_;
  std::vector<bool> on_path_;
  absl::flat_hash_map<int, int> function_index_;
};

// The function running the measured block (see the header): of the
// functions nobody called in the dump, the most expensive.
int MeasuredRoot(const Graph& graph) {
  int root = -1;
  int64_t best = -1;
  for (size_t f = 0; f < graph.keys.size(); ++f) {
    if (graph.incoming[f] == 0 && graph.through[f] > best) {
      best = graph.through[f];
      root = static_cast<int>(f);
    }
  }
  return root;
}

}  // namespace

CallTree BuildCallTree(const CallgrindProfile& profile, const CallTreeOptions& options) {
  const Graph graph = MakeGraph(profile);
  CallTree tree;
  const int root = MeasuredRoot(graph);
  if (root < 0 || graph.through[root] <= 0) return tree;
  int64_t threshold = std::max<int64_t>(
      1, std::llround(static_cast<double>(graph.through[root]) * options.min_fraction));
  while (true) {
    tree = CallTree();
    tree.total = profile.total;
    tree.threshold = threshold;
    Unfolder(graph, threshold, options.max_nodes, &tree)
        .Add(root, -1, static_cast<double>(graph.through[root]));
    if (static_cast<int>(tree.nodes.size()) <= options.max_nodes) {
      return MergeUnnamedNodes(tree, profile.unnamed_groups);
    }
    threshold *= 2;
  }
}

}  // namespace icount::timer::internal
