#include "expand/libtorch_version.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::expand {
namespace {

using ::testing::HasSubstr;

LibTorchVersion Parse(absl::string_view text, VersionSuffix suffix = VersionSuffix::kRejected) {
  absl::StatusOr<LibTorchVersion> version = ParseLibTorchVersion(text, suffix);
  EXPECT_TRUE(version.ok()) << version.status();
  return version.value_or(LibTorchVersion{});
}

TEST(LibTorchVersionTest, ParsesMajorMinorAndOptionalPatch) {
  EXPECT_EQ(Parse("1.9").ToString(), "1.9.0");
  EXPECT_EQ(Parse("1.13.1").ToString(), "1.13.1");
  EXPECT_EQ(Parse("0.4.1").ToString(), "0.4.1");
  EXPECT_EQ(Parse("10.0.0").ToString(), "10.0.0");
}

TEST(LibTorchVersionTest, OrdersNumericallyNotAsText) {
  EXPECT_TRUE(Parse("1.9") < Parse("1.13"));
  EXPECT_FALSE(Parse("1.13") < Parse("1.9"));
  EXPECT_TRUE(Parse("1.13.0") < Parse("1.13.1"));
  EXPECT_TRUE(Parse("1.13.1") < Parse("2.0"));
  EXPECT_FALSE(Parse("1.9") < Parse("1.9.0"));
  EXPECT_TRUE(Parse("1.9") == Parse("1.9.0"));
}

TEST(LibTorchVersionTest, ReportsMayCarryASuffixThatIsIgnored) {
  EXPECT_EQ(Parse("1.13.0a0", VersionSuffix::kIgnored).ToString(), "1.13.0");
  EXPECT_EQ(Parse("2.1.0+cpu", VersionSuffix::kIgnored).ToString(), "2.1.0");
  EXPECT_EQ(Parse("2.2.0.dev20231201", VersionSuffix::kIgnored).ToString(), "2.2.0");
  EXPECT_EQ(Parse("1.8.0-rc1", VersionSuffix::kIgnored).ToString(), "1.8.0");
  EXPECT_EQ(Parse("1.9", VersionSuffix::kIgnored).ToString(), "1.9.0");
}

TEST(LibTorchVersionTest, DefinitionsMustBeExact) {
  for (absl::string_view bad :
       {"", "1", "1.", "v1.9", "1.9a0", "1.9.0+cpu", "1.09", "1.9.0.1", " 1.9", "one.nine"}) {
    absl::StatusOr<LibTorchVersion> version = ParseLibTorchVersion(bad);
    EXPECT_FALSE(version.ok()) << bad;
    EXPECT_THAT(version.status().message(), HasSubstr("e.g. \"1.9\"")) << bad;
  }
}

TEST(LibTorchVersionTest, ReportsStillNeedTheNumbers) {
  for (absl::string_view bad : {"", "unknown", "1", "1.9.0.1", "1.99999999"}) {
    EXPECT_FALSE(ParseLibTorchVersion(bad, VersionSuffix::kIgnored).ok()) << bad;
  }
}

}  // namespace
}  // namespace icount::expand
