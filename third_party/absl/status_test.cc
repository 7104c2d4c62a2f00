// Proves abseil's Status/StatusOr and strings link from Debian's shared
// libraries.
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace {

absl::StatusOr<int> ParsePositive(int value) {
  if (value <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("expected a positive value, got ", value));
  }
  return value * 2;
}

TEST(AbslStatusTest, ValueAndErrorPaths) {
  absl::StatusOr<int> ok = ParsePositive(21);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 42);

  absl::StatusOr<int> bad = ParsePositive(-1);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "expected a positive value, got -1");
}

}  // namespace
