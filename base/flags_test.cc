#include "base/flags.h"

#include <cmath>
#include <string>

#include "gtest/gtest.h"

namespace icount::base {
namespace {

TEST(FlagsTest, DescribeVersionsListsWhatTheProgramNames) {
  EXPECT_EQ(DescribeVersions({{"timer", "1.2.3"}, {"worker", "0.4.0"}}),
            "icount libraries: timer 1.2.3, worker 0.4.0");
}

TEST(FlagsTest, RangeChecksNameTheFlagItsValueAndTheLimit) {
  EXPECT_TRUE(CheckFlagAtLeast("repeats", 1, 1).ok());
  EXPECT_EQ(CheckFlagAtLeast("repeats", 0, 1).message(), "--repeats=0: must be at least 1");
  EXPECT_EQ(CheckFlagAtLeast("jobs", -3, 0).message(), "--jobs=-3: must be at least 0");
  EXPECT_TRUE(CheckFlagPositive("min_run_time", 0.01).ok());
  EXPECT_EQ(CheckFlagPositive("min_run_time", -1).message(),
            "--min_run_time=-1: must be greater than 0");
  EXPECT_FALSE(CheckFlagPositive("timeout", 0).ok());
  EXPECT_FALSE(CheckFlagPositive("timeout", std::nan("")).ok());
}

TEST(FlagsTest, PositionalArgumentsAreRefusedByName) {
  std::string program = "demo", extra = "results.json";
  EXPECT_TRUE(CheckNoPositionalArguments({program.data()}).ok());
  EXPECT_EQ(CheckNoPositionalArguments({program.data(), extra.data()}).message(),
            "unexpected argument \"results.json\": this program takes only flags "
            "(--name=value; see --help)");
}

}  // namespace
}  // namespace icount::base
