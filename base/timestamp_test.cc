#include "base/timestamp.h"

#include "gtest/gtest.h"
#include "re2/re2.h"

namespace icount::base {
namespace {

TEST(TimestampTest, IsRfc3339InUtc) {
  EXPECT_TRUE(RE2::FullMatch(NowRfc3339(), R"(20\d\d-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-6]\dZ)"))
      << NowRfc3339();
}

TEST(TimestampTest, ParsesWhatItWrites) {
  EXPECT_EQ(ParseRfc3339("1970-01-01T00:01:40Z"), 100);
  EXPECT_EQ(ParseRfc3339("2026-11-23T19:30:05Z"), 1795462205);
  const std::optional<int64_t> now = ParseRfc3339(NowRfc3339());
  ASSERT_TRUE(now.has_value());
  EXPECT_EQ(ParseRfc3339(NowRfc3339()).value_or(0) - *now <= 1, true);
  EXPECT_EQ(ParseRfc3339("2026-11-23 19:30:05"), std::nullopt);
  EXPECT_EQ(ParseRfc3339("2026-11-23T19:30:05Z trailing"), std::nullopt);
  EXPECT_EQ(ParseRfc3339(""), std::nullopt);
}

}  // namespace
}  // namespace icount::base
