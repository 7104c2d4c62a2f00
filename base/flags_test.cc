#include "base/flags.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

ABSL_FLAG(int, flags_test_shards, 0, "A flag of this file's section.");
ABSL_FLAG(bool, flags_test_self_check, false, "A flag for checking icount itself.");
ABSL_FLAG(std::string, flags_test_source, "", "A flag that takes a file.");

ICOUNT_FLAG_SECTION("Sharding the test");

namespace icount::base {
namespace {

TEST(FlagsTest, DescribeVersionsListsWhatTheProgramNames) {
  EXPECT_EQ(DescribeVersions({{"timer", "1.2.3"}, {"worker", "0.4.0"}}),
            "icount libraries: timer 1.2.3, worker 0.4.0");
}

// This file's flags under its section, a self check apart; the section
// named once, whatever other files' flags the binary links.
TEST(FlagsTest, HelpPutsAFilesFlagsUnderItsSection) {
  const std::string help = HelpText("Tests.", {{"flags_test_self_check"}});
  EXPECT_THAT(help, ::testing::HasSubstr("\nSharding the test:\n  --flags_test_shards=0\n"
                                         "      A flag of this file's section.\n"));
  EXPECT_THAT(help, ::testing::HasSubstr("\nFor checking icount itself:\n"
                                         "  --flags_test_self_check=false\n"));
  EXPECT_EQ(help.find("Sharding the test:"), help.rfind("Sharding the test:"));
  EXPECT_LT(help.find("Sharding the test:"), help.find("For checking icount itself:"));
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
  EXPECT_EQ(CheckFlagPositive("min_run_time", std::numeric_limits<double>::infinity()).message(),
            "--min_run_time=inf: must be a finite number");
}

TEST(FlagsTest, PositionalArgumentsAreRefusedByName) {
  std::string program = "demo", extra = "results.json";
  EXPECT_TRUE(CheckNoPositionalArguments({program.data()}).ok());
  EXPECT_EQ(CheckNoPositionalArguments({program.data(), extra.data()}).message(),
            "unexpected argument \"results.json\": this program takes only flags "
            "(--name=value; see --help)");
}

// A flag counts as set when it holds another value than its default, not
// when it was named: set back to the default, it is accepted again.
TEST(FlagsTest, AFlagAtItsDefaultIsNotRefused) {
  EXPECT_TRUE(RefuseUnusedFlags({"flags_test_shards"}, true, "is unused").ok());
  absl::SetFlag(&FLAGS_flags_test_shards, 4);
  EXPECT_EQ(RefuseUnusedFlags({"flags_test_shards"}, true, "is unused").message(),
            "--flags_test_shards is unused");
  absl::SetFlag(&FLAGS_flags_test_shards, 0);
  EXPECT_TRUE(RefuseUnusedFlags({"flags_test_shards"}, true, "is unused").ok());
  // A name this program does not define is never set.
  EXPECT_TRUE(RefuseUnusedFlags({"no_such_flag"}, true, "is unused").ok());
}

TEST(FlagsTest, UnusedFlagsAreRefusedByTheFirstSet) {
  EXPECT_TRUE(RefuseUnusedFlags({"flags_test_shards"}, true, "is unused").ok());
  absl::SetFlag(&FLAGS_flags_test_self_check, true);
  absl::SetFlag(&FLAGS_flags_test_shards, 2);
  EXPECT_TRUE(RefuseUnusedFlags({"flags_test_shards"}, false, "is unused").ok());
  EXPECT_EQ(RefuseUnusedFlags({"flags_test_source", "flags_test_self_check", "flags_test_shards"},
                              true, "is unused here: drop it")
                .message(),
            "--flags_test_self_check is unused here: drop it");
  absl::SetFlag(&FLAGS_flags_test_self_check, false);
  absl::SetFlag(&FLAGS_flags_test_shards, 0);
}

// CheckNoFlagGivenTwice on a command line written as one string.
absl::Status CheckOnce(std::vector<std::string> arguments) {
  arguments.insert(arguments.begin(), "demo");
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  return CheckNoFlagGivenTwice(static_cast<int>(argv.size()), argv.data());
}

TEST(FlagsTest, AFlagGivenTwiceIsRefusedWithBothSettings) {
  EXPECT_EQ(CheckOnce({"--flags_test_source=a.json", "--flags_test_source=b.json"}).message(),
            "--flags_test_source is given twice (--flags_test_source=a.json, then "
            "--flags_test_source=b.json): it takes one value, and the second would replace "
            "the first; give it once");
  EXPECT_EQ(CheckOnce({"--flags_test_shards", "4", "-flags_test_shards=2"}).message(),
            "--flags_test_shards is given twice (--flags_test_shards 4, then "
            "-flags_test_shards=2): it takes one value, and the second would replace the "
            "first; give it once");
  EXPECT_FALSE(CheckOnce({"--flags_test_self_check", "--noflags_test_self_check"}).ok());
}

TEST(FlagsTest, FlagsGivenOnceAndWhatFollowsDoubleDashPass) {
  EXPECT_TRUE(CheckOnce({}).ok());
  EXPECT_TRUE(CheckOnce({"--flags_test_source=a.json", "--flags_test_shards=2",
                         "--noflags_test_self_check"})
                  .ok());
  // A value that looks like a flag is the value of "--name value".
  EXPECT_TRUE(CheckOnce({"--flags_test_source", "--flags_test_source=x"}).ok());
  EXPECT_TRUE(CheckOnce({"--flags_test_source", "--flags_test_shards=2", "--flags_test_shards=3"})
                  .ok());
  EXPECT_TRUE(CheckOnce({"--flags_test_shards=2", "--", "--flags_test_shards=3"}).ok());
  // Unknown flags are abseil's to report.
  EXPECT_TRUE(CheckOnce({"--no_such_flag=1", "--no_such_flag=2"}).ok());
}

}  // namespace
}  // namespace icount::base
