// Timer::ForCpp: C++ statement strings compiled at run time.
#include <ATen/Parallel.h>

#include <csignal>
#include <cstdlib>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "timer/internal/cpp_snippet.h"
#include "timer/timer.h"

namespace icount::timer {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kSetup[] = R"(
    auto x = torch::ones({4, 4});
    auto y = torch::ones({4, 4});
)";

TEST(CppStringTest, CompilesOnceThenHitsTheCache) {
  // A cache of this test run's own; the other tests share the user's cache.
  const std::string cache = std::string(std::getenv("TEST_TMPDIR")) + "/fresh-snippet-cache";
  ASSERT_EQ(setenv("ICOUNT_CACHE_DIR", cache.c_str(), 1), 0);
  const std::string stmt = "auto z = torch::add(x, y);";
  auto first = timer::internal::CompiledCppSnippet::Compile(
      {stmt, "auto x = torch::ones({4, 4}); auto y = x;", ""});
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE((*first)->from_cache());
  auto second = timer::internal::CompiledCppSnippet::Compile(
      {stmt, "auto x = torch::ones({4, 4}); auto y = x;", ""});
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE((*second)->from_cache());
  EXPECT_EQ((*first)->shared_object_path(), (*second)->shared_object_path());
  unsetenv("ICOUNT_CACHE_DIR");
}

TEST(CppStringTest, MeasuresWithSetupAndGlobalSetup) {
  TimerOptions options;
  options.label = "add";
  options.num_threads = 1;
  absl::StatusOr<Timer> timer = Timer::ForCpp(
      "auto z = torch::add(x, y); scale(z);", kSetup,
      "#include <cmath>\nstatic void scale(torch::Tensor& t) { t.mul_(std::sqrt(2.0)); }", options);
  ASSERT_TRUE(timer.ok()) << timer.status();
  EXPECT_EQ(timer->task_spec().setup,
            "auto x = torch::ones({4, 4});\nauto y = torch::ones({4, 4});");
  absl::StatusOr<Measurement> m = timer->BlockedAutorange(0.05);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_GT(m->Median(), 1e-8);
  EXPECT_EQ(m->task_spec().language, Language::kCpp);
}

TEST(CppStringTest, CompileErrorPointsAtTheSnippetLine) {
  absl::StatusOr<Timer> timer =
      Timer::ForCpp("auto z = x + y;\nauto w = z.no_such_method();", kSetup);
  ASSERT_FALSE(timer.ok());
  EXPECT_EQ(timer.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(timer.status().message());
  EXPECT_THAT(message, HasSubstr("stmt:2:"));
  EXPECT_THAT(message, HasSubstr("no_such_method"));
  EXPECT_THAT(message, Not(HasSubstr("icount harness")));
}

// An error the snippet's call causes inside a header (a template it
// instantiated) keeps the compiler's error line, not only "stmt:...:
// required from here".
TEST(CppStringTest, AnErrorInAHeaderTheSnippetInstantiatedIsKept) {
  absl::StatusOr<Timer> timer =
      Timer::ForCpp("std::vector<int> v(2); std::sort(v.begin(), v.end(), 5);", "",
                    "#include <algorithm>\n#include <vector>");
  ASSERT_FALSE(timer.ok());
  EXPECT_EQ(timer.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(timer.status().message());
  EXPECT_THAT(message, HasSubstr("stmt:1:"));
  EXPECT_THAT(message, ContainsRegex("/usr/include/c\\+\\+/[0-9]+/bits/[a-z_]+\\.h:[0-9]+:[0-9]+: "
                                     "error: "));
}

// A snippet that compiles but calls what nothing defines is the caller's
// mistake, said in the function's own name, and stays out of the cache.
TEST(CppStringTest, AnUndefinedFunctionIsNamedAndNotCached) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    absl::StatusOr<Timer> timer = Timer::ForCpp("undefined_fn(3);", "", "void undefined_fn(int);");
    ASSERT_FALSE(timer.ok());
    EXPECT_EQ(timer.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(timer.status().message()),
                StartsWith("C++ snippet calls undefined_fn(int) (_Z12undefined_fni), which "
                           "nothing defines: a snippet is linked on its own"));
  }
}

TEST(CppStringTest, ThrowingStatementIsAStatus) {
  absl::StatusOr<Timer> timer = Timer::ForCpp("auto v = x.view({3});", kSetup);
  ASSERT_TRUE(timer.ok()) << timer.status();
  absl::StatusOr<Measurement> m = timer->Timeit(10);
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("shape '[3]' is invalid"));
}

// What timer.h documents: statements run in the caller's process, so a
// crashing one takes the caller with it (base::RunInChild isolates it).
TEST(CppStringDeathTest, ACrashingStatementCrashesTheCaller) {
  absl::StatusOr<Timer> timer = Timer::ForCpp("volatile int* p = nullptr; *p = 1;");
  ASSERT_TRUE(timer.ok()) << timer.status();
  EXPECT_EXIT((void)timer->Timeit(1), ::testing::KilledBySignal(SIGSEGV), "");
}

TEST(CppStringTest, EmptyStatementIsRejected) {
  EXPECT_EQ(Timer::ForCpp("  \n ").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace icount::timer
