#include "timer/internal/unnamed_functions.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "timer/call_tree.h"
#include "timer/internal/call_tree_builder.h"
#include "timer/internal/callgrind_parser.h"

namespace icount::timer::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

// The measured block, in a program run from a scratch directory, calls two
// functions of libx.so that have no symbol (0x10 and 0x40); 0x10 calls
// 0x20, which calls the exported k, which calls 0x30.
constexpr char kDump[] = R"(# callgrind format
version: 1
creator: callgrind-3.19.0
events: Ir
ob=/tmp/icount-run-abc/worker
fl=main.c
fn=block
2 100
cob=/usr/lib/libx.so
cfi=???
cfn=0x0000000000000010
calls=1 1
2 1000
cob=/usr/lib/libx.so
cfi=???
cfn=0x0000000000000040
calls=1 1
2 500
ob=/usr/lib/libx.so
fl=???
fn=0x0000000000000010
1 200
cfn=0x0000000000000020
calls=1 1
1 800
fn=0x0000000000000020
1 300
cfn=k
calls=1 1
1 500
fn=k
1 100
cfn=0x0000000000000030
calls=1 1
1 400
fn=0x0000000000000030
1 400
fn=0x0000000000000040
1 500
totals: 1600
)";

const FunctionKey kUnknown("???", "(unknown in libx.so)", "/usr/lib/libx.so");
const FunctionKey kBlock("main.c", "block", "/build/worker");
const FunctionKey kK("???", "k", "/usr/lib/libx.so");

CallgrindProfile Parse() {
  absl::StatusOr<CallgrindProfile> profile =
      ParseCallgrindOutput(kDump, "dump", {{"/tmp/icount-run-abc/worker", "/build/worker"}});
  EXPECT_TRUE(profile.ok()) << profile.status();
  return *profile;
}

TEST(UnnamedFunctionsTest, TheParserGroupsAddressNamesByObjectAndRenamesObjects) {
  const CallgrindProfile profile = Parse();
  EXPECT_EQ(profile.exclusive.at(kBlock), 100);
  EXPECT_EQ(profile.unnamed_groups.size(), 4u);
  EXPECT_EQ(profile.unnamed_groups.at(FunctionKey("???", "0x0000000000000030", "/usr/lib/libx.so")),
            kUnknown);
  EXPECT_FALSE(profile.unnamed_groups.contains(kK));
}

TEST(UnnamedFunctionsTest, FlatCountsSumSelfAndDropInnerArcs) {
  const CallgrindProfile merged = MergeUnnamedFunctions(Parse());
  EXPECT_THAT(merged.exclusive,
              UnorderedElementsAre(Pair(kBlock, 100), Pair(kUnknown, 1400), Pair(kK, 100)));
  // 0x10 -> 0x20 is inside the merged function; 0x30, reached again
  // through k, counts again, as recursion does in callgrind_annotate.
  EXPECT_EQ(merged.inclusive.at(kUnknown), 1000 + 800 + 400 + 500 - 800);
  EXPECT_EQ(merged.inclusive.at(kK), 500);
  std::vector<std::string> arcs;
  for (const CallgrindProfile::CallArc& arc : merged.calls) {
    arcs.push_back(arc.caller.text() + " -> " + arc.callee.text() + " " +
                   std::to_string(arc.calls) + "x " + std::to_string(arc.inclusive));
  }
  EXPECT_THAT(arcs, ElementsAre(kUnknown.text() + " -> " + kK.text() + " 1x 500",
                                kK.text() + " -> " + kUnknown.text() + " 1x 400",
                                kBlock.text() + " -> " + kUnknown.text() + " 2x 1500"));
  EXPECT_EQ(merged.total, 1600);
}

TEST(UnnamedFunctionsTest, TheTreeHasOneFramePerObjectAndCallPath) {
  const CallTree tree = BuildCallTree(Parse());
  std::vector<std::string> frames;
  for (const CallTree::Node& node : tree.nodes) {
    frames.push_back(std::to_string(node.parent) + " " + tree.functions[node.function].text() + " " +
                     std::to_string(node.inclusive) + "/" + std::to_string(node.self));
  }
  // 0x10 and 0x40, both called by the block, are one frame; 0x20 (called
  // by 0x10) is folded into it; 0x30 stays below k.
  EXPECT_THAT(frames, ElementsAre("-1 " + kBlock.text() + " 1600/100",
                                  "0 " + kUnknown.text() + " 1500/1000",
                                  "1 " + kK.text() + " 500/100", "2 " + kUnknown.text() + " 400/400"));
  EXPECT_EQ(tree.total, 1600);
}

// BuildCallTree rounds each node's share of its function's cost, so an
// unnamed frame and the unnamed callee folded into it can own one
// instruction more than the frame's width; the merged frame keeps self <=
// inclusive, or its results would not read back (a Python Eager case's
// count was dropped so: self 87035, inclusive 87034).
TEST(UnnamedFunctionsTest, AFoldedFrameOwnsNoMoreThanItsWidth) {
  const FunctionKey address_10("???", "0x0000000000000010", "/usr/lib/libx.so");
  const FunctionKey address_20("???", "0x0000000000000020", "/usr/lib/libx.so");
  CallTree tree;
  tree.total = 1000;
  tree.threshold = 1;
  tree.functions = {kBlock, address_10, address_20};
  tree.nodes = {{-1, 0, 1000, 0}, {0, 1, 667, 334}, {1, 2, 334, 334}};
  const CallTree merged =
      MergeUnnamedNodes(tree, {{address_10, kUnknown}, {address_20, kUnknown}});
  ASSERT_EQ(merged.nodes.size(), 2u);
  EXPECT_EQ(merged.functions[merged.nodes[1].function], kUnknown);
  EXPECT_EQ(merged.nodes[1].inclusive, 667);
  EXPECT_EQ(merged.nodes[1].self, 667);
  absl::StatusOr<CallTree> read_back = CallTreeFromProto(CallTreeToProto(merged), "");
  EXPECT_TRUE(read_back.ok()) << read_back.status();
}

TEST(UnnamedFunctionsTest, AProfileWithoutUnnamedFunctionsIsUnchanged) {
  CallgrindProfile profile = Parse();
  profile.unnamed_groups.clear();
  const CallgrindProfile merged = MergeUnnamedFunctions(profile);
  EXPECT_EQ(merged.exclusive, profile.exclusive);
  EXPECT_EQ(merged.calls.size(), profile.calls.size());
  EXPECT_EQ(BuildCallTree(profile).nodes.size(), 6u);
}

}  // namespace
}  // namespace icount::timer::internal
