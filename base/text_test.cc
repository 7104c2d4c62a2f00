#include "base/text.h"

#include "gtest/gtest.h"

namespace icount::base {
namespace {

TEST(IsBlankTest, WhitespaceOnly) {
  EXPECT_TRUE(IsBlank(""));
  EXPECT_TRUE(IsBlank(" \t\r"));
  EXPECT_FALSE(IsBlank("  x"));
}

TEST(NormalizeSnippetTest, DedentsAndStripsEveryLine) {
  EXPECT_EQ(NormalizeSnippet("\n    x = 1  \n      y = 2\n  "), "x = 1\n  y = 2");
  EXPECT_EQ(NormalizeSnippet("x.sum();"), "x.sum();");
}

TEST(NormalizeSnippetTest, DropsLeadingAndTrailingBlankLinesKeepsInteriorOnes) {
  EXPECT_EQ(NormalizeSnippet("\n\n   \n"), "");
  EXPECT_EQ(NormalizeSnippet("\n\n  x\n"), "x");
  // Interior blank lines separate blocks in setups.
  EXPECT_EQ(NormalizeSnippet("  a\n\n  b\n"), "a\n\nb");
}

TEST(DedentTest, RemovesCommonMargin) {
  EXPECT_EQ(Dedent("    x = 1\n      y = 2\n"), "x = 1\n  y = 2\n");
}

TEST(DedentTest, BlankLinesDoNotLimitTheMarginAndBecomeEmpty) {
  EXPECT_EQ(Dedent("    a\n  \n    b"), "a\n\nb");
}

TEST(DedentTest, KeepsRelativeIndentationAndEmptyText) {
  EXPECT_EQ(Dedent("  a\n \n    b"), "a\n\n  b");
  EXPECT_EQ(Dedent(""), "");
}

TEST(DedentTest, MixedTabsAndSpacesShareOnlyTheirCommonPrefix) {
  EXPECT_EQ(Dedent("\ta\n  b"), "\ta\n  b");
}

TEST(IndentTest, PrefixesNonBlankLines) {
  EXPECT_EQ(Indent("a\n\nb\n", "  "), "  a\n\n  b\n");
  EXPECT_EQ(Indent("a", "# "), "# a");
}

TEST(JsonStringTest, EscapesWhatJsonRequires) {
  EXPECT_EQ(JsonString("plain"), "\"plain\"");
  EXPECT_EQ(JsonString("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(JsonString("x\ny\tz\x01"), "\"x\\ny\\tz\\u0001\"");
  EXPECT_EQ(JsonString("caf\xc3\xa9"), "\"caf\xc3\xa9\"");  // UTF-8 passes through
}

TEST(PythonJsonStringTest, AsciiOnlyLikeJsonDumps) {
  // json.dumps("caf\u00e9 \u20ac \U0001f600\r\b\f")
  EXPECT_EQ(PythonJsonString("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\r\b\f"),
            "\"caf\\u00e9 \\u20ac \\ud83d\\ude00\\r\\b\\f\"");
  EXPECT_EQ(PythonJsonString("a\"b\\c\x01"), "\"a\\\"b\\\\c\\u0001\"");
}

TEST(PythonJsonStringTest, InvalidUtf8IsLatin1) {
  EXPECT_EQ(PythonJsonString("\xe9t\xc3"), "\"\\u00e9t\\u00c3\"");
}

TEST(CppStringLiteralTest, EscapesQuotesBackslashesAndNewlines) {
  EXPECT_EQ(CppStringLiteral("a\"b\\c\nd/µ"), "\"a\\\"b\\\\c\\nd/µ\"");
}

TEST(PythonRawLiteralTest, TripleQuotedRaw) {
  EXPECT_EQ(PythonRawLiteral("/tmp/a b\\c.pt"), "r'''/tmp/a b\\c.pt'''");
}

TEST(CountOfTest, PluralUnlessOne) {
  EXPECT_EQ(CountOf(0, "case"), "0 cases");
  EXPECT_EQ(CountOf(1, "case"), "1 case");
  EXPECT_EQ(CountOf(2, "work order"), "2 work orders");
}

}  // namespace
}  // namespace icount::base
