#include "timer/internal/text.h"

#include "gtest/gtest.h"

namespace icount::timer::internal {
namespace {

TEST(NormalizeSnippetTest, DropsOneLeadingNewlineAndTrailingSpace) {
  EXPECT_EQ(NormalizeSnippet("\n    x = torch.ones(4)\n    y = x + 1\n    "),
            "x = torch.ones(4)\ny = x + 1");
  EXPECT_EQ(NormalizeSnippet("\n\nx"), "\nx");
}

}  // namespace
}  // namespace icount::timer::internal
