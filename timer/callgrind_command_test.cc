#include "timer/callgrind_command.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount {
namespace {

using ::testing::HasSubstr;

std::string MakeDirectory(const std::string& name) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  mkdir(path.c_str(), 0755);
  return path;
}

TEST(FindValgrindTest, MissingValgrindSaysWhatToInstall) {
  const std::string empty = MakeDirectory("no_valgrind");
  absl::StatusOr<std::string> valgrind = FindValgrindIn(empty);
  ASSERT_FALSE(valgrind.ok());
  EXPECT_EQ(valgrind.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(valgrind.status().message(),
              HasSubstr("valgrind is not installed (not found in " + empty + ")"));
  EXPECT_THAT(valgrind.status().message(), HasSubstr("install Debian's `valgrind` package"));
  EXPECT_THAT(valgrind.status().message(), HasSubstr("wall time still works"));
}

TEST(FindValgrindTest, TakesTheFirstExecutableOnTheSearchPath) {
  const std::string first = MakeDirectory("first");
  const std::string second = MakeDirectory("second");
  std::ofstream(first + "/valgrind") << "not executable\n";
  std::ofstream(second + "/valgrind") << "#!/bin/sh\n";
  chmod((second + "/valgrind").c_str(), 0755);
  absl::StatusOr<std::string> valgrind = FindValgrindIn(first + ":" + second);
  ASSERT_TRUE(valgrind.ok()) << valgrind.status();
  EXPECT_EQ(*valgrind, second + "/valgrind");
}

TEST(FindValgrindTest, FallsBackToUsrBin) {
  // ./bazelw installs valgrind; PATH without it still finds /usr/bin's.
  setenv("PATH", "/nonexistent", 1);
  absl::StatusOr<std::string> valgrind = FindValgrind();
  ASSERT_TRUE(valgrind.ok()) << valgrind.status();
  EXPECT_EQ(*valgrind, "/usr/bin/valgrind");
}

}  // namespace
}  // namespace icount
