#include "expand/text.h"

#include "gtest/gtest.h"

namespace icount::expand::internal {
namespace {

TEST(TextTest, JoinBlocksSkipsEmptyParts) {
  EXPECT_EQ(JoinBlocks({"a", "", "b"}), "a\nb");
  EXPECT_EQ(JoinBlocks({"", ""}), "");
  EXPECT_EQ(JoinBlocks({"a\nb", "c"}), "a\nb\nc");
}

}  // namespace
}  // namespace icount::expand::internal
