// Expected values are Python's own: len(), str.center, str.ljust, str.rjust
// (checked with /usr/bin/python3).
#include "compare/internal/text.h"

#include "gtest/gtest.h"

namespace icount::compare::internal {
namespace {

TEST(TextWidthTest, CountsCodePointsNotBytes) {
  EXPECT_EQ(TextWidth(""), 0);
  EXPECT_EQ(TextWidth("abc"), 3);
  EXPECT_EQ(TextWidth("\u00b5-kernel"), 8);     // len("µ-kernel")
  EXPECT_EQ(TextWidth("\u2192\U0001F600"), 2);  // a 3-byte and a 4-byte code point
}

TEST(CenterTest, MatchesPythonOnOddAndEvenPadding) {
  EXPECT_EQ(Center("ab", 5), "  ab ");  // "ab".center(5)
  EXPECT_EQ(Center("ab", 7, '-'), "---ab--");
  EXPECT_EQ(Center("abc", 6), " abc  ");
  EXPECT_EQ(Center("abc", 8), "  abc   ");
  EXPECT_EQ(Center("abcd", 7), "  abcd ");
  EXPECT_EQ(Center("abc", 2), "abc");  // never truncates
  EXPECT_EQ(Center("", 3), "   ");
  EXPECT_EQ(Center("\u00b5s", 5), "  \u00b5s ");  // "µs".center(5), width in code points
}

TEST(JustifyTest, PadsToCodePointWidth) {
  EXPECT_EQ(LeftJustify("ab", 5), "ab   ");
  EXPECT_EQ(LeftJustify("1 threads: ", 14, '-'), "1 threads: ---");
  EXPECT_EQ(LeftJustify("abcdef", 3), "abcdef");
  EXPECT_EQ(RightJustify("ab", 4), "  ab");
  EXPECT_EQ(RightJustify("\u00b5", 3), "  \u00b5");
}

}  // namespace
}  // namespace icount::compare::internal
