#include "timer/internal/text.h"

#include "gtest/gtest.h"

namespace icount::timer_internal {
namespace {

TEST(DedentTest, RemovesCommonMargin) {
  EXPECT_EQ(Dedent("    x = 1\n      y = 2\n"), "x = 1\n  y = 2\n");
}

TEST(DedentTest, BlankLinesDoNotLimitTheMarginAndBecomeEmpty) {
  EXPECT_EQ(Dedent("    a\n  \n    b"), "a\n\nb");
}

TEST(DedentTest, MixedTabsAndSpacesShareOnlyTheirCommonPrefix) {
  EXPECT_EQ(Dedent("\ta\n  b"), "\ta\n  b");
}

TEST(IndentTest, PrefixesNonBlankLines) {
  EXPECT_EQ(Indent("a\n\nb\n", "  "), "  a\n\n  b\n");
}

TEST(NormalizeSnippetTest, DropsOneLeadingNewlineAndTrailingSpace) {
  EXPECT_EQ(NormalizeSnippet("\n    x = torch.ones(4)\n    y = x + 1\n    "),
            "x = torch.ones(4)\ny = x + 1");
}

TEST(JsonStringTest, EscapesWhatJsonRequires) {
  EXPECT_EQ(JsonString("plain"), "\"plain\"");
  EXPECT_EQ(JsonString("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(JsonString("x\ny\tz\x01"), "\"x\\ny\\tz\\u0001\"");
  EXPECT_EQ(JsonString("caf\xc3\xa9"), "\"caf\xc3\xa9\"");  // UTF-8 passes through
}

}  // namespace
}  // namespace icount::timer_internal
