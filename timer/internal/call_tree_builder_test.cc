#include "timer/internal/call_tree_builder.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/runfiles_testutil.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "timer/call_tree.h"
#include "timer/internal/callgrind_parser.h"

namespace icount::timer::internal {
namespace {

// A dump as a client request leaves it: nothing calls the block loop (it
// was running when collection began, in a call to begin that was running
// too: calls=0); the block calls f and h 100 times each; f and h both call
// g (g's cost is shared out by the calls into it); g calls a cheap helper.
// done() was called uncollected: no cost, no node.
constexpr char kDump[] = R"(# callgrind format
version: 1
creator: callgrind-3.19.0
events: Ir
fl=main.c
fn=done
7 0
fn=begin
8 5
fn=block
cfn=begin
calls=0 8
2 5
2 30
cfn=f
calls=100 3
2 6000
cfn=h
calls=100 4
2 4000
fn=f
3 2000
cfn=g
calls=100 5
3 4000
fn=h
4 1000
cfn=g
calls=300 5
4 3000
fn=g
5 6993
cfn=tiny
calls=7 6
5 7
fn=tiny
6 7
totals: 10035
)";

struct Row {
  int depth;
  std::string function;
  int64_t inclusive;
  int64_t self;
};

std::vector<Row> Rows(const CallTree& tree) {
  std::vector<Row> rows;
  std::vector<int> depth(tree.nodes.size(), 0);
  for (size_t i = 0; i < tree.nodes.size(); ++i) {
    const CallTree::Node& node = tree.nodes[i];
    if (node.parent >= 0) depth[i] = depth[node.parent] + 1;
    rows.push_back({depth[i], tree.functions[node.function].text(), node.inclusive, node.self});
  }
  return rows;
}

MATCHER_P4(IsRow, depth, function, inclusive, self, "") {
  return arg.depth == depth && arg.function == function && arg.inclusive == inclusive &&
         arg.self == self;
}

CallgrindProfile Parse(const char* text) {
  absl::StatusOr<CallgrindProfile> profile = ParseCallgrindOutput(text, "dump");
  EXPECT_TRUE(profile.ok()) << profile.status();
  return *profile;
}

TEST(CallTreeBuilderTest, StartsAtTheMeasuredBlockAndSharesCalleesByCaller) {
  const CallTree tree = BuildCallTree(Parse(kDump));
  EXPECT_EQ(tree.total, 10035);
  EXPECT_EQ(tree.threshold, 10);  // 0.1% of the block's 10035: begin (5) is left out
  // g's 7000 are 4000 from f and 3000 from h: each copy gets its share of
  // g's self cost; tiny (7) is below the threshold, a gap under g.
  EXPECT_THAT(Rows(tree), testing::ElementsAre(
                              IsRow(0, "main.c:block", 10035, 30), IsRow(1, "main.c:f", 6000, 2000),
                              IsRow(2, "main.c:g", 4000, 3996), IsRow(1, "main.c:h", 4000, 1000),
                              IsRow(2, "main.c:g", 3000, 2997)));
}

TEST(CallTreeBuilderTest, KeepsCheapCallsWithALowerThreshold) {
  const CallTree tree = BuildCallTree(Parse(kDump), {.min_fraction = 1e-4});
  EXPECT_EQ(tree.threshold, 1);
  EXPECT_THAT(Rows(tree), testing::Contains(IsRow(3, "main.c:tiny", 4, 4)));
}

TEST(CallTreeBuilderTest, RaisesTheThresholdUntilTheTreeFits) {
  const CallTree tree = BuildCallTree(Parse(kDump), {.min_fraction = 1e-4, .max_nodes = 3});
  EXPECT_LE(tree.nodes.size(), 3u);
  // 1 doubled until the tree fits: at 4096, g and h (4000 each) are gone.
  EXPECT_EQ(tree.threshold, 4096);
  EXPECT_THAT(Rows(tree), testing::ElementsAre(IsRow(0, "main.c:block", 10035, 30),
                                               IsRow(1, "main.c:f", 6000, 2000)));
}

TEST(CallTreeBuilderTest, FoldsRecursionIntoTheFunction) {
  // f calls itself (callgrind's f'2 levels collapse to one name here).
  const CallTree tree = BuildCallTree(Parse(R"(events: Ir
fl=a.c
fn=block
1 10
cfn=f
calls=1 2
1 1000
fn=f
2 600
cfn=f
calls=1 2
2 400
totals: 610
)"));
  EXPECT_THAT(Rows(tree),
              testing::ElementsAre(IsRow(0, "a.c:block", 1010, 10), IsRow(1, "a.c:f", 1000, 1000)));
}

TEST(CallTreeBuilderTest, EmptyProfileGivesAnEmptyTree) {
  EXPECT_TRUE(BuildCallTree(CallgrindProfile()).empty());
}

TEST(CallTreeBuilderTest, RoundTripsThroughItsProto) {
  const CallTree tree = BuildCallTree(Parse(kDump));
  absl::StatusOr<CallTree> back = CallTreeFromProto(CallTreeToProto(tree), "x");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->functions, tree.functions);
  EXPECT_EQ(back->total, tree.total);
  ASSERT_EQ(back->nodes.size(), tree.nodes.size());
  for (size_t i = 0; i < tree.nodes.size(); ++i) {
    EXPECT_EQ(back->nodes[i].parent, tree.nodes[i].parent);
    EXPECT_EQ(back->nodes[i].inclusive, tree.nodes[i].inclusive);
    EXPECT_EQ(back->nodes[i].self, tree.nodes[i].self);
  }
}

TEST(CallTreeBuilderTest, ProtoReaderRefusesBrokenTrees) {
  timer::CallTreeProto proto = CallTreeToProto(BuildCallTree(Parse(kDump)));
  timer::CallTreeProto orphan = proto;
  orphan.set_parent(2, 4);  // a parent after its child
  EXPECT_THAT(std::string(CallTreeFromProto(orphan, "r.json").status().message()),
              testing::HasSubstr("r.json: call_tree: node 2 has parent 4"));
  timer::CallTreeProto short_arrays = proto;
  short_arrays.mutable_self()->RemoveLast();
  EXPECT_FALSE(CallTreeFromProto(short_arrays, "r.json").ok());
  timer::CallTreeProto fractional = proto;
  fractional.set_inclusive(1, 2.5);
  EXPECT_FALSE(CallTreeFromProto(fractional, "r.json").ok());
  timer::CallTreeProto bad_function = proto;
  bad_function.set_function(1, 99);
  EXPECT_FALSE(CallTreeFromProto(bad_function, "r.json").ok());
}

// Real dumps of the suite's `torch.add` case 0 (worker, 100 runs): C++
// (the harness's block loop calls at::add_) and Python (the interpreter
// call that runs the statement).
CallgrindProfile ParseTestdata(const std::string& name) {
  absl::StatusOr<CallgrindProfile> profile =
      ParseCallgrindFile(base::TestRunfile(absl::StrCat("icount/timer/testdata/", name)));
  EXPECT_TRUE(profile.ok()) << profile.status();
  return profile.ok() ? *profile : CallgrindProfile();
}

// Costs below a node add up to at most its own (rounding aside).
void ExpectConsistent(const CallTree& tree) {
  std::vector<int64_t> children(tree.nodes.size(), 0);
  std::vector<int> count(tree.nodes.size(), 0);
  for (size_t i = 1; i < tree.nodes.size(); ++i) {
    children[tree.nodes[i].parent] += tree.nodes[i].inclusive;
    ++count[tree.nodes[i].parent];
  }
  for (size_t i = 0; i < tree.nodes.size(); ++i) {
    EXPECT_LE(children[i] + tree.nodes[i].self, tree.nodes[i].inclusive + count[i] + 1)
        << tree.functions[tree.nodes[i].function].text();
  }
}

TEST(CallTreeBuilderTest, RealCppDumpStartsAtTheBlockLoop) {
  const CallgrindProfile profile = ParseTestdata("add_cpp.callgrind.out");
  const CallTree tree = BuildCallTree(profile);
  ASSERT_FALSE(tree.empty());
  EXPECT_THAT(tree.functions[tree.nodes[0].function].function(), testing::HasSubstr("icount_case_"));
  EXPECT_EQ(tree.nodes[0].inclusive, profile.total);  // the whole measured region
  EXPECT_THAT(tree.functions[tree.nodes[1].function].function(),
              testing::HasSubstr("at::_ops::add__Scalar::call"));
  EXPECT_GE(tree.nodes[1].inclusive, profile.total * 99 / 100);
  EXPECT_LE(tree.nodes.size(), 400u);
  ExpectConsistent(tree);
}

TEST(CallTreeBuilderTest, RealPythonDumpStartsAtTheInterpreterCall) {
  const CallgrindProfile profile = ParseTestdata("add_python.callgrind.out");
  const CallTree tree = BuildCallTree(profile);
  ASSERT_FALSE(tree.empty());
  EXPECT_THAT(tree.functions[tree.nodes[0].function].function(),
              testing::HasSubstr("PyObject_Vectorcall"));
  EXPECT_GE(tree.nodes[0].inclusive, profile.total * 99 / 100);
  bool add = false;
  for (const CallTree::Node& node : tree.nodes) {
    add |= absl::StrContains(tree.functions[node.function].function(), "at::_ops::add_");
  }
  EXPECT_TRUE(add);
  ExpectConsistent(tree);
}

TEST(CallTreeBuilderTest, TheSameDumpGivesTheSameTree) {
  const CallgrindProfile profile = ParseTestdata("add_python.callgrind.out");
  const CallTree a = BuildCallTree(profile);
  const CallTree b = BuildCallTree(ParseTestdata("add_python.callgrind.out"));
  EXPECT_EQ(CallTreeToProto(a).SerializeAsString(), CallTreeToProto(b).SerializeAsString());
}

}  // namespace
}  // namespace icount::timer::internal
