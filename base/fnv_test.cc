#include "base/fnv.h"

#include "gtest/gtest.h"

namespace icount::base {
namespace {

// Reference values: FNV-1a of the bytes, the separator included.
TEST(Fnv1aTest, MatchesThePublishedParameters) {
  Fnv1a64 empty64;
  EXPECT_EQ(empty64.value(), 0xcbf29ce484222325ULL);
  Fnv1a32 empty32;
  EXPECT_EQ(empty32.value(), 2166136261u);
  // FNV-1a 32 of "a" is 0xe40c292c; of "a\0" one more step.
  Fnv1a32 a;
  a.Add("a", '\0');
  EXPECT_EQ(a.value(), (0xe40c292cu ^ 0u) * 16777619u);
}

TEST(Fnv1aTest, SeparatorTellsSplitsApart) {
  Fnv1a64 x, y;
  x.Add("ab");
  x.Add("c");
  y.Add("a");
  y.Add("bc");
  EXPECT_NE(x.value(), y.value());
}

TEST(Fnv1aTest, HexIsZeroPaddedToTheWordWidth) {
  Fnv1a64 h64;
  EXPECT_EQ(h64.Hex(), "cbf29ce484222325");
  Fnv1a32 h32;
  EXPECT_EQ(h32.Hex(), "811c9dc5");
  EXPECT_EQ(h32.Hex().size(), 8u);
}

}  // namespace
}  // namespace icount::base
