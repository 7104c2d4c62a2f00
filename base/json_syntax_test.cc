#include "base/json_syntax.h"

#include <string>

#include "gtest/gtest.h"

namespace icount::base {
namespace {

TEST(JsonSyntaxTest, WellFormedValues) {
  for (const char* text :
       {"{}", "[]", " {\"a\": [1, -2.5e+3, true, false, null, \"\\u00e9\\n\"]} ", "0", "\"x\""}) {
    EXPECT_EQ(JsonSyntaxError(text), std::nullopt) << text;
  }
}

TEST(JsonSyntaxTest, PointsAtLineAndColumnWithACaret) {
  EXPECT_EQ(JsonSyntaxError("{\n  \"a\": 1,\n}"),
            "3:1: invalid JSON: expected an object key in double quotes\n  }\n  ^");
  EXPECT_EQ(JsonSyntaxError("[1.]"),
            "1:4: invalid JSON: expected a digit after the decimal point\n  [1.]\n     ^");
}

TEST(JsonSyntaxTest, ColumnsCountCharactersNotBytes) {
  EXPECT_EQ(JsonSyntaxError("[\"\xc3\xa9\", x]"),
            "1:7: invalid JSON: expected a value: an object, array, string, number, true, false "
            "or null\n  [\"\xc3\xa9\", x]\n        ^");
}

TEST(JsonSyntaxTest, TrailingTextTruncationAndDepth) {
  EXPECT_NE(JsonSyntaxError("{} {}")->find("unexpected text after the end"), std::string::npos);
  EXPECT_NE(JsonSyntaxError("{\"a\": \"b")->find("unexpected end of file inside a string"),
            std::string::npos);
  EXPECT_NE(JsonSyntaxError(std::string(1000, '['))->find("nested too deeply"), std::string::npos);
}

}  // namespace
}  // namespace icount::base
