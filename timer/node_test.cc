#include "timer/node.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "timer/node_testutil.h"

namespace icount::timer {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A node of the same kind as the others, with its capability and valgrind.
timer::NodeProto Node(const std::string& host, const std::string& capability,
                      const std::string& valgrind = "valgrind-3.19.0") {
  return TestNode(host, "AMD EPYC", capability, valgrind);
}

TEST(AddNodeTest, OneIdPerDistinctNodeNamedAfterItsHost) {
  ResultsFile results;
  EXPECT_EQ(AddNode(results, Node("n1", "AVX2")), "n1");
  EXPECT_EQ(AddNode(results, Node("n1", "AVX2")), "n1");
  EXPECT_EQ(AddNode(results, Node("n2", "AVX2")), "n2");
  // The same host, timed natively (no valgrind, another capability).
  EXPECT_EQ(AddNode(results, Node("n1", "AVX512", "")), "n1#2");
  EXPECT_EQ(AddNode(results, Node("n1", "AVX512", "")), "n1#2");
  EXPECT_EQ(results.nodes.size(), 3);
  EXPECT_EQ(AddNode(results, timer::NodeProto()), "unknown host");
}

TEST(AddNodeTest, NodesSurviveAResultsFile) {
  ResultsFile results;
  InstructionCounts counts;
  counts.number_per_run = 1;
  counts.counts = {10};
  counts.metadata[kNodeMetadataKey] = AddNode(results, Node("n1", "AVX2"));
  results.instruction_counts.push_back(counts);
  absl::StatusOr<ResultsFile> read = ParseResultsJson(ResultsToJson(results), "test");
  ASSERT_TRUE(read.ok()) << read.status();
  const timer::NodeProto node = NodeOfCase(*read, read->instruction_counts[0].metadata);
  EXPECT_EQ(DescribeNode(node), "n1 (AMD EPYC, 2 CPUs, ATen AVX2, valgrind-3.19.0)");
}

TEST(NodeOfCaseTest, OlderFilesFallBackToTheMachine) {
  // Files older than timer 0.6 have no nodes, and older than 0.17 their
  // machine only for people: the reader gives it typed.
  absl::StatusOr<ResultsFile> results = ParseResultsJson(
      R"({"machine": "box, 4 CPUs, Intel(R) Xeon(R) CPU @ 2.20GHz",
          "settings": {"valgrind": "valgrind-3.19.0"}})",
      "older.json");
  ASSERT_TRUE(results.ok()) << results.status();
  const timer::NodeProto node = NodeOfCase(*results, {{"case", "x"}});
  EXPECT_EQ(node.host(), "box");
  EXPECT_EQ(node.cpus(), 4);
  EXPECT_EQ(node.cpu_model(), "Intel(R) Xeon(R) CPU @ 2.20GHz");
  EXPECT_EQ(node.valgrind(), "valgrind-3.19.0");
  EXPECT_EQ(node.aten_cpu_capability(), "");
  // A merged file of several machines names no host.
  results = ParseResultsJson(R"({"machine": "a, 2 CPUs, X; b, 2 CPUs, Y"})", "merged.json");
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ(NodeOfCase(*results, {}).host(), "");
  EXPECT_EQ(NodeOfCase(*results, {}).cpu_model(), "");
  EXPECT_FALSE(DifferentHosts(NodeOfCase(*results, {}), NodeOfCase(*results, {{"node", "x"}})));
}

TEST(ThisMachineTest, IsDescribedAsResultsFilesDescribeIt) {
  timer::NodeProto machine = ThisMachine();
  EXPECT_FALSE(machine.host().empty());
  EXPECT_GT(machine.cpus(), 0);
  machine.set_host("bench-7");
  machine.set_cpus(2);
  machine.set_cpu_model("AMD EPYC");
  machine.set_cpuid("family 25, model 17, stepping 1");
  EXPECT_EQ(DescribeMachine(machine), "bench-7, 2 CPUs, AMD EPYC (family 25, model 17, stepping 1)");
  machine.clear_cpuid();
  EXPECT_EQ(DescribeMachine(machine), "bench-7, 2 CPUs, AMD EPYC");
}

TEST(CountRelevantDifferencesTest, NamesWhatCanChangeCounts) {
  EXPECT_THAT(CountRelevantDifferences(Node("a", "AVX2"), Node("b", "AVX2")), IsEmpty());
  EXPECT_THAT(
      CountRelevantDifferences(Node("a", "AVX2"), Node("a", "AVX512", "valgrind-3.20.0")),
      ElementsAre("ATen's CPU capability AVX2 vs AVX512", "valgrind-3.19.0 vs valgrind-3.20.0"));
  timer::NodeProto intel = Node("b", "AVX2");
  intel.set_cpu_model("Intel Xeon");
  EXPECT_THAT(CountRelevantDifferences(Node("a", "AVX2"), intel),
              ElementsAre("CPU AMD EPYC vs Intel Xeon"));
  // One name, CPUs a generation apart.
  timer::NodeProto zen2 = Node("a", "AVX2");
  zen2.set_cpuid("family 23, model 49, stepping 0");
  timer::NodeProto zen5 = Node("b", "AVX2");
  zen5.set_cpuid("family 26, model 2, stepping 1");
  EXPECT_THAT(
      CountRelevantDifferences(zen2, zen5),
      ElementsAre("CPUID family 23, model 49, stepping 0 vs family 26, model 2, stepping 1"));
  EXPECT_EQ(DescribeNode(zen5),
            "b (AMD EPYC, family 26, model 2, stepping 1, 2 CPUs, ATen AVX2, valgrind-3.19.0)");
  // Unknown CPUID on one side (files before timer 0.14): not a difference.
  EXPECT_THAT(CountRelevantDifferences(Node("a", "AVX2"), zen5), IsEmpty());
  // Unknown on one side: not a difference (older files).
  EXPECT_THAT(CountRelevantDifferences(Node("a", ""), Node("b", "AVX512", "")), IsEmpty());
}

TEST(DifferentHostsTest, OnlyKnownHostsDiffer) {
  EXPECT_FALSE(DifferentHosts(Node("a", "AVX2"), Node("a", "AVX512", "")));
  EXPECT_TRUE(DifferentHosts(Node("a", "AVX2"), Node("b", "AVX2")));
  EXPECT_FALSE(DifferentHosts(Node("a", "AVX2"), timer::NodeProto()));
}

}  // namespace
}  // namespace icount::timer
