#include "timer/call_tree.h"

#include <cmath>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace icount::timer {
namespace {

// Costs travel as doubles (see CallTreeProto); anything that is not a whole,
// non-negative number below 2^53 did not come from a call tree.
bool ToCount(double value, int64_t* out) {
  if (!(value >= 0 && value < 9007199254740992.0) || value != std::floor(value)) return false;
  *out = static_cast<int64_t>(value);
  return true;
}

}  // namespace

timer::CallTreeProto CallTreeToProto(const CallTree& tree) {
  timer::CallTreeProto proto;
  for (const FunctionKey& function : tree.functions) *proto.add_keys() = FunctionKeyToProto(function);
  for (const CallTree::Node& node : tree.nodes) {
    proto.add_parent(node.parent);
    proto.add_function(node.function);
    proto.add_inclusive(static_cast<double>(node.inclusive));
    proto.add_self(static_cast<double>(node.self));
  }
  proto.set_total(static_cast<double>(tree.total));
  proto.set_threshold(static_cast<double>(tree.threshold));
  return proto;
}

absl::StatusOr<CallTree> CallTreeFromProto(const timer::CallTreeProto& proto,
                                           const std::string& source) {
  auto invalid = [&source](const std::string& what) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, source.empty() ? "" : ": ", "call_tree: ", what));
  };
  const int size = proto.parent_size();
  if (proto.function_size() != size || proto.inclusive_size() != size ||
      proto.self_size() != size) {
    return invalid(absl::StrCat(
        "parent, function, inclusive and self must have one entry per "
        "node; got ",
        size, ", ", proto.function_size(), ", ", proto.inclusive_size(), ", ", proto.self_size()));
  }
  CallTree tree;
  // Files written before typed keys carry their text.
  for (const FunctionKeyProto& key : proto.keys()) tree.functions.push_back(FunctionKeyFromProto(key));
  if (proto.keys().empty()) {
    for (const std::string& text : proto.functions()) {
      tree.functions.push_back(FunctionKeyFromText(text));
    }
  }
  if (!ToCount(proto.total(), &tree.total) || !ToCount(proto.threshold(), &tree.threshold)) {
    return invalid("total and threshold must be whole non-negative numbers");
  }
  tree.nodes.resize(size);
  for (int i = 0; i < size; ++i) {
    CallTree::Node& node = tree.nodes[i];
    node.parent = proto.parent(i);
    node.function = proto.function(i);
    if ((i == 0) != (node.parent == -1) || node.parent >= i || node.parent < -1) {
      return invalid(absl::StrCat("node ", i, " has parent ", node.parent,
                                  "; expected -1 for node 0 alone and an earlier node otherwise"));
    }
    if (node.function < 0 || node.function >= static_cast<int>(tree.functions.size())) {
      return invalid(absl::StrCat("node ", i, " names function ", node.function, " of ",
                                  tree.functions.size()));
    }
    if (!ToCount(proto.inclusive(i), &node.inclusive) || !ToCount(proto.self(i), &node.self) ||
        node.self > node.inclusive) {
      return invalid(absl::StrCat("node ", i, " (", tree.functions[node.function].text(),
                                  "): inclusive and self must be whole non-negative numbers "
                                  "with self <= inclusive; they are ",
                                  absl::StrFormat("%.1f and %.1f", proto.inclusive(i),
                                                  proto.self(i))));
    }
  }
  return tree;
}

}  // namespace icount::timer
