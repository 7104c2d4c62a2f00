#include "base/runfiles.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "base/subprocess.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::base {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(RunfilesTreesOfTest, StartedFromAnotherBinarysRunfiles) {
  EXPECT_THAT(
      RunfilesTreesOf("/o/bin/tools/main.runfiles/icount/worker/worker", "/o/bin/worker/worker"),
      ElementsAre("/o/bin/tools/main.runfiles",
                  "/o/bin/tools/main.runfiles/icount/worker/worker.runfiles",
                  "/o/bin/worker/worker.runfiles"));
}

TEST(RunfilesTreesOfTest, StartedFromBazelBin) {
  EXPECT_THAT(RunfilesTreesOf("bazel-bin/tools/main", "/o/bin/tools/main"),
              ElementsAre("bazel-bin/tools/main.runfiles", "/o/bin/tools/main.runfiles"));
}

// A binary that this test's runfiles hold, started from them with an empty
// environment (as the runner starts a worker under valgrind), finds its
// runfiles: readlink of /proc/self/exe alone would lead to bazel-out.
TEST(FindRunfileTest, ABinaryStartedFromRunfilesWithNoEnvironmentFindsThem) {
  const std::string root = std::string(std::getenv("TEST_SRCDIR"));
  const std::string probe = root + "/icount/base/testing_runfiles_probe";
  absl::StatusOr<CommandResult> result =
      RunCommand({"/usr/bin/env", "-i", probe, "icount/base/runfiles_test.cc"});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_code, 0) << result->output;
  EXPECT_THAT(result->output, StartsWith(root + "/icount/base/runfiles_test.cc"));
}

TEST(FindRunfileTest, FindRunfilesListsEveryMatchInOrder) {
  const std::string root = std::string(std::getenv("TEST_SRCDIR"));
  std::vector<std::string> found = FindRunfiles("icount/base/runfiles_test.cc");
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found.front(), root + "/icount/base/runfiles_test.cc");
  EXPECT_THAT(FindRunfiles("icount/no/such/file"), ::testing::IsEmpty());
}

TEST(FindRunfileTest, AMissingFileSaysWhatAndHowToFix) {
  absl::StatusOr<std::string> path = FindRunfile("icount/no/such/file");
  ASSERT_FALSE(path.ok());
  EXPECT_THAT(std::string(path.status().message()), HasSubstr("icount/no/such/file"));
  EXPECT_THAT(std::string(path.status().message()), HasSubstr("data"));
}

}  // namespace
}  // namespace icount::base
