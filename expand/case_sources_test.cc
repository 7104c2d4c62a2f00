// Naming generated case code, and attributing a compiler's lines to cases
// (expand/generate_test.cc compiles real generated code).
#include "expand/case_sources.h"

#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::expand {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;

SuiteCaseProto CppCase(const std::string& key, std::vector<std::string> label, int threads = 1) {
  SuiteCaseProto c;
  c.set_key(key);
  for (const std::string& part : label) c.add_label(part);
  c.set_runtime(RUNTIME_EAGER);
  c.set_autograd(AUTOGRAD_FORWARD);
  c.set_compiled_case(key);
  c.set_definition_file("definitions/standard.cc");
  c.set_definition_line(340);
  if (threads > 1) c.mutable_task_spec()->set_num_threads(threads);
  return c;
}

TEST(CaseSourcesTest, NamesSayFileLabelModesAndThreads) {
  EXPECT_EQ(CaseSourceName(CppCase("k", {"InferenceMode", "View"})),
            "definitions/standard.cc (InferenceMode / View, C++ Eager Forward)");
  EXPECT_EQ(CaseSourceName(CppCase("k", {"training", "simple"}, 2)),
            "definitions/standard.cc (training / simple, C++ Eager Forward, 2 threads)");
  EXPECT_EQ(GlobalSetupSourceName(CppCase("k", {"a"})),
            "definitions/standard.cc (a, C++ Eager Forward, global setup)");
  SuiteCaseProto unknown = CppCase("k", {"a"});
  unknown.clear_definition_file();
  EXPECT_EQ(CaseSourceName(unknown), "<definitions> (a, C++ Eager Forward)");
}

TEST(CaseSourcesTest, LeaveOutMacrosAreIdentifiersDistinctPerKey) {
  const std::string a = LeaveOutMacro("Pointwise/Math/add/Case:  0|Eager|Forward|C++|1");
  const std::string b = LeaveOutMacro("Pointwise/Math/add/Case:  1|Eager|Forward|C++|1");
  EXPECT_NE(a, b);
  EXPECT_THAT(a, ::testing::MatchesRegex("ICOUNT_LEAVE_OUT_[0-9a-f]{16}"));
}

TEST(CaseSourcesTest, ErrorsGoToTheCaseTheCompilerNamesLast) {
  SuiteManifestProto manifest;
  *manifest.add_cases() = CppCase("view", {"InferenceMode", "View"});
  *manifest.add_cases() = CppCase("case0", {"Pointwise", "Case:  0"});
  *manifest.add_cases() = CppCase("fine", {"Fine"});
  const std::vector<std::string> lines = {
      "ERROR: /src/definitions/BUILD.bazel:60:13: Compiling "
      "definitions/full_suite_sources_shard_0.cc failed: (Exit 1): gcc failed: error executing "
      "command",
      "definitions/standard.cc (InferenceMode / View, C++ Eager Forward): In function 'int "
      "{anonymous}::icount_case_7(const IcountBlockControl*, char*, size_t)':",
      "definitions/standard.cc (InferenceMode / View, C++ Eager Forward):341:25: error: no "
      "matching function for call to 'c10::InferenceMode::InferenceMode()'",
      "/usr/include/c10/core/InferenceMode.h:53:3: note: candidate: "
      "'c10::InferenceMode::InferenceMode(bool)'",
      "definitions/standard.cc (InferenceMode / View, C++ Eager Forward):342:1: error: second",
      // A header's error in a template the case instantiates.
      "/usr/include/c++/12/bits/stl_uninitialized.h: In instantiation of 'X':",
      "definitions/standard.cc (Pointwise / Case:  0, C++ Eager Forward):340:5:   required from "
      "here",
      "/usr/include/c++/12/bits/stl_uninitialized.h:90:56: error: static assertion failed",
      "<icount generated>:12:3: error: not a case's",
      "Target //definitions:full_suite failed to build",
  };
  EXPECT_THAT(
      CaseCompileErrors(manifest, lines),
      ElementsAre(Pair("case0", "/usr/include/c++/12/bits/stl_uninitialized.h:90:56: error: "
                                "static assertion failed"),
                  Pair("view", lines[2])));
}

TEST(CaseSourcesTest, ErrorsNamingNoCaseAreNone) {
  SuiteManifestProto manifest;
  *manifest.add_cases() = CppCase("view", {"InferenceMode", "View"});
  EXPECT_THAT(CaseCompileErrors(manifest, {"/usr/include/torch/script.h:3:10: fatal error: "
                                           "torch/csrc/api/include/torch/types.h: No such file",
                                           "ERROR: Build did NOT complete successfully"}),
              IsEmpty());
}

TEST(CaseSourcesTest, AGlobalSetupsErrorCountsForEveryCaseSharingIt) {
  SuiteManifestProto manifest;
  for (const char* name : {"a", "b", "c"}) {
    SuiteCaseProto c = CppCase(name, {name});
    c.mutable_task_spec()->set_global_setup(name == std::string("c") ? "int other;" : "int x = ;");
    *manifest.add_cases() = c;
  }
  EXPECT_THAT(
      CaseCompileErrors(manifest, {"definitions/standard.cc (a, C++ Eager Forward, global "
                                   "setup):340:9: error: expected primary-expression"}),
      ElementsAre(Pair("a", ::testing::_), Pair("b", ::testing::_)));
}

}  // namespace
}  // namespace icount::expand
