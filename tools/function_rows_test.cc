#include "tools/function_rows.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "timer/function_counts.h"

namespace icount::tools {
namespace {

timer::FunctionCount Row(int64_t count, const std::string& function) {
  return {count, timer::FunctionKey("f.c", function, "lib.so")};
}

TEST(LargestFunctionRowsTest, ShowsTheLargestAndSumsTheRest) {
  const timer::FunctionCounts exclusive(
      {Row(5, "small"), Row(1510, "add_out"), Row(474, "build"), Row(7, "other")},
      /*inclusive=*/false);
  EXPECT_EQ(LargestFunctionRows(exclusive, 2, RestSum::kPlain),
            "  1510  f.c:add_out [lib.so]\n"
            "   474  f.c:build [lib.so]\n"
            "  12 in 2 other functions");
}

TEST(LargestFunctionRowsTest, ADifferenceShowsTheLargestChangesEitherWayAndASignedSum) {
  const timer::FunctionCounts delta(
      {Row(40, "grew"), Row(-300, "shrank"), Row(2, "a"), Row(-9, "b")}, /*inclusive=*/false);
  EXPECT_EQ(LargestFunctionRows(delta, 2, RestSum::kSigned),
            // FunctionCounts' columns: a negative count takes one more.
            "     40  f.c:grew [lib.so]\n"
            "   -300  f.c:shrank [lib.so]\n"
            "  -7 in 2 other functions");
  EXPECT_EQ(LargestFunctionRows(delta, 3, RestSum::kSigned),
            "     40  f.c:grew [lib.so]\n"
            "     -9  f.c:b [lib.so]\n"
            "   -300  f.c:shrank [lib.so]\n"
            "  +2 in 1 other function");
}

TEST(LargestFunctionRowsTest, EqualMagnitudesKeepTheCountsOrder) {
  // 3 and -3 tie: the set's order (largest count first) picks 3.
  const timer::FunctionCounts delta({Row(-3, "x"), Row(3, "y"), Row(10, "z")},
                                    /*inclusive=*/false);
  EXPECT_EQ(LargestFunctionRows(delta, 2, RestSum::kSigned),
            "  10  f.c:z [lib.so]\n"
            "   3  f.c:y [lib.so]\n"
            "  -3 in 1 other function");
}

TEST(LargestFunctionRowsTest, AllRowsShownLeaveNoSumLine) {
  const timer::FunctionCounts counts({Row(2, "a"), Row(1, "b")}, /*inclusive=*/false);
  EXPECT_EQ(LargestFunctionRows(counts, 10, RestSum::kPlain),
            "  2  f.c:a [lib.so]\n"
            "  1  f.c:b [lib.so]");
}

TEST(LargestFunctionRowsTest, MoreThanEighteenRowsAreAllShown) {
  std::vector<timer::FunctionCount> rows;
  for (int i = 0; i < 20; ++i) rows.push_back(Row(100 + i, "f" + std::to_string(i)));
  const std::string text =
      LargestFunctionRows(timer::FunctionCounts(rows, /*inclusive=*/false), 20, RestSum::kPlain);
  EXPECT_EQ(text.find("..."), std::string::npos) << text;
  EXPECT_NE(text.find("f.c:f10 [lib.so]"), std::string::npos) << text;
}

TEST(LargestFunctionRowsTest, NoRowsShownLeaveOnlyTheSum) {
  const timer::FunctionCounts counts({Row(2, "a"), Row(1, "b")}, /*inclusive=*/false);
  EXPECT_EQ(LargestFunctionRows(counts, 0, RestSum::kPlain), "  3 in 2 other functions");
  EXPECT_EQ(LargestFunctionRows(timer::FunctionCounts(), 5, RestSum::kPlain), "");
}

}  // namespace
}  // namespace icount::tools
