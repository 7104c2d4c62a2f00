// The suite generator: a C++ case that does not compile fails the build
// with a message naming the benchmark's label and its definition's file and
// line (the generated code carries #line directives for that), and the
// build compiles once the cases named are left out.
#include "expand/generate.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "base/subprocess.h"
#include "expand/case_sources.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::expand {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

MaterializedBenchmark Case(const std::string& stmt) {
  MaterializedBenchmark benchmark;
  benchmark.label = {"Broken", "case"};
  benchmark.auto_labels = {RUNTIME_EAGER, AUTOGRAD_FORWARD, timer::Language::kCpp};
  benchmark.timer_args.stmt = stmt;
  benchmark.timer_args.setup = "auto x = torch::ones({2});";
  benchmark.timer_args.language = timer::Language::kCpp;
  benchmark.where.file = "definitions/broken.cc";
  benchmark.where.line = 42;
  return benchmark;
}

// The manifest keeps a declared minimum as written and as the release it
// names, read once here for every side to compare.
TEST(GenerateTest, TheManifestReadsAMinimumLibTorchOnce) {
  MaterializedBenchmark needs = Case("auto y = x + 1;");
  needs.timer_args.min_libtorch_version = "1.9";
  MaterializedBenchmark any = Case("auto y = x + 2;");
  any.label = {"Any"};
  const SuiteManifestProto manifest = MakeManifest("test", {needs, any});
  ASSERT_EQ(manifest.cases_size(), 2);
  EXPECT_EQ(manifest.cases(0).min_libtorch_version(), "1.9");
  ASSERT_TRUE(manifest.cases(0).has_min_libtorch());
  EXPECT_EQ(manifest.cases(0).min_libtorch().major(), 1);
  EXPECT_EQ(manifest.cases(0).min_libtorch().minor(), 9);
  EXPECT_EQ(manifest.cases(0).min_libtorch().patch(), 0);
  EXPECT_FALSE(manifest.cases(1).has_min_libtorch());
}

TEST(GenerateTest, ShardsRegisterEveryCppCase) {
  MaterializedBenchmark python = Case("y = x + 1");
  python.auto_labels.language = timer::Language::kPython;
  python.label = {"Python", "only"};
  const std::vector<std::string> units =
      GenerateTranslationUnits({Case("auto y = x + 1;"), python, Case("auto z = x * 2;")}, 2);
  ASSERT_EQ(units.size(), 2u);
  EXPECT_THAT(units[0], HasSubstr("icount_registrar_0(\"Broken/case|Eager|Forward|C++|1\""));
  EXPECT_THAT(units[1], HasSubstr("icount_registrar_2("));
  EXPECT_THAT(units[0] + units[1], ::testing::Not(HasSubstr("y = x + 1\n")));
}

// Compiles generated `unit` (-fsyntax-only) against LibTorch's headers and
// a reduced worker registry header, with -D for each of `defines`.
base::CommandResult CompileUnit(const std::string& unit, const std::vector<std::string>& defines) {
  const std::string directory = std::string(std::getenv("TEST_TMPDIR")) + "/generated";
  EXPECT_EQ(std::system(("mkdir -p " + directory + "/worker").c_str()), 0);
  // The worker's registry header, reduced to what generated code uses.
  std::ofstream(directory + "/worker/compiled_cases.h")
      << "#include <cstddef>\n#include <cstdint>\n"
         "extern \"C\" { typedef struct IcountBlockControl { void* context;\n"
         "int64_t (*next_block)(void*); void (*begin_block)(void*); void (*end_block)(void*);\n"
         "} IcountBlockControl; }\n"
         "namespace icount::worker { struct CompiledCaseRegistrar { CompiledCaseRegistrar(const "
         "char*,\n"
         "int (*)(const IcountBlockControl*, char*, size_t)) {} };\n"
         "extern \"C\" const char* icount_artifact_path(); }\n";
  std::ofstream(directory + "/shard.cc") << unit;
  // The standard this test is built with: the one the LibTorch needs
  // (C++20 for 2.10 and later, ./bazelw's bazel/cxx20.bazelrc).
  const char* standard = __cplusplus >= 202002L ? "-std=c++20" : "-std=c++17";
  std::vector<std::string> command = {"c++", standard, "-fsyntax-only", "-isystem",
                                      "/usr/include/torch/csrc/api/include", "-I" + directory};
  for (const std::string& define : defines) command.push_back("-D" + define);
  command.push_back(directory + "/shard.cc");
  absl::StatusOr<base::CommandResult> result = base::RunCommand(command);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *result : base::CommandResult{};
}

// The same model scripted into directories of different paths gives the
// same bytes: the artifact keeps no path of the build (Bazel's sandbox is
// numbered per action), its weights come from one seed and its constants'
// order from one hash seed.
TEST(GenerateTest, TorchScriptArtifactsAreTheSameFromAnyDirectory) {
  const std::string tmp = std::getenv("TEST_TMPDIR");
  std::vector<std::string> artifacts;
  for (const std::string& directory : {tmp + "/a", tmp + "/" + std::string(100, 'b')}) {
    // Each in a child of its own: CPython and torch start once per process.
    absl::StatusOr<base::ChildOutcome> outcome = base::RunInChild(
        [&] {
          return WriteTorchScriptArtifacts(
                     {{"conv", "model = torch.nn.Conv1d(4, 4, 1)"}},
                     directory)
                         .ok()
                     ? 0
                     : 1;
        },
        300);
    ASSERT_TRUE(outcome.ok() && outcome->returned && outcome->exit.exit_code == 0) << directory;
    std::ifstream in(directory + "/conv.pt", std::ios::binary);
    artifacts.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_GT(artifacts[0].size(), 0u);
  EXPECT_TRUE(artifacts[0] == artifacts[1]) << "the artifact holds the path it was scripted at";
}

TEST(GenerateTest, CompileErrorNamesLabelFileAndLine) {
  const base::CommandResult result =
      CompileUnit(GenerateTranslationUnits({Case("auto y = x +;")}, 1)[0], {});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.output,
              HasSubstr("definitions/broken.cc (Broken / case, C++ Eager Forward):42:"));
  EXPECT_THAT(result.output, HasSubstr("error"));
}

// What a side's build does when some cases do not compile against its
// LibTorch: the compiler's errors name the cases, and the unit compiles
// with those cases left out.
TEST(GenerateTest, CasesThatDoNotCompileAreNamedAndLeftOut) {
  MaterializedBenchmark good = Case("auto y = x + 1;");
  good.label = {"Good"};
  MaterializedBenchmark member = Case("auto y = x.no_such_member();");
  member.label = {"Broken", "member"};
  // The error is GCC's in <bits/stl_uninitialized.h>, reached from the case.
  MaterializedBenchmark in_header =
      Case("std::vector<std::unique_ptr<int>> a; auto b = a;");
  in_header.label = {"Broken", "in a header"};
  in_header.timer_args.global_setup = "#include <memory>\n#include <vector>";
  MaterializedBenchmark shared_a = Case("auto y = icount_helper(x);");
  shared_a.label = {"Shared", "a"};
  shared_a.timer_args.global_setup =
      "torch::Tensor icount_helper(const torch::Tensor& x) { return x.gone(); }";
  MaterializedBenchmark shared_b = shared_a;
  shared_b.label = {"Shared", "b"};
  MaterializedBenchmark python = Case("y = x +");
  python.label = {"Python"};
  python.auto_labels.language = timer::Language::kPython;
  const std::vector<MaterializedBenchmark> cases = {good,     member,   in_header,
                                                    shared_a, shared_b, python};
  const std::string unit = GenerateTranslationUnits(cases, 1)[0];

  const base::CommandResult failed = CompileUnit(unit, {});
  ASSERT_NE(failed.exit_code, 0);
  std::map<std::string, std::string> errors =
      CaseCompileErrors(MakeManifest("test", cases), absl::StrSplit(failed.output, '\n'));
  std::vector<std::string> keys;
  for (const auto& [key, error] : errors) keys.push_back(key);
  EXPECT_THAT(keys, ElementsAre("Broken/in a header|Eager|Forward|C++|1",
                                "Broken/member|Eager|Forward|C++|1",
                                "Shared/a|Eager|Forward|C++|1", "Shared/b|Eager|Forward|C++|1"))
      << failed.output;
  EXPECT_THAT(errors["Broken/member|Eager|Forward|C++|1"],
              AllOf(StartsWith("definitions/broken.cc (Broken / member, C++ Eager Forward):42:"),
                    HasSubstr("no_such_member")));
  EXPECT_THAT(errors["Broken/in a header|Eager|Forward|C++|1"], HasSubstr("error: "));
  EXPECT_THAT(errors["Shared/b|Eager|Forward|C++|1"],
              StartsWith("definitions/broken.cc (Shared / a, C++ Eager Forward, global setup):"));

  std::vector<std::string> defines;
  for (const std::string& key : keys) defines.push_back(LeaveOutMacro(key));
  const base::CommandResult rest = CompileUnit(unit, defines);
  EXPECT_EQ(rest.exit_code, 0) << rest.output;
  EXPECT_THAT(unit, HasSubstr("icount_registrar_0(\"Good|Eager|Forward|C++|1\""));
}

}  // namespace
}  // namespace icount::expand
