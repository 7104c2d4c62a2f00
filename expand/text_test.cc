#include "expand/text.h"

#include "gtest/gtest.h"

namespace icount::expand::internal {
namespace {

TEST(TextTest, IsBlank) {
  EXPECT_TRUE(IsBlank(""));
  EXPECT_TRUE(IsBlank(" \t\r"));
  EXPECT_FALSE(IsBlank("  x"));
}

TEST(TextTest, DedentRemovesTheCommonMargin) {
  EXPECT_EQ(Dedent("    a\n      b\n    c"), "a\n  b\nc");
  // Blank lines neither count towards the margin nor keep their spaces.
  EXPECT_EQ(Dedent("  a\n \n    b"), "a\n\n  b");
  // A tab and spaces are different margins, as in textwrap.
  EXPECT_EQ(Dedent("\ta\n  b"), "\ta\n  b");
  EXPECT_EQ(Dedent(""), "");
}

TEST(TextTest, IndentSkipsBlankLines) {
  EXPECT_EQ(Indent("a\n\nb", "    "), "    a\n\n    b");
  EXPECT_EQ(Indent("a", "# "), "# a");
}

TEST(TextTest, NormalizeCode) {
  EXPECT_EQ(NormalizeCode("\n    x = 1  \n      y = 2\n  "), "x = 1\n  y = 2");
  EXPECT_EQ(NormalizeCode("x.sum();"), "x.sum();");
  EXPECT_EQ(NormalizeCode("\n\n   \n"), "");
  // Interior blank lines are kept: they separate blocks in setups.
  EXPECT_EQ(NormalizeCode("  a\n\n  b\n"), "a\n\nb");
}

TEST(TextTest, JoinBlocksSkipsEmptyParts) {
  EXPECT_EQ(JoinBlocks({"a", "", "b"}), "a\nb");
  EXPECT_EQ(JoinBlocks({"", ""}), "");
  EXPECT_EQ(JoinBlocks({"a\nb", "c"}), "a\nb\nc");
}

}  // namespace
}  // namespace icount::expand::internal
