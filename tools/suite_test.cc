#include "tools/suite.h"

#include <sys/stat.h>

#include <string>
#include <vector>

#include "base/files.h"
#include "compare/node_check.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::tools {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

void Write(const std::string& path, const std::string& text) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    mkdir(path.substr(0, slash).c_str(), 0755);
  }
  ASSERT_TRUE(base::WriteFileAtomically(path, text).ok()) << path;
}

TEST(WallTimeDisturbancesTest, NamesEveryDamonMonitorThatIsOnAndItsSchemes) {
  const std::string sysfs = *base::MakeTemporaryDirectory("suite_test");
  EXPECT_TRUE(WallTimeDisturbances(sysfs).empty()) << "no DAMON at all";
  const std::string kdamonds = sysfs + "/kernel/mm/damon/admin/kdamonds";
  Write(kdamonds + "/0/state", "off\n");
  Write(kdamonds + "/1/state", "on\n");
  Write(kdamonds + "/1/contexts/0/schemes/0/action", "pageout\n");
  Write(kdamonds + "/1/contexts/0/schemes/1/action", "hugepage\n");
  const std::vector<std::string> found = WallTimeDisturbances(sysfs);
  ASSERT_EQ(found.size(), 1);
  EXPECT_THAT(found[0], HasSubstr("DAMON kdamond 1 is on (schemes: pageout, hugepage): "));
  EXPECT_THAT(found[0], HasSubstr("`echo off > " + kdamonds + "/1/state`"));
  base::RemoveDirectoryTree(sysfs);
}

TEST(RunSettingsTest, RecordWhatWallTimeRanBeside) {
  worker::WorkOrderProto timed;
  timed.set_wall_time(true);
  const std::map<std::string, std::string> settings = RunSettings({timed});
  ASSERT_EQ(settings.count("wall_time_disturbances"), 1);
  EXPECT_EQ(settings.count("valgrind"), 0) << "nothing was counted";
  const std::vector<std::string> here = WallTimeDisturbances();
  EXPECT_EQ(settings.at("wall_time_disturbances"), here.empty() ? "none found" : here[0]);
  EXPECT_TRUE(RunSettings({}).empty());
}

TEST(MakeOrdersTest, RehearsesTorchScriptCasesOnlyWhenAsked) {
  Suite suite;
  suite.artifacts_directory = "/artifacts";
  expand::SuiteCaseProto eager;
  eager.set_key("eager");
  expand::SuiteCaseProto scripted;
  scripted.set_key("scripted");
  scripted.set_torchscript_artifact("model");
  MeasureOptions measure;
  for (const worker::WorkOrderProto& order : MakeOrders(suite, {eager, scripted}, measure)) {
    EXPECT_FALSE(order.torchscript_rehearsal()) << order.id();
  }
  const std::map<std::string, std::string> unrehearsed =
      RunSettings(MakeOrders(suite, {eager, scripted}, measure));
  EXPECT_EQ(unrehearsed.count(compare::kTorchScriptCasesSetting), 0);
  EXPECT_THAT(unrehearsed.at("zygotes"), Not(HasSubstr("TorchScript")));

  measure.rehearse_torchscript = true;
  const std::vector<worker::WorkOrderProto> orders = MakeOrders(suite, {eager, scripted}, measure);
  ASSERT_EQ(orders.size(), 4u);  // counts and wall time of each
  for (const worker::WorkOrderProto& order : orders) {
    const bool scripted_case = order.case_key() == "scripted";
    EXPECT_EQ(order.torchscript_rehearsal(), scripted_case) << order.id();
    EXPECT_EQ(order.torchscript_artifact(), scripted_case ? "/artifacts/model.pt" : "")
        << order.id();
  }
  const std::map<std::string, std::string> settings = RunSettings(orders);
  ASSERT_EQ(settings.count(compare::kTorchScriptCasesSetting), 1);
  EXPECT_THAT(settings.at(compare::kTorchScriptCasesSetting), HasSubstr("rehearsal model"));
  EXPECT_THAT(settings.at("zygotes"), HasSubstr("TorchScript cases fork from another"));
}

// A worker's result that does not read back (here a count with no runs;
// for real, a call tree whose frame owned more than its width) is the
// case's failure, saying so: never a case shown without its count.
TEST(CollectResultsTest, AResultThatDoesNotReadBackIsAFailure) {
  std::vector<expand::SuiteCaseProto> cases(2);
  std::vector<worker::WorkOrderProto> orders(2);
  std::vector<worker::WorkerResultProto> results(2);
  for (int i = 0; i < 2; ++i) {
    cases[i].set_key(i == 0 ? "unreadable" : "readable");
    cases[i].set_definition_file("definitions/standard.cc");
    cases[i].set_definition_line(7);
    orders[i].set_case_key(cases[i].key());
    results[i].mutable_output()->add_callgrind()->set_number_per_run(i == 0 ? 0 : 1);
  }
  const SuiteResults collected = CollectResults(cases, orders, results);
  ASSERT_EQ(collected.file.failures.count("unreadable"), 1);
  EXPECT_THAT(collected.file.failures.at("unreadable"),
              HasSubstr("measure: the worker's results for it do not read back"));
  EXPECT_THAT(collected.file.failures.at("unreadable"),
              HasSubstr("instruction counts, repeat 1 of 1: number_per_run must be positive"));
  EXPECT_EQ(collected.counts_per_run.count("unreadable"), 0);
  EXPECT_EQ(collected.counts_per_run.count("readable"), 1);
  EXPECT_EQ(collected.file.failures.count("readable"), 0);
}

}  // namespace
}  // namespace icount::tools
