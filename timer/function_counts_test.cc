// Expected printed forms come from torch.utils.benchmark 1.13's
// FunctionCounts.__repr__ (first line dropped) on the same rows.
#include "timer/function_counts.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "timer/function_counts_testutil.h"

namespace icount::timer {
namespace {


constexpr char kLongName[] =
    "/tmp/build/../aten/src/ATen/native/BinaryOps.cpp:at::native::add_out(at::Tensor const&, "
    "at::Tensor const&, c10::Scalar const&, at::Tensor&) "
    "[/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.1.13]";

FunctionCounts Sample() {
  return CountsOfTexts({{500, "a.c:foo [/usr/lib/libx.so]"},
                         {-20, "b.c:bar"},
                         {500, "z.c:zed"},
                         {7, "Objects/dictobject.c:lookdict_unicode"},
                         {1234567, kLongName}},
                        /*inclusive=*/false);
}

TEST(FunctionCountsTest, SortedByCountThenNameDescending) {
  FunctionCounts counts = Sample();
  ASSERT_EQ(counts.size(), 5u);
  EXPECT_EQ(counts[0].count, 1234567);
  EXPECT_EQ(counts[1].function.text(), "z.c:zed");  // ties: name descending
  EXPECT_EQ(counts[2].function.text(), "a.c:foo [/usr/lib/libx.so]");
  EXPECT_EQ(counts[4].count, -20);
  EXPECT_EQ(counts.Sum(), 1235554);
}

// As the reference prints them, except that a name too long for the line
// keeps its start and its object's file name (the reference cut the middle
// out, so that two functions could both read "...compu...").
TEST(FunctionCountsTest, PrintedLikeTheReferenceLongNamesCutAtTheEnd) {
  EXPECT_EQ(Sample().ToString(),
            "  1234567  at::native::add_out(at::Tensor const&, at::... [libtorch_cpu.so.1.13]\n"
            "      500  z.c:zed\n"
            "      500  a.c:foo [/usr/lib/libx.so]\n"
            "        7  Objects/dictobject.c:lookdict_unicode\n"
            "      -20  b.c:bar\n"
            "\n"
            "Total: 1235554");
}

FunctionCounts TwentyFour() {
  std::vector<FunctionCount> rows;
  for (int i = 1; i < 25; ++i) {
    rows.push_back(RowOfText(i * 3, "f" + std::to_string(i) + ".c:fn" + std::to_string(i)));
  }
  return FunctionCounts(rows, /*inclusive=*/true);
}

TEST(FunctionCountsTest, LongListsShowFirstAndLastNine) {
  EXPECT_EQ(TwentyFour().ToString(),
            "  72  f24.c:fn24\n  69  f23.c:fn23\n  66  f22.c:fn22\n  63  f21.c:fn21\n"
            "  60  f20.c:fn20\n  57  f19.c:fn19\n  54  f18.c:fn18\n  51  f17.c:fn17\n"
            "  48  f16.c:fn16\n ...\n  27  f9.c:fn9\n  24  f8.c:fn8\n  21  f7.c:fn7\n"
            "  18  f6.c:fn6\n  15  f5.c:fn5\n  12  f4.c:fn4\n   9  f3.c:fn3\n   6  f2.c:fn2\n"
            "   3  f1.c:fn1");
}

TEST(FunctionCountsTest, SliceIsNotTruncated) {
  EXPECT_EQ(TwentyFour().Slice(2, 5).ToString(),
            "  66  f22.c:fn22\n  63  f21.c:fn21\n  60  f20.c:fn20");
  EXPECT_EQ(TwentyFour().Slice(0, 100).size(), 24u);
  EXPECT_EQ(TwentyFour().Slice(30, 40).size(), 0u);
}

TEST(FunctionCountsTest, InclusiveAndExclusiveDoNotMix) {
  FunctionCounts exclusive = CountsOfTexts({{10, "x"}}, false);
  FunctionCounts inclusive = CountsOfTexts({{30, "x"}}, true);
  absl::StatusOr<FunctionCounts> difference = exclusive.Subtract(inclusive);
  ASSERT_FALSE(difference.ok());
  EXPECT_EQ(difference.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(difference.status().message(),
            "cannot subtract inclusive counts from exclusive ones: take both from "
            "Stats(inclusive) with the same `inclusive`");
  EXPECT_FALSE(inclusive.Add(exclusive).ok());
  EXPECT_TRUE(inclusive.Add(inclusive).ok());
}

TEST(FunctionCountsTest, ArithmeticMergesByNameAndDropsZeros) {
  FunctionCounts a = CountsOfTexts({{10, "x"}, {5, "y"}}, false);
  FunctionCounts b = CountsOfTexts({{10, "x"}, {2, "z"}}, false);
  FunctionCounts difference = *a.Subtract(b);
  ASSERT_EQ(difference.size(), 2u);  // x cancels
  EXPECT_EQ(difference[0], RowOfText(5, "y"));
  EXPECT_EQ(difference[1], RowOfText(-2, "z"));
  EXPECT_EQ(a.Add(b)->Sum(), 27);
  // int() truncates toward zero; 617283.5 -> 617283, -10 stays -10.
  FunctionCounts half = Sample() * 0.5;
  EXPECT_EQ(half[0].count, 617283);
  EXPECT_EQ(half[3].count, 3);
  EXPECT_EQ(half[4].count, -10);
}

TEST(FunctionCountsTest, FilterTransformAndDenoise) {
  FunctionCounts counts = Sample();
  EXPECT_EQ(counts.Denoise().size(), 4u);
  EXPECT_EQ(counts.Filter([](const FunctionKey& f) { return f.file() == "a.c"; }).size(), 1u);
  // Collisions merge: every name mapped to one key sums the counts.
  FunctionCounts merged =
      counts.Transform([](const FunctionKey&) { return FunctionKey("", "all", ""); });
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].count, 1235554);
}

TEST(FunctionCountsTest, StandardizationStripsPathsAndLibraries) {
  auto standardized = [](const std::string& key) {
    return StandardizeFunctionKey(FunctionKeyFromText(key)).text();
  };
  EXPECT_EQ(standardized(kLongName),
            "build/../aten/src/ATen/native/BinaryOps.cpp:at::native::add_out(at::Tensor const&, "
            "at::Tensor const&, c10::Scalar const&, at::Tensor&)");
  EXPECT_EQ(standardized("/home/me/cpython/Objects/dictobject.c:lookdict [/usr/bin/python3]"),
            "Objects/dictobject.c:lookdict");
  EXPECT_EQ(standardized("/x/y/Python/ceval.c:_PyEval_EvalFrameDefault"),
            "Python/ceval.c:_PyEval_EvalFrameDefault");
  EXPECT_EQ(standardized("/b/build/aten/src/ATen/Ops.cpp:f"), "build/aten/src/ATen/Ops.cpp:f");
  // Only the object goes, even where the name holds brackets of its own.
  EXPECT_EQ(standardized("a.cc:f(int (&) [3]) [/lib/liba.so]"), "a.cc:f(int (&) [3])");
  // Profiles of two build directories cancel after standardisation.
  FunctionCounts a = CountsOfTexts({{10, "/a/build/../c.cpp:f [/a/lib.so]"}}, false);
  FunctionCounts b = CountsOfTexts({{10, "/b/build/../c.cpp:f [/b/lib.so]"}}, false);
  EXPECT_EQ(a.Subtract(b)->size(), 2u);
  EXPECT_EQ(a.Standardized().Subtract(b.Standardized())->size(), 0u);
}

}  // namespace
}  // namespace icount::timer
