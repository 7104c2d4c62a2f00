#include "base/runfiles.h"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/files.h"
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
// This test's own repository in its runfiles: "icount" in a WORKSPACE
// build, "_main" under bzlmod (Bazel sets TEST_WORKSPACE to it).
std::string OwnTree() {
  return absl::StrCat(std::getenv("TEST_SRCDIR"), "/", std::getenv("TEST_WORKSPACE"));
}

TEST(FindRunfileTest, ABinaryStartedFromRunfilesWithNoEnvironmentFindsThem) {
  const std::string probe = OwnTree() + "/base/testing_runfiles_probe";
  absl::StatusOr<CommandResult> result =
      RunCommand({"/usr/bin/env", "-i", probe, "icount/base/runfiles_test.cc"});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_code, 0) << result->output;
  EXPECT_THAT(result->output, StartsWith(OwnTree() + "/base/runfiles_test.cc"));
}

TEST(FindRunfileTest, FindRunfilesListsEveryMatchInOrder) {
  std::vector<std::string> found = FindRunfiles("icount/base/runfiles_test.cc");
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found.front(), OwnTree() + "/base/runfiles_test.cc");
  EXPECT_THAT(FindRunfiles("icount/no/such/file"), ::testing::IsEmpty());
}

TEST(FindRunfileTest, AMissingFileSaysWhatAndHowToFix) {
  absl::StatusOr<std::string> path = FindRunfile("icount/no/such/file");
  ASSERT_FALSE(path.ok());
  EXPECT_THAT(std::string(path.status().message()), HasSubstr("icount/no/such/file"));
  EXPECT_THAT(std::string(path.status().message()), HasSubstr("data"));
}

// Under bzlmod the tree holds repositories by canonical name, and its
// _repo_mapping says which ("_main" for the root module, "icount~" for a
// dependency); the path asked for keeps the apparent name.
TEST(FindRunfileTest, ARepositoryIsFoundByItsCanonicalNameUnderBzlmod) {
  const std::string tree = std::string(std::getenv("TEST_TMPDIR")) + "/bzlmod.runfiles";
  ASSERT_TRUE(MakeDirectories(tree + "/icount~/timer").ok());
  ASSERT_TRUE(WriteFileAtomically(tree + "/icount~/timer/callgrind_runner", "").ok());
  ASSERT_TRUE(WriteFileAtomically(tree + "/_repo_mapping",
                                  ",consumer,_main\n,icount,icount~\nicount~,icount,icount~\n")
                  .ok());
  const char* previous = std::getenv("RUNFILES_DIR");
  const std::string kept = previous != nullptr ? previous : "";
  setenv("RUNFILES_DIR", tree.c_str(), 1);
  absl::StatusOr<std::string> found = FindRunfile("icount/timer/callgrind_runner");
  absl::StatusOr<std::string> missing = FindRunfile("consumer/timer/callgrind_runner");
  if (previous != nullptr) {
    setenv("RUNFILES_DIR", kept.c_str(), 1);
  } else {
    unsetenv("RUNFILES_DIR");
  }
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, tree + "/icount~/timer/callgrind_runner");
  EXPECT_FALSE(missing.ok()) << *missing;
}

// A tree named relative to the working directory (a tool started as
// bazel-bin/tools/X from the checkout) gives absolute paths: they are
// handed to processes that start in other directories.
TEST(FindRunfileTest, ARelativeTreeGivesAnAbsolutePath) {
  const std::string tmp = std::getenv("TEST_TMPDIR");
  ASSERT_TRUE(MakeDirectories(tmp + "/rel/x.runfiles/icount/environment").ok());
  ASSERT_TRUE(WriteFileAtomically(tmp + "/rel/x.runfiles/icount/environment/enter_root", "").ok());
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
  ASSERT_EQ(chdir((tmp + "/rel").c_str()), 0);
  const char* previous = std::getenv("RUNFILES_DIR");
  const std::string kept = previous != nullptr ? previous : "";
  setenv("RUNFILES_DIR", "x.runfiles", 1);
  absl::StatusOr<std::string> found = FindRunfile("icount/environment/enter_root");
  if (previous != nullptr) {
    setenv("RUNFILES_DIR", kept.c_str(), 1);
  } else {
    unsetenv("RUNFILES_DIR");
  }
  ASSERT_EQ(chdir(cwd), 0);
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, RealPath(tmp + "/rel").value() + "/x.runfiles/icount/environment/enter_root");
}

}  // namespace
}  // namespace icount::base
