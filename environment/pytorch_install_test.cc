#include "environment/pytorch_install.h"

#include <Python.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/subprocess.h"
#include "environment/pytorch_install_testutil.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::environment {
namespace {

using ::testing::HasSubstr;

std::string TestDirectory(const std::string& name) {
  absl::StatusOr<std::string> dir = base::MakeTemporaryDirectory(name);
  EXPECT_TRUE(dir.ok()) << dir.status();
  return *dir;
}

// The Python this build embeds ("3.11" on bookworm, "3.14" on sid), and
// one it does not.
const std::string kEmbeddedPython = absl::StrCat(PY_MAJOR_VERSION, ".", PY_MINOR_VERSION);
const std::string kOtherPython = absl::StrCat(PY_MAJOR_VERSION, ".", PY_MINOR_VERSION + 1);

TEST(FindPyTorchTest, ReadsALibTorchDirectory) {
  const std::string root = TestDirectory("libtorch");
  MakeFakeLibTorch(root);
  absl::StatusOr<PyTorchInstall> install = FindPyTorch({"B", "true", root, "B_libtorch", "", ""});
  ASSERT_TRUE(install.ok()) << install.status();
  EXPECT_EQ(install->kind, InstallKind::kLibTorchDirectory);
  EXPECT_EQ(install->version, "2.1.0");
  EXPECT_EQ(install->include_directory, root + "/include");
  EXPECT_EQ(install->library_directory, root + "/lib");
  EXPECT_EQ(install->python_path, "");
  EXPECT_EQ(install->python_problem, "a LibTorch directory has no torch Python package");
  EXPECT_EQ(Describe(*install),
            absl::StrCat("torch 2.1.0 (LibTorch directory) at ", root, ", found by --B_libtorch"));
}

TEST(FindPyTorchTest, ALibTorchDirectoryNeedsItsLibraries) {
  const std::string root = TestDirectory("libtorch");
  MakeFakeLibTorch(root);
  std::remove((root + "/lib/libtorch_cpu.so").c_str());
  absl::StatusOr<PyTorchInstall> install = FindPyTorch({"A", "true", root, "A_libtorch", "", ""});
  ASSERT_FALSE(install.ok());
  EXPECT_THAT(std::string(install.status().message()),
              HasSubstr(absl::StrCat("--A_libtorch: the LibTorch directory ", root,
                                     " has no lib/libtorch_cpu.so")));
}

// Each header directory: one missing would silently come from Debian's.
TEST(FindPyTorchTest, ALibTorchDirectoryNeedsEveryHeaderDirectory) {
  const std::string root = TestDirectory("libtorch-without-c10");
  MakeFakeLibTorch(root);
  base::RemoveDirectoryTree(root + "/include/c10");
  absl::StatusOr<PyTorchInstall> install = FindPyTorch({"A", "true", root, "A_libtorch", "", ""});
  ASSERT_FALSE(install.ok());
  EXPECT_THAT(std::string(install.status().message()),
              HasSubstr(absl::StrCat("the LibTorch directory ", root, " has no include/c10")));
}

TEST(FindPyTorchTest, ALibTorchDirectoryThatIsMissingOrAFileIsSaidSo) {
  const std::string missing = TestDirectory("parent") + "/nonexistent";
  absl::StatusOr<PyTorchInstall> install =
      FindPyTorch({"B", "true", missing, "B_libtorch", "", ""});
  ASSERT_FALSE(install.ok());
  EXPECT_THAT(std::string(install.status().message()),
              HasSubstr(absl::StrCat("the LibTorch directory ", missing, " does not exist")));
  const std::string file = TestDirectory("file-parent") + "/libtorch.tar";
  WriteTestFile(file, "archive");
  install = FindPyTorch({"B", "true", file, "B_libtorch", "", ""});
  ASSERT_FALSE(install.ok());
  EXPECT_THAT(
      std::string(install.status().message()),
      HasSubstr(absl::StrCat("the LibTorch directory ", file, " is a file, not a directory")));
}

// A command that is not found is the environment's failure, not a
// python3 that is missing; a PATH without python3 is the latter.
TEST(FindPyTorchTest, ACommandNotFoundIsABrokenEnvironmentNotAMissingPython) {
  absl::StatusOr<PyTorchInstall> broken =
      FindPyTorch({"B", "no_such_activate_command myenv", "", "B_libtorch", "", ""});
  ASSERT_FALSE(broken.ok());
  EXPECT_THAT(std::string(broken.status().message()),
              HasSubstr("environment B (no_such_activate_command myenv) is broken"));
  EXPECT_THAT(std::string(broken.status().message()), HasSubstr("command not found"));
  const std::string empty = TestDirectory("empty-bin");
  absl::StatusOr<PyTorchInstall> no_python =
      FindPyTorch({"B", "export PATH=" + empty, "", "B_libtorch", "", ""});
  ASSERT_TRUE(no_python.ok()) << no_python.status();
  EXPECT_THAT(no_python->how_found, HasSubstr("no python3 on its PATH"));
}

TEST(FindPyTorchTest, RefusesThePreCxx11Abi) {
  const std::string root = TestDirectory("libtorch");
  MakeFakeLibTorch(root, /*cxx11_abi=*/0);
  absl::StatusOr<PyTorchInstall> install = FindPyTorch({"B", "true", root, "B_libtorch", "", ""});
  ASSERT_FALSE(install.ok());
  EXPECT_THAT(std::string(install.status().message()), HasSubstr("_GLIBCXX_USE_CXX11_ABI=0"));
  EXPECT_THAT(std::string(install.status().message()), HasSubstr("libtorch-cxx11-abi"));
}

TEST(FindPyTorchTest, FindsThePackageThatImportTorchLoads) {
  const std::string site = TestDirectory("site-packages");
  MakeFakeLibTorch(site + "/torch");
  absl::StatusOr<PyTorchInstall> install = FindPyTorch(
      {"B", FakePythonEnvironment(ProbeLine(site + "/torch", "1", kEmbeddedPython)), "", "B_libtorch",
       "", ""});
  ASSERT_TRUE(install.ok()) << install.status();
  EXPECT_EQ(install->kind, InstallKind::kPythonPackage);
  EXPECT_EQ(install->version, "2.1.0a0+git1234");
  EXPECT_EQ(install->include_directory, site + "/torch/include");
  EXPECT_EQ(install->library_directory, site + "/torch/lib");
  EXPECT_EQ(install->python_path, site);
  EXPECT_EQ(install->python_problem, "");
  EXPECT_EQ(install->how_found, "`import torch` in B, with /venv/bin/python3");
}

// The same torch reached through a symlink is the same install: its
// paths are real ones, so its build goes to the same output base.
TEST(FindPyTorchTest, APackageReachedThroughASymlinkHasItsRealPaths) {
  const std::string venv = TestDirectory("venv");
  MakeFakeLibTorch(venv + "/site-packages/torch");
  const std::string linked_venv = TestDirectory("links") + "/venv";
  ASSERT_EQ(symlink(venv.c_str(), linked_venv.c_str()), 0);
  absl::StatusOr<PyTorchInstall> install = FindPyTorch(
      {"B",
       FakePythonEnvironment(ProbeLine(linked_venv + "/site-packages/torch", "1", kEmbeddedPython)),
       "", "B_libtorch", "", ""});
  ASSERT_TRUE(install.ok()) << install.status();
  EXPECT_EQ(install->include_directory, venv + "/site-packages/torch/include");
  EXPECT_EQ(install->library_directory, venv + "/site-packages/torch/lib");
  EXPECT_EQ(install->python_path, venv + "/site-packages");
  // A torch directory linked into site-packages: its headers are the
  // linked directory's, and Python finds torch (and numpy) in site-packages.
  const std::string source = TestDirectory("pytorch-source");
  MakeFakeLibTorch(source + "/torch");
  const std::string site = TestDirectory("site-packages");
  ASSERT_EQ(symlink((source + "/torch").c_str(), (site + "/torch").c_str()), 0);
  install =
      FindPyTorch({"B", FakePythonEnvironment(ProbeLine(site + "/torch", "1", kEmbeddedPython)), "",
                   "B_libtorch", "", ""});
  ASSERT_TRUE(install.ok()) << install.status();
  EXPECT_EQ(install->include_directory, source + "/torch/include");
  EXPECT_EQ(install->python_path, site);
}

TEST(FindPyTorchTest, APackageForAnotherPythonIsMeasuredInCppOnly) {
  const std::string site = TestDirectory("site-packages");
  MakeFakeLibTorch(site + "/torch");
  absl::StatusOr<PyTorchInstall> install = FindPyTorch(
      {"B", FakePythonEnvironment(ProbeLine(site + "/torch", "1", kOtherPython)), "", "B_libtorch",
       "", ""});
  ASSERT_TRUE(install.ok()) << install.status();
  EXPECT_EQ(install->include_directory, site + "/torch/include");
  EXPECT_EQ(install->python_path, "");
  EXPECT_EQ(install->python_problem, absl::StrCat("its torch is for Python ", kOtherPython,
                                                  ", and icount's worker embeds Python ",
                                                  kEmbeddedPython));
}

TEST(FindPyTorchTest, APackageWithoutHeadersIsNoLibTorch) {
  const std::string site = TestDirectory("site-packages");
  WriteTestFile(site + "/torch/__init__.py", "");
  absl::StatusOr<PyTorchInstall> install = FindPyTorch(
      {"A", FakePythonEnvironment(ProbeLine(site + "/torch", "1", "3.11")), "", "A_libtorch", "", ""});
  ASSERT_FALSE(install.ok());
  EXPECT_THAT(std::string(install.status().message()), HasSubstr("has no include/torch"));
  EXPECT_THAT(std::string(install.status().message()), HasSubstr("--A_libtorch="));
}

TEST(FindPyTorchTest, APackageWithThePreCxx11AbiIsRefused) {
  const std::string site = TestDirectory("site-packages");
  MakeFakeLibTorch(site + "/torch");
  absl::StatusOr<PyTorchInstall> install = FindPyTorch(
      {"B", FakePythonEnvironment(ProbeLine(site + "/torch", "0", "3.11")), "", "B_libtorch", "", ""});
  ASSERT_FALSE(install.ok());
  EXPECT_THAT(std::string(install.status().message()), HasSubstr("_GLIBCXX_USE_CXX11_ABI=0"));
}

TEST(FindPyTorchTest, WithoutTorchItIsDebiansAndSaysWhy) {
  absl::StatusOr<PyTorchInstall> install = FindPyTorch(
      {"A", FakePythonEnvironment("ICOUNT_NO_TORCH\tModuleNotFoundError: No module named 'torch'"),
       "", "A_libtorch", "", ""});
  ASSERT_TRUE(install.ok()) << install.status();
  EXPECT_EQ(install->kind, InstallKind::kSystem);
  EXPECT_EQ(DescribeMeasured(*install),
            absl::StrCat("measures Debian's system PyTorch ", install->version,
                         " at /usr: this environment's python3 cannot import torch "
                         "(ModuleNotFoundError: No module named 'torch')"));
}

TEST(FindPyTorchTest, ATorchThatFailsToImportIsAnError) {
  absl::StatusOr<PyTorchInstall> install = FindPyTorch(
      {"B",
       FakePythonEnvironment("ICOUNT_BROKEN_TORCH\tOSError: libtorch_global_deps.so: cannot open"),
       "", "B_libtorch", "", ""});
  ASSERT_FALSE(install.ok());
  EXPECT_THAT(std::string(install.status().message()),
              HasSubstr("B: `import torch` fails in the environment"));
  EXPECT_THAT(std::string(install.status().message()), HasSubstr("libtorch_global_deps.so"));
}

TEST(FindPyTorchTest, DebiansPython3FindsDebiansTorch) {
  absl::StatusOr<PyTorchInstall> install =
      FindPyTorch({"A", "export PATH=/usr/bin:/bin", "", "A_libtorch", "", ""});
  ASSERT_TRUE(install.ok()) << install.status();
  EXPECT_EQ(install->kind, InstallKind::kSystem);
  EXPECT_EQ(install->root, "/usr");
  EXPECT_EQ(install->how_found, "`import torch` in A, with /usr/bin/python3");
  // Debian's python3-torch and libtorch-dev are one release.
  EXPECT_EQ(install->version.substr(0, install->version.rfind('.')),
            HeaderVersion("/usr/include").value().substr(
                0, HeaderVersion("/usr/include").value().rfind('.')));
}

TEST(FindPyTorchTest, ABrokenEnvironmentIsAnErrorNotAGuess) {
  absl::StatusOr<PyTorchInstall> install =
      FindPyTorch({"B", "echo 'no such venv' >&2; false", "", "B_libtorch", "", ""});
  ASSERT_FALSE(install.ok());
  EXPECT_THAT(std::string(install.status().message()),
              HasSubstr("environment B (echo 'no such venv' >&2; false) is broken: cannot ask "
                        "it which torch it has (exit code 1)"));
  EXPECT_THAT(std::string(install.status().message()), HasSubstr("no such venv"));
}

TEST(FingerprintTest, ChangesWhenAHeaderChangesAndOnlyThen) {
  const std::string root = TestDirectory("libtorch");
  MakeFakeLibTorch(root);
  absl::StatusOr<PyTorchInstall> install = ReadLibTorchDirectory(root);
  ASSERT_TRUE(install.ok()) << install.status();
  absl::StatusOr<std::string> first = Fingerprint(*install);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->size(), 16u);
  EXPECT_EQ(Fingerprint(*install).value(), *first);
  // A rewritten header (another size) and a new header each change it.
  WriteTestFile(root + "/include/c10/core/TensorImpl.h", "// inline fast paths, now slower\n");
  const std::string second = Fingerprint(*install).value();
  EXPECT_NE(second, *first);
  WriteTestFile(root + "/include/c10/core/New.h", "");
  EXPECT_NE(Fingerprint(*install).value(), second);
}

TEST(EnvironmentPrefixTest, RunsTheCommandThenTheArguments) {
  EXPECT_EQ(
      EnvironmentPrefix("source env.sh"),
      (std::vector<std::string>{"/bin/bash", "-c", "source env.sh && exec \"$@\"", "icount-env"}));
}

// Upstream's README sets sides up with `source activate env_a`: `source`
// must work (a POSIX sh has only `.`).
TEST(EnvironmentPrefixTest, SourceSetsTheEnvironmentUp) {
  const std::string script = absl::StrCat(std::getenv("TEST_TMPDIR"), "/activate");
  WriteTestFile(script, "export ICOUNT_TEST_SIDE=env_a\n");
  std::vector<std::string> argv = EnvironmentPrefix(absl::StrCat("source ", script));
  for (const char* word : {"/bin/sh", "-c", "echo \"side=$ICOUNT_TEST_SIDE\""}) {
    argv.push_back(word);
  }
  absl::StatusOr<base::CommandResult> ran = base::RunCommand(argv);
  ASSERT_TRUE(ran.ok()) << ran.status();
  EXPECT_EQ(ran->exit_code, 0) << ran->output;
  EXPECT_EQ(ran->output, "side=env_a\n");
}

TEST(HeaderVersionTest, FollowsTheHeaderOnlyVersionWhereVersionHIncludesIt) {
  const std::string include = TestDirectory("forwarding") + "/include";
  // PyTorch 2.10 and later: torch/version.h only includes the real one.
  WriteTestFile(include + "/torch/csrc/api/include/torch/version.h",
                "#pragma once\n#include <torch/headeronly/version.h>\n");
  WriteTestFile(include + "/torch/headeronly/version.h",
                "#pragma once\n#define TORCH_VERSION_MAJOR 2\n#define TORCH_VERSION_MINOR 14\n"
                "#define TORCH_VERSION_PATCH 1\n");
  absl::StatusOr<std::string> version = HeaderVersion(include);
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, "2.14.1");
  WriteTestFile(include + "/torch/headeronly/version.h", "#pragma once\n");
  EXPECT_THAT(std::string(HeaderVersion(include).status().message()),
              HasSubstr("torch/headeronly/version.h has no readable TORCH_VERSION_MAJOR"));
}

TEST(CxxStandardForTest, CppTwentyWhereATenDemandsIt) {
  const std::string include = TestDirectory("standard") + "/include";
  WriteTestFile(include + "/ATen/ATen.h",
                "#if !defined(_MSC_VER) && __cplusplus < 201703L\n"
                "#error C++17 or later compatible compiler is required to use ATen.\n#endif\n");
  EXPECT_EQ(CxxStandardFor(include), "c++17");
  WriteTestFile(include + "/ATen/ATen.h",
                "#if !defined(_MSC_VER) && __cplusplus < 202002L\n"
                "#error C++20 or later compatible compiler is required to use ATen.\n#endif\n");
  EXPECT_EQ(CxxStandardFor(include), "c++20");
  EXPECT_EQ(CxxStandardFor(include + "/missing"), "c++17");
}

// Debian's LibTorch: 1.13 (bookworm) and 2.6 (trixie) need C++17, 2.14
// (sid) C++20.
TEST(CxxStandardForTest, DebiansLibTorchNeedsTheStandardOfItsRelease) {
  const std::string version = HeaderVersion("/usr/include").value();
  int major = 0, minor = 0;
  ASSERT_EQ(std::sscanf(version.c_str(), "%d.%d", &major, &minor), 2) << version;
  const std::string expected = major > 2 || (major == 2 && minor >= 10) ? "c++20" : "c++17";
  EXPECT_EQ(SystemInstall().cxx_standard, expected) << version;
  EXPECT_EQ(CxxStandardFor("/usr/include"), expected) << version;
}

}  // namespace
}  // namespace icount::environment
