#include "timer/callgrind_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::timer {
namespace {

using ::testing::HasSubstr;

std::string MakeDirectory(const std::string& name) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  mkdir(path.c_str(), 0755);
  return path;
}

// What PadEnvironmentForStackLayout counts: strings with NULs, argv[0]
// twice, a pointer per entry and the two NULL ends.
size_t StackBytes(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  size_t bytes = argv[0].size() + 1 + 2 * sizeof(char*);
  for (const auto& list : {argv, env}) {
    for (const std::string& s : list) bytes += s.size() + 1 + sizeof(char*);
  }
  return bytes;
}

TEST(PadEnvironmentForStackLayoutTest, PadsToAWholePageWhateverTheLengths) {
  for (const std::string tmpdir : {"/tmp", "/tmp/a_much_longer_temporary_directory_name", ""}) {
    for (const std::string worker : {"/w", "/root/.cache/bazel/execroot/icount/bazel-out/worker"}) {
      std::vector<std::string> argv = {worker, "--scratch=" + tmpdir + "/icount-run-x"};
      std::vector<std::string> env = {"PATH=/usr/bin", "TMPDIR=" + tmpdir};
      PadEnvironmentForStackLayout(argv, env);
      ASSERT_EQ(env.size(), 3);
      EXPECT_THAT(env.back(), ::testing::StartsWith(std::string(kStackPadEnv) + "="));
      EXPECT_EQ(StackBytes(argv, env) % 4096, 0) << tmpdir << " " << worker;
    }
  }
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

TEST(CallgrindCommandTest, ToolOptionsThenFilesThenTheCommand) {
  absl::StatusOr<std::vector<std::string>> argv = CallgrindCommand({"/bin/true", "-x"}, "/out");
  ASSERT_TRUE(argv.ok()) << argv.status();
  const std::vector<std::string> options = CallgrindToolOptions();
  ASSERT_EQ(argv->size(), 1 + options.size() + 2 + 2);
  EXPECT_THAT((*argv)[0], HasSubstr("valgrind"));
  for (size_t i = 0; i < options.size(); ++i) EXPECT_EQ((*argv)[1 + i], options[i]);
  EXPECT_EQ((*argv)[1 + options.size()], "--callgrind-out-file=/out/callgrind.out.%p");
  EXPECT_EQ((*argv)[2 + options.size()], "--log-file=/out/valgrind.log");
  EXPECT_EQ((*argv)[3 + options.size()], "/bin/true");
  EXPECT_EQ(argv->back(), "-x");
  EXPECT_THAT(options, ::testing::Contains("--instr-atstart=no"));
  EXPECT_THAT(options, ::testing::Contains("--num-transtab-sectors=2"));
  EXPECT_THAT(options, ::testing::Contains("--vgdb=no"));
}

bool Exists(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

TEST(RemoveCallgrindFinalProfileTest, RemovesOnlyThatProcesssFinalProfile) {
  const std::string directory = MakeDirectory("final-profiles");
  for (const char* name : {"callgrind.out.123", "callgrind.out.123.1", "callgrind.out.1234"}) {
    std::ofstream(directory + "/" + name) << "x";
  }
  setenv(kCallgrindOutDirEnv, directory.c_str(), 1);
  RemoveCallgrindFinalProfile(123);
  RemoveCallgrindFinalProfile(99);  // none: nothing happens
  unsetenv(kCallgrindOutDirEnv);
  EXPECT_FALSE(Exists(directory + "/callgrind.out.123"));
  EXPECT_TRUE(Exists(directory + "/callgrind.out.123.1"));  // a dump stays
  EXPECT_TRUE(Exists(directory + "/callgrind.out.1234"));
}

TEST(CallgrindDumpPathTest, NamesTheDumpByTagAndRepeat) {
  EXPECT_EQ(CallgrindDumpPath("/tmp/d", "case-7", 0), "/tmp/d/callgrind.out.case-7.0");
  EXPECT_EQ(CallgrindDumpPath("/tmp/d", "case-7-baseline", 12),
            "/tmp/d/callgrind.out.case-7-baseline.12");
  char path[64];
  ASSERT_TRUE(FormatCallgrindDumpPath(path, sizeof(path), "/tmp/d", "case-7", 3));
  EXPECT_STREQ(path, "/tmp/d/callgrind.out.case-7.3");
  char small[16];
  EXPECT_FALSE(FormatCallgrindDumpPath(small, sizeof(small), "/tmp/d", "case-7", 3));
}

TEST(FormatCallgrindProcessFileTest, ADumpOrTheFinalProfileOfAPid) {
  char path[64];
  ASSERT_TRUE(FormatCallgrindProcessFile(path, sizeof(path), "/tmp/d", 123, 1));
  EXPECT_STREQ(path, "/tmp/d/callgrind.out.123.1");
  ASSERT_TRUE(FormatCallgrindProcessFile(path, sizeof(path), "/tmp/d", 123, 0));
  EXPECT_STREQ(path, "/tmp/d/callgrind.out.123");
  char small[16];
  EXPECT_FALSE(FormatCallgrindProcessFile(small, sizeof(small), "/tmp/d", 123, 1));
}

TEST(CallgrindOutDirectoryTest, TheEnvironmentElseTheWorkingDirectory) {
  setenv(kCallgrindOutDirEnv, "/some/where", 1);
  EXPECT_EQ(CallgrindOutDirectory(), "/some/where");
  unsetenv(kCallgrindOutDirEnv);
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
  EXPECT_EQ(CallgrindOutDirectory(), cwd);
}

TEST(ValgrindVersionTest, ReportsWhatValgrindSays) {
  setenv("PATH", "/usr/bin:/bin", 1);
  absl::StatusOr<std::string> version = ValgrindVersion();
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_THAT(*version, ::testing::StartsWith("valgrind-3."));
  EXPECT_EQ(version->find('\n'), std::string::npos);
}

TEST(ValgrindVersionTest, AValgrindThatFailsIsAnError) {
  const std::string broken = MakeDirectory("broken");
  std::ofstream(broken + "/valgrind") << "#!/bin/sh\necho 'no such option' >&2\nexit 1\n";
  chmod((broken + "/valgrind").c_str(), 0755);
  setenv("PATH", broken.c_str(), 1);
  absl::StatusOr<std::string> version = ValgrindVersion();
  ASSERT_FALSE(version.ok());
  EXPECT_THAT(version.status().message(), HasSubstr("--version failed: no such option"));
}

}  // namespace
}  // namespace icount::timer
