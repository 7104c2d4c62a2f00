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

}  // namespace
}  // namespace icount::tools
