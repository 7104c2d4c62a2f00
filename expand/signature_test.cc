#include "expand/signature.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::expand {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(SignatureTest, ParsesArgumentsAndOutput) {
  absl::StatusOr<Signature> s = ParseSignature("f(x, w) -> y");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_THAT(s->args, ElementsAre("x", "w"));
  ASSERT_TRUE(s->output.has_value());
  EXPECT_EQ(*s->output, "y");
  EXPECT_EQ(s->ArgList(), "x, w");
  EXPECT_EQ(s->ToString(), "f(x, w) -> y");
}

TEST(SignatureTest, ToleratesSpacing) {
  for (const char* text : {"f(x,w)->y", "  f ( x ,  w )  ->   y  ", "f(x,\tw) ->y"}) {
    absl::StatusOr<Signature> s = ParseSignature(text);
    ASSERT_TRUE(s.ok()) << text << ": " << s.status();
    EXPECT_THAT(s->args, ElementsAre("x", "w")) << text;
    EXPECT_EQ(s->output.value_or(""), "y") << text;
  }
}

TEST(SignatureTest, NoneMeansNoOutput) {
  absl::StatusOr<Signature> s = ParseSignature("f(x, y_float) -> None");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_THAT(s->args, ElementsAre("x", "y_float"));
  EXPECT_FALSE(s->output.has_value());
  EXPECT_EQ(s->ToString(), "f(x, y_float) -> None");
}

TEST(SignatureTest, ZeroArguments) {
  for (const char* text : {"f() -> y", "f(  ) -> y"}) {
    absl::StatusOr<Signature> s = ParseSignature(text);
    ASSERT_TRUE(s.ok()) << text << ": " << s.status();
    EXPECT_THAT(s->args, IsEmpty());
    EXPECT_EQ(s->output.value_or(""), "y");
  }
  absl::StatusOr<Signature> none = ParseSignature("f() -> None");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->ToString(), "f() -> None");
}

TEST(SignatureTest, RejectsMalformedSignatures) {
  struct Case {
    const char* text;
    const char* why;
  };
  for (const Case& c : std::vector<Case>{
           {"g(x) -> y", "does not look like"},
           {"f(x) y", "does not look like"},
           {"f(x -> y", "does not look like"},
           {"f(x) -> y, z", "multiple return values"},
           {"f(x,) -> y", "argument \"\" is not an identifier"},
           {"f(x, 2d) -> y", "argument \"2d\" is not an identifier"},
           {"f(x.t()) -> y", "is not an identifier"},
           {"f(x, x) -> y", "appears twice"},
           {"f(x) -> ", "output \"\" is not an identifier"},
           {"f(x) -> y.sum()", "output \"y.sum()\" is not an identifier"},
       }) {
    absl::StatusOr<Signature> s = ParseSignature(c.text);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(s.status().message()), HasSubstr(c.why)) << c.text;
    EXPECT_THAT(std::string(s.status().message()), HasSubstr(c.text)) << c.text;
  }
}

}  // namespace
}  // namespace icount::expand
