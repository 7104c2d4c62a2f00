#include "compare/node_check.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "timer/cache_model.h"
#include "timer/node.h"
#include "timer/node_testutil.h"

namespace icount::compare {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

timer::NodeProto Node(const std::string& host, const std::string& cpu,
                      const std::string& valgrind = "valgrind-3.19.0") {
  return timer::TestNode(host, cpu, "AVX2", valgrind);
}

void AddCounts(timer::ResultsFile& file, const std::string& key, const timer::NodeProto& node) {
  timer::InstructionCounts c;
  c.number_per_run = 1;
  c.counts = {100};
  c.metadata = {{"case", key}, {timer::kNodeMetadataKey, timer::AddNode(file, node)}};
  file.instruction_counts.push_back(c);
}

void AddTimes(timer::ResultsFile& file, const std::string& key, const timer::NodeProto& node) {
  file.measurements.emplace_back(
      1, std::vector<double>{1e-6}, timer::TaskSpec(),
      std::map<std::string, std::string>{{"case", key},
                                         {timer::kNodeMetadataKey, timer::AddNode(file, node)}});
}

TEST(CountNodeWarningsTest, AlikeNodesGiveNoWarning) {
  timer::ResultsFile a, b;
  AddCounts(a, "x", Node("n1", "AMD EPYC"));
  AddCounts(b, "x", Node("n2", "AMD EPYC"));  // another host of the same kind
  EXPECT_THAT(CountNodeWarnings(a, b, "A", "B"), IsEmpty());
}

TEST(CountNodeWarningsTest, OneWarningPerPairOfNodesWithTheCasesAndWhy) {
  timer::ResultsFile a, b;
  for (const char* key : {"x", "y", "z"}) AddCounts(a, key, Node("n1", "AMD EPYC"));
  AddCounts(b, "x", Node("n2", "Intel Xeon"));
  AddCounts(b, "y", Node("n2", "Intel Xeon"));
  AddCounts(b, "z", Node("n1", "AMD EPYC", "valgrind-3.20.0"));
  AddCounts(b, "only in b", Node("n3", "Other"));
  const std::vector<std::string> warnings = CountNodeWarnings(a, b, "A", "B");
  ASSERT_THAT(warnings, SizeIs(2));
  EXPECT_THAT(warnings[0], HasSubstr("counts of 1 case were taken on nodes that differ "
                                     "(valgrind-3.19.0 vs valgrind-3.20.0)"));
  EXPECT_THAT(warnings[1],
              HasSubstr("counts of 2 cases were taken on nodes that differ "
                        "(CPU AMD EPYC vs Intel Xeon): A on n1 (AMD EPYC, 2 CPUs, ATen AVX2, "
                        "valgrind-3.19.0), B on n2 (Intel Xeon"));
}

TEST(CountNodeWarningsTest, OlderFilesCompareTheirMachines) {
  timer::ResultsFile a, b;
  AddCounts(a, "x", Node("n1", "AMD EPYC"));
  timer::InstructionCounts old;
  old.number_per_run = 1;
  old.counts = {100};
  old.metadata = {{"case", "x"}};
  b.instruction_counts.push_back(old);
  b.machine_node = timer::TestMachine("old", 8, "Intel Xeon");
  EXPECT_THAT(CountNodeWarnings(a, b, "A", "B"),
              ElementsAre(HasSubstr("(CPU AMD EPYC vs Intel Xeon)")));
}

TEST(CountSettingWarningsTest, NamesTheSideThatRehearsedTorchScript) {
  timer::ResultsFile a, b;
  AddCounts(a, "x", Node("n1", "AMD EPYC"));
  AddCounts(b, "x", Node("n1", "AMD EPYC"));
  EXPECT_THAT(CountSettingWarnings(a, b, "A", "B"), IsEmpty());
  b.settings[kTorchScriptCasesSetting] = "rehearsed";
  EXPECT_THAT(CountSettingWarnings(a, b, "A", "B"),
              ElementsAre(HasSubstr("B counted TorchScript cases after icount's TorchScript "
                                    "rehearsal and A did not (--rehearse_torchscript")));
  EXPECT_THAT(CountSettingWarnings(b, a, "A", "B"),
              ElementsAre(HasSubstr("A counted TorchScript cases after")));
  a.settings[kTorchScriptCasesSetting] = "rehearsed";
  EXPECT_THAT(CountSettingWarnings(a, b, "A", "B"), IsEmpty());
}

TEST(CountSettingWarningsTest, CyclesFromDifferentCacheModels) {
  timer::ResultsFile a, b;
  AddCounts(a, "x", Node("n1", "AMD EPYC"));
  AddCounts(b, "x", Node("n1", "AMD EPYC"));
  a.settings[timer::kCacheModelSetting] = timer::CacheModelDescription();
  EXPECT_THAT(CountSettingWarnings(a, b, "A", "B"), IsEmpty());  // B has no cycles
  b.settings[timer::kCacheModelSetting] = timer::CacheModelDescription();
  EXPECT_THAT(CountSettingWarnings(a, b, "A", "B"), IsEmpty());
  b.settings[timer::kCacheModelSetting] = "LL 4 MiB";
  EXPECT_THAT(CountSettingWarnings(a, b, "A", "B"),
              ElementsAre(HasSubstr("estimated cycles of A and B come from different cache "
                                    "models")));
}

TEST(CountSettingWarningsTest, CountsOfAnotherWorker) {
  timer::ResultsFile a, b;
  AddCounts(a, "x", Node("n1", "AMD EPYC"));
  AddCounts(b, "x", Node("n1", "AMD EPYC"));
  a.versions["worker"] = "0.17.0";
  EXPECT_THAT(CountSettingWarnings(a, b, "the baseline", "this run"), IsEmpty());  // unknown
  b.versions["worker"] = "0.17.0";
  b.versions["timer"] = "0.19.0";
  EXPECT_THAT(CountSettingWarnings(a, b, "the baseline", "this run"), IsEmpty());
  b.versions["worker"] = "0.18.0";
  EXPECT_THAT(CountSettingWarnings(a, b, "the baseline", "this run"),
              ElementsAre(HasSubstr("the baseline was counted by icount's worker 0.17.0 and "
                                    "this run by worker 0.18.0 (versions \"worker\")")));
}

TEST(CountSettingWarningsTest, CountsOfAnotherToolchain) {
  timer::ResultsFile a, b;
  AddCounts(a, "x", Node("n1", "AMD EPYC"));
  AddCounts(b, "x", Node("n1", "AMD EPYC"));
  a.settings[kToolchainSetting] = "Python 3.11.2, g++ 12.2.0, c++17";
  EXPECT_THAT(CountSettingWarnings(a, b, "A", "B"), IsEmpty());  // B does not say
  b.settings[kToolchainSetting] = "Python 3.11.2, g++ 12.2.0, c++17";
  EXPECT_THAT(CountSettingWarnings(a, b, "A", "B"), IsEmpty());
  b.settings[kToolchainSetting] = "Python 3.13.5, c++ 14.2.0, c++17";
  EXPECT_THAT(CountSettingWarnings(a, b, "A", "B"),
              ElementsAre(HasSubstr("A was built and counted with Python 3.11.2, g++ 12.2.0, "
                                    "c++17 and B with Python 3.13.5, c++ 14.2.0, c++17 (settings "
                                    "\"toolchain\")")));
}

TEST(CountSettingWarningsTest, OnlyWhenBothFilesHaveCounts) {
  timer::ResultsFile a, b;
  AddTimes(a, "x", Node("n1", "AMD EPYC"));
  AddCounts(b, "x", Node("n1", "AMD EPYC"));
  b.settings[kTorchScriptCasesSetting] = "rehearsed";
  EXPECT_THAT(CountSettingWarnings(a, b, "A", "B"), IsEmpty());
}

TEST(CasesTimedOnDifferentHostsTest, NamesTheCasesAndTheHosts) {
  timer::ResultsFile a, b;
  AddTimes(a, "x", Node("n1", "AMD EPYC", ""));
  AddTimes(a, "x", Node("n1", "AMD EPYC", ""));
  AddTimes(a, "y", Node("n1", "AMD EPYC", ""));
  AddTimes(b, "x", Node("n1", "AMD EPYC", ""));
  AddTimes(b, "x", Node("n2", "AMD EPYC", ""));  // one round elsewhere
  AddTimes(b, "y", Node("n1", "AMD EPYC", ""));
  std::vector<std::string> why;
  EXPECT_THAT(CasesTimedOnDifferentHosts(a, b, "A", "B", &why), ElementsAre("x"));
  EXPECT_THAT(why,
              ElementsAre("wall time of 1 case was taken on different hosts: A on n1, B on n2"));
}

TEST(CountSettingWarningsTest, CountsOfAnotherLibTorch) {
  timer::ResultsFile a, b;
  AddCounts(a, "x", Node("n1", "AMD EPYC"));
  AddCounts(b, "x", Node("n1", "AMD EPYC"));
  const std::string debian = "torch 1.13.0 (Debian's system install) at /usr";
  a.settings = {{kLibTorchSetting, debian + " (Debian's default)"},
                {kLibTorchInstallSetting, debian}};
  EXPECT_THAT(CountSettingWarnings(a, b, "A", "B"), IsEmpty());  // B does not say
  b.settings = a.settings;
  EXPECT_THAT(CountSettingWarnings(a, b, "A", "B"), IsEmpty());
  // The same directory found another way is the same LibTorch...
  const std::string directory = "torch 2.1.0 (LibTorch directory) at /opt/lt";
  a.settings = {{kLibTorchSetting, directory + ", found by --libtorch"},
                {kLibTorchInstallSetting, directory},
                {kLibTorchFingerprintSetting, "f1"}};
  b.settings = a.settings;
  b.settings[kLibTorchSetting] = directory + ", found by --env";
  EXPECT_THAT(CountSettingWarnings(a, b, "the baseline", "this run"), IsEmpty());
  // ...unless its files changed.
  b.settings[kLibTorchFingerprintSetting] = "f2";
  EXPECT_THAT(CountSettingWarnings(a, b, "the baseline", "this run"),
              ElementsAre(AllOf(HasSubstr("the baseline counted torch 2.1.0 (LibTorch directory) "
                                          "at /opt/lt, found by --libtorch and this run counted"),
                                HasSubstr("may come from the LibTorch, not the code"))));
  b.settings = {{kLibTorchInstallSetting, debian}};
  EXPECT_THAT(CountSettingWarnings(a, b, "A", "B"), ElementsAre(HasSubstr("B counted " + debian)));
}

}  // namespace
}  // namespace icount::compare
