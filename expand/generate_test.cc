// The suite generator: a C++ case that does not compile fails the build
// with a message naming the benchmark's label and its definition's file and
// line (the generated code carries #line directives for that).
#include "expand/generate.h"

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "base/subprocess.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::expand {
namespace {

using ::testing::HasSubstr;

MaterializedBenchmark Case(const std::string& stmt) {
  MaterializedBenchmark benchmark;
  benchmark.label = {"Broken", "case"};
  benchmark.auto_labels = {RuntimeMode::kEager, AutogradMode::kForward, timer::Language::kCpp};
  benchmark.timer_args.stmt = stmt;
  benchmark.timer_args.setup = "auto x = torch::ones({2});";
  benchmark.timer_args.language = timer::Language::kCpp;
  benchmark.where.file = "definitions/broken.cc";
  benchmark.where.line = 42;
  return benchmark;
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

TEST(GenerateTest, CompileErrorNamesLabelFileAndLine) {
  const std::string directory = std::string(std::getenv("TEST_TMPDIR")) + "/generated";
  ASSERT_EQ(std::system(("mkdir -p " + directory + "/worker").c_str()), 0);
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
  const std::vector<std::string> units = GenerateTranslationUnits({Case("auto y = x +;")}, 1);
  std::ofstream(directory + "/shard.cc") << units[0];
  absl::StatusOr<base::CommandResult> result = base::RunCommand(
      {"c++", "-std=c++17", "-fsyntax-only", "-isystem", "/usr/include/torch/csrc/api/include",
       "-I" + directory, directory + "/shard.cc"});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_NE(result->exit_code, 0);
  EXPECT_THAT(result->output,
              HasSubstr("definitions/broken.cc (Broken / case, C++ Eager Forward):42:"));
  EXPECT_THAT(result->output, HasSubstr("error"));
}

}  // namespace
}  // namespace icount::expand
