#include "environment/suite_build.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::environment {
namespace {

using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;

// A stand-in for Bazel: logs each command line, prints a progress line for
// `build` (failing when told to) and a bin directory for `info bazel-bin`.
struct FakeBazel {
  std::string directory = base::MakeTemporaryDirectory("fake-bazel").value();
  std::string log = directory + "/commands.log";
  std::string path = directory + "/bazel";
  std::string bin = directory + "/bazel-bin";

  FakeBazel() {
    mkdir(bin.c_str(), 0755);
    EXPECT_TRUE(base::WriteFileAtomically(path, absl::StrCat(R"(#!/bin/sh
echo "${BAZELW_SKIP_PACKAGE_CHECK:+(no package check) }$PWD $*" >> )",
                                                             log, R"(
case " $* " in
  *" build "*)
    echo "[12 / 431] Compiling definitions/full_suite_sources_shard_0.cc"
    if [ -e interrupt ]; then echo "INFO: Build interrupted"; exit 8; fi
    if [ -e fail ]; then
      echo "definitions/standard.cc:120:7: error: 'torch::special_op' was not declared"
      for i in $(seq 50); do echo "  more compiler output $i"; done
      echo "ERROR: Build did NOT complete successfully"; exit 1
    fi
    echo "INFO: Build completed successfully" ;;
  *" info "*) echo ")",
                                                             bin, R"(" ;;
esac
)"))
                    .ok());
    chmod(path.c_str(), 0755);
  }
  std::vector<std::string> Commands() const {
    return absl::StrSplit(base::ReadFileToString(log).value_or(""), '\n', absl::SkipEmpty());
  }
};

PyTorchInstall PackageInstall(const std::string& site) {
  const std::string package = site + "/torch";
  mkdir(package.c_str(), 0755);
  mkdir((package + "/include").c_str(), 0755);
  mkdir((package + "/lib").c_str(), 0755);
  EXPECT_TRUE(base::WriteFileAtomically(package + "/include/torch.h", "").ok());
  PyTorchInstall install;
  install.kind = InstallKind::kPythonPackage;
  install.version = "2.1.0";
  install.root = package;
  install.include_directory = package + "/include";
  install.library_directory = package + "/lib";
  install.python_path = site;
  return install;
}

SuiteBuildOptions Options(const FakeBazel& bazel, const std::string& workspace) {
  SuiteBuildOptions options;
  options.workspace = workspace;
  options.bazel = bazel.path;
  options.builds_directory = bazel.directory + "/builds";
  return options;
}

TEST(BuildSuiteForTest, BuildsInTheWorkspaceWithTheInstallAsLibTorch) {
  FakeBazel bazel;
  const std::string workspace = base::MakeTemporaryDirectory("workspace").value();
  const std::string site = base::MakeTemporaryDirectory("site").value();
  const PyTorchInstall install = PackageInstall(site);
  SuiteBuildOptions options = Options(bazel, workspace);
  std::vector<std::string> progress;
  options.on_progress = [&](const std::string& line) { progress.push_back(line); };
  absl::StatusOr<BuiltSuite> built = BuildSuiteFor(install, options);
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_EQ(built->bin_directory, bazel.bin);
  EXPECT_THAT(built->output_base, HasSubstr(bazel.directory + "/builds/"));
  EXPECT_EQ(built->fingerprint, Fingerprint(install).value());
  EXPECT_THAT(progress,
              ElementsAre("[12 / 431] Compiling definitions/full_suite_sources_shard_0.cc",
                          "INFO: Build completed successfully"));
  const std::vector<std::string> commands = bazel.Commands();
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_EQ(commands[0],
            absl::StrCat(workspace, " --output_base=", built->output_base,
                         " --max_idle_secs=60 build --curses=no --color=no --symlink_prefix=/ --keep_going",
                         " --repo_env=ICOUNT_BUILD_LIBTORCH_INCLUDE=", site,
                         "/torch/include --repo_env=ICOUNT_BUILD_LIBTORCH_LIB=", site,
                         "/torch/lib --repo_env=ICOUNT_BUILD_TORCH_PYTHONPATH=", site,
                         " --repo_env=ICOUNT_BUILD_LIBTORCH_FINGERPRINT=", built->fingerprint,
                         " --define=icount_snippet_prelude=off //definitions:full_suite"));
  EXPECT_EQ(commands[1], absl::StrCat(workspace, " --output_base=", built->output_base,
                                      " --max_idle_secs=60 info bazel-bin"));
}

// A LibTorch the build is pointed at (not the one bazelw finds by itself)
// gets the C++ standard it needs on the command line.
TEST(BuildSuiteForTest, AnInstallNeedingCxx20GetsItOnTheCommandLine) {
  FakeBazel bazel;
  const std::string workspace = base::MakeTemporaryDirectory("workspace").value();
  PyTorchInstall install = PackageInstall(base::MakeTemporaryDirectory("site").value());
  install.cxx_standard = "c++20";
  const SuiteBuildOptions options = Options(bazel, workspace);
  ASSERT_TRUE(BuildSuiteFor(install, options).ok());
  EXPECT_THAT(bazel.Commands()[0],
              HasSubstr(" --keep_going --cxxopt=-std=c++20 --host_cxxopt=-std=c++20 --repo_env="));
}

// A root's build runs through the root's launcher (here a stand-in that
// runs the command as it is), with bazelw leaving the root's packages
// alone, without a server, with its own install, the root's disk cache and
// build lock, and Debian's LibTorch and the C++ standard bazelw picks for
// it where the build looks by default: the flags of any build in the root,
// so that its compiles share the disk cache.
TEST(BuildSuiteForTest, ARootsBuildRunsThereWithItsOwnCachesAndStandard) {
  FakeBazel bazel;
  const std::string workspace = base::MakeTemporaryDirectory("workspace").value();
  const std::string root = base::MakeTemporaryDirectory("root").value();
  ASSERT_TRUE(base::MakeDirectories(root + "/usr/include/torch").ok());
  ASSERT_TRUE(base::WriteFileAtomically(root + "/usr/include/torch/script.h", "").ok());
  PyTorchInstall install;
  install.kind = InstallKind::kRoot;
  install.version = "2.14.1";
  install.root = "/usr/lib/python3/dist-packages/torch";
  install.include_directory = "/usr/include";
  install.library_directory = "/usr/lib/x86_64-linux-gnu";
  install.filesystem_root = root;
  install.filesystem_root_name = "sid";
  install.cxx_standard = "c++20";
  SuiteBuildOptions options = Options(bazel, workspace);
  options.launcher = {"/usr/bin/env", "ICOUNT_STAND_IN_LAUNCHER=1"};
  absl::StatusOr<BuiltSuite> built = BuildSuiteFor(install, options);
  ASSERT_TRUE(built.ok()) << built.status();
  const std::string& base = built->output_base;
  const std::vector<std::string> commands = bazel.Commands();
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_EQ(commands[0],
            absl::StrCat("(no package check) ", workspace, " --output_base=", base,
                         " --output_user_root=", base, "-user-root --batch build --curses=no",
                         " --color=no --symlink_prefix=/ --keep_going --disk_cache=",
                         options.builds_directory, "/disk-cache",
                         " --repo_env=ICOUNT_BUILD_LIBTORCH_FINGERPRINT=", built->fingerprint,
                         " --define=icount_snippet_prelude=off //definitions:full_suite"));
  EXPECT_EQ(commands[1], absl::StrCat("(no package check) ", workspace, " --output_base=", base,
                                      " --output_user_root=", base, "-user-root --batch info",
                                      " bazel-bin"));
  EXPECT_TRUE(base::IsDirectory(options.builds_directory));
  EXPECT_EQ(access((options.builds_directory + "/build.lock").c_str(), F_OK), 0);
  // Of the root's torch headers: a changed header changes it.
  ASSERT_TRUE(base::WriteFileAtomically(root + "/usr/include/torch/script.h", "// 2").ok());
  EXPECT_NE(Fingerprint(install).value(), built->fingerprint);
}

TEST(BuildSuiteForTest, ATargetThatCompilesCppAtRunTimeKeepsTheSnippetPrelude) {
  FakeBazel bazel;
  const std::string workspace = base::MakeTemporaryDirectory("workspace").value();
  SuiteBuildOptions options = Options(bazel, workspace);
  options.target = "//tools:timeit";
  options.snippet_prelude = true;
  ASSERT_TRUE(
      BuildSuiteFor(PackageInstall(base::MakeTemporaryDirectory("site").value()), options).ok());
  const std::vector<std::string> commands = bazel.Commands();
  ASSERT_FALSE(commands.empty());
  EXPECT_THAT(commands[0], EndsWith(" //tools:timeit"));
  EXPECT_THAT(commands[0], Not(HasSubstr("icount_snippet_prelude")));
}

TEST(BuildSuiteForTest, OneOutputBasePerInstallLocation) {
  FakeBazel bazel;
  const std::string workspace = base::MakeTemporaryDirectory("workspace").value();
  const PyTorchInstall first = PackageInstall(base::MakeTemporaryDirectory("site").value());
  const PyTorchInstall second = PackageInstall(base::MakeTemporaryDirectory("site").value());
  const SuiteBuildOptions options = Options(bazel, workspace);
  const std::string base_1 = BuildSuiteFor(first, options).value().output_base;
  // A header edited in place: a new fingerprint, the same output base (an
  // incremental build).
  ASSERT_TRUE(base::WriteFileAtomically(first.include_directory + "/torch.h", "// edited\n").ok());
  const BuiltSuite again = BuildSuiteFor(first, options).value();
  EXPECT_EQ(again.output_base, base_1);
  EXPECT_NE(again.fingerprint, Fingerprint(second).value());
  EXPECT_NE(BuildSuiteFor(second, options).value().output_base, base_1);
}

TEST(BuildSuiteForTest, AFailedBuildQuotesBazelAndTheCommand) {
  FakeBazel bazel;
  const std::string workspace = base::MakeTemporaryDirectory("workspace").value();
  ASSERT_TRUE(base::WriteFileAtomically(workspace + "/fail", "").ok());
  const PyTorchInstall install = PackageInstall(base::MakeTemporaryDirectory("site").value());
  absl::StatusOr<BuiltSuite> built = BuildSuiteFor(install, Options(bazel, workspace));
  ASSERT_FALSE(built.ok());
  const std::string message(built.status().message());
  EXPECT_THAT(message, HasSubstr("building icount for torch 2.1.0 (Python package)"));
  EXPECT_THAT(message, HasSubstr("the first error:\n  definitions/standard.cc:120:7: error: "
                                 "'torch::special_op' was not declared"));
  EXPECT_THAT(message, HasSubstr("ERROR: Build did NOT complete successfully"));
  EXPECT_THAT(message, HasSubstr(absl::StrCat("The command, run in ", workspace, ":\n  ",
                                              bazel.path, " --output_base=")));
}

// Ctrl-C stops the nested Bazel too (exit code 8): said as an interrupt,
// not as a failed build.
TEST(BuildSuiteForTest, AnInterruptedBuildIsSaidSo) {
  FakeBazel bazel;
  const std::string workspace = base::MakeTemporaryDirectory("workspace").value();
  ASSERT_TRUE(base::WriteFileAtomically(workspace + "/interrupt", "").ok());
  const PyTorchInstall install = PackageInstall(base::MakeTemporaryDirectory("site").value());
  absl::StatusOr<BuiltSuite> built = BuildSuiteFor(install, Options(bazel, workspace));
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.status().code(), absl::StatusCode::kCancelled);
  const std::string message(built.status().message());
  EXPECT_THAT(message, HasSubstr("building icount for torch 2.1.0 (Python package)"));
  EXPECT_THAT(message, HasSubstr(" was interrupted (Bazel's exit code 8): nothing was measured. "
                                 "Run the same command again"));
}

// Cases left out of a build are macros for the generated case sources
// alone; the failed build's outputs are still found.
TEST(BuildSuiteForTest, CaseSourceDefinesReachTheGeneratedSourcesOnly) {
  FakeBazel bazel;
  const std::string workspace = base::MakeTemporaryDirectory("workspace").value();
  ASSERT_TRUE(base::WriteFileAtomically(workspace + "/fail", "").ok());
  const PyTorchInstall install = PackageInstall(base::MakeTemporaryDirectory("site").value());
  SuiteBuildOptions options = Options(bazel, workspace);
  options.case_source_defines = {"ICOUNT_LEAVE_OUT_1", "ICOUNT_LEAVE_OUT_2"};
  ASSERT_FALSE(BuildSuiteFor(install, options).ok());
  EXPECT_EQ(SuiteBinDirectory(install, options).value(), bazel.bin);
  const std::vector<std::string> commands = bazel.Commands();
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_THAT(commands[0],
              EndsWith(" --per_file_copt=.*definitions/full_suite_sources_shard_[0-9]+\\.cc"
                       "@-DICOUNT_LEAVE_OUT_1,-DICOUNT_LEAVE_OUT_2 //definitions:full_suite"));
  EXPECT_EQ(commands[1], absl::StrCat(workspace, " --output_base=",
                                      SuiteOutputBase(install, options),
                                      " --max_idle_secs=60 info bazel-bin"));
}

TEST(BuildSuiteForTest, DebiansLibTorchIsNotRebuilt) {
  FakeBazel bazel;
  absl::StatusOr<BuiltSuite> built = BuildSuiteFor(SystemInstall(), Options(bazel, "/"));
  EXPECT_EQ(built.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(bazel.Commands().empty());
}

TEST(IcountWorkspaceTest, AProgramBuiltHereFindsTheTreeItWasBuiltFrom) {
  unsetenv("BUILD_WORKSPACE_DIRECTORY");
  unsetenv("ICOUNT_WORKSPACE");
  // This test, as bazel-bin/tools/main would: its output base records the
  // source tree.
  absl::StatusOr<std::string> workspace = IcountWorkspace();
  ASSERT_TRUE(workspace.ok()) << workspace.status();
  EXPECT_THAT(base::ReadFileToString(*workspace + "/WORKSPACE").value_or(""),
              HasSubstr("workspace(name = \"icount\")"));
}

TEST(IcountWorkspaceTest, AVariableNamingAnotherTreeIsRefused) {
  unsetenv("BUILD_WORKSPACE_DIRECTORY");
  const std::string other = base::MakeTemporaryDirectory("other").value();
  setenv("ICOUNT_WORKSPACE", other.c_str(), 1);
  EXPECT_THAT(std::string(IcountWorkspace().status().message()),
              HasSubstr(absl::StrCat("$ICOUNT_WORKSPACE=", other, " is not icount's source tree")));
  ASSERT_TRUE(
      base::WriteFileAtomically(other + "/WORKSPACE", "workspace(name = \"icount\")\n").ok());
  EXPECT_EQ(IcountWorkspace().value(), other);
}

}  // namespace
}  // namespace icount::environment
