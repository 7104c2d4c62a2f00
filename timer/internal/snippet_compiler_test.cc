#include "timer/internal/snippet_compiler.h"

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/files.h"
#include "base/subprocess.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::timer::internal {
namespace {

using ::testing::HasSubstr;

// A snippet as the Timer generates one: LibTorch's script header first.
constexpr char kSnippet[] =
    "#include <torch/script.h>\n"
    "extern \"C\" __attribute__((visibility(\"default\"))) double icount_test_entry() {\n"
    "  auto x = torch::ones({4, 4});\n"
    "  return torch::add(x, x).sum().item<double>();\n"
    "}\n";

std::string TestDir() { return std::getenv("TEST_TMPDIR"); }

base::CommandResult RunOrFail(const std::vector<std::string>& command) {
  absl::StatusOr<base::CommandResult> result = base::RunCommand(command);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *result : base::CommandResult{};
}

TEST(SnippetCompilerTest, TheBuildsPreludeIsInTheRunfilesAndTheCompilerUsesIt) {
  std::optional<std::string> prelude = FindSnippetPrelude();
  ASSERT_TRUE(prelude.has_value()) << "no " << kSnippetPreludeRunfile << " (with .gch) in runfiles";
  const std::string source = TestDir() + "/uses_prelude.cc";
  ASSERT_TRUE(base::WriteFileAtomically(source, kSnippet).ok());
  // -H lists what is included; gcc marks a precompiled header it uses "!"
  // and one it found but could not use "x" (-Winvalid-pch says why).
  std::vector<std::string> command = SnippetCompileFlags();
  command.insert(command.end(),
                 {"-include", *prelude, "-H", "-Winvalid-pch", "-fsyntax-only", source});
  base::CommandResult result = RunOrFail(command);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr(absl::StrCat("! ", *prelude, ".gch")))
      << "the prelude was precompiled with other flags than snippets get: "
      << result.output.substr(0, 2000);
}

TEST(SnippetCompilerTest, TheSharedObjectIsTheSameWithAndWithoutThePrelude) {
  std::optional<std::string> prelude = FindSnippetPrelude();
  ASSERT_TRUE(prelude.has_value());
  const std::string source = TestDir() + "/snippet.cc";
  ASSERT_TRUE(base::WriteFileAtomically(source, kSnippet).ok());
  const std::string with = TestDir() + "/with_prelude.so";
  const std::string without = TestDir() + "/without_prelude.so";
  base::CommandResult compiled = RunOrFail(SnippetCompilerCommand(source, with, prelude));
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  compiled = RunOrFail(SnippetCompilerCommand(source, without, std::nullopt));
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  absl::StatusOr<std::string> with_bytes = base::ReadFileToString(with);
  absl::StatusOr<std::string> without_bytes = base::ReadFileToString(without);
  ASSERT_TRUE(with_bytes.ok() && without_bytes.ok());
  EXPECT_TRUE(*with_bytes == *without_bytes)
      << "the prelude changed the compiled snippet, so it could change its counts";
}

TEST(SnippetCompilerTest, TheCommandForceIncludesThePreludeBeforeTheSource) {
  const std::vector<std::string> command =
      SnippetCompilerCommand("s.cc", "s.so", "/p/torch_script.h");
  const std::string joined = absl::StrJoin(command, " ");
  EXPECT_THAT(joined, HasSubstr("-include /p/torch_script.h -o s.so s.cc"));
  EXPECT_THAT(absl::StrJoin(SnippetCompilerCommand("s.cc", "s.so", std::nullopt), " "),
              ::testing::Not(HasSubstr("-include")));
}

TEST(SnippetCompilerTest, AnotherCompilerGetsNoPrelude) {
  ASSERT_TRUE(FindSnippetPrelude().has_value());
  setenv("ICOUNT_CXX", "clang++", 1);
  EXPECT_FALSE(FindSnippetPrelude().has_value()) << "a .gch precompiled by c++ handed to clang++";
  unsetenv("ICOUNT_CXX");
}

TEST(SnippetCompilerTest, APreludeForAnotherLibTorchIsPassedOver) {
  std::optional<std::string> ours = FindSnippetPrelude();
  ASSERT_TRUE(ours.has_value());
  // Runfiles found first ($RUNFILES_DIR) with a prelude for other headers.
  const std::string other = TestDir() + "/other.runfiles";
  const std::string header = other + "/" + kSnippetPreludeRunfile;
  std::filesystem::create_directories(std::filesystem::path(header).parent_path());
  ASSERT_TRUE(base::WriteFileAtomically(header, "// LibTorch fingerprint: other\n").ok());
  ASSERT_TRUE(base::WriteFileAtomically(header + ".gch", "not ours").ok());
  setenv("RUNFILES_DIR", other.c_str(), 1);
  std::optional<std::string> found = FindSnippetPrelude();
  unsetenv("RUNFILES_DIR");
  EXPECT_EQ(found, ours);
}

TEST(SnippetCompilerTest, AMissingCompilerIsAClearError) {
  setenv("ICOUNT_CXX", "/nonexistent/c++", 1);
  absl::Status status = PrecompileSnippetPrelude(TestDir() + "/prelude.h");
  unsetenv("ICOUNT_CXX");
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("/nonexistent/c++"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("prelude.h"));
}

}  // namespace
}  // namespace icount::timer::internal
