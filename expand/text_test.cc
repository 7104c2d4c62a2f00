#include "expand/text.h"

#include "gtest/gtest.h"

namespace icount::expand::internal {
namespace {

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
