#include "base/timestamp.h"

#include "gtest/gtest.h"
#include "re2/re2.h"

namespace icount::base {
namespace {

TEST(TimestampTest, IsRfc3339InUtc) {
  EXPECT_TRUE(RE2::FullMatch(NowRfc3339(), R"(20\d\d-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-6]\dZ)"))
      << NowRfc3339();
}

}  // namespace
}  // namespace icount::base
