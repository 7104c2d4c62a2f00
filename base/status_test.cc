#include "base/status.h"

#include <string>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"

namespace icount::base {
namespace {

absl::StatusOr<int> Parse(const std::string& text) {
  if (text.empty()) return absl::InvalidArgumentError("empty");
  return static_cast<int>(text.size());
}

absl::Status Check(int value) {
  return value > 2 ? absl::OutOfRangeError("too big") : absl::OkStatus();
}

absl::StatusOr<int> Twice(const std::string& text) {
  ICOUNT_ASSIGN_OR_RETURN(int value, Parse(text), WithContext(_, "parsing '" + text + "'"));
  ICOUNT_RETURN_IF_ERROR(Check(value));
  return 2 * value;
}

absl::Status CheckBoth(const std::string& a, const std::string& b) {
  ICOUNT_RETURN_IF_ERROR(Parse(a));
  ICOUNT_RETURN_IF_ERROR(Check(a.size() + b.size()), WithContext(_, "a and b together"));
  return absl::OkStatus();
}

TEST(StatusMacrosTest, AssignOrReturnPassesValuesAndRewritesErrors) {
  EXPECT_EQ(*Twice("ab"), 4);
  absl::StatusOr<int> empty = Twice("");
  EXPECT_EQ(empty.status(), absl::InvalidArgumentError("parsing '': empty"));
  EXPECT_EQ(Twice("abc").status(), absl::OutOfRangeError("too big"));
}

TEST(StatusMacrosTest, ReturnIfErrorTakesStatusOrAndStatus) {
  EXPECT_TRUE(CheckBoth("a", "b").ok());
  EXPECT_EQ(CheckBoth("", "b"), absl::InvalidArgumentError("empty"));
  EXPECT_EQ(CheckBoth("ab", "c"), absl::OutOfRangeError("a and b together: too big"));
}

TEST(WithContextTest, KeepsCodeAndOk) {
  EXPECT_TRUE(WithContext(absl::OkStatus(), "x").ok());
  EXPECT_EQ(WithContext(absl::NotFoundError("gone"), "file f"),
            absl::NotFoundError("file f: gone"));
}

TEST(WithContextTest, SaysAContextTheMessageStartsWithOnce) {
  EXPECT_EQ(WithContext(absl::NotFoundError("--root: /x: no such directory"), "--root"),
            absl::NotFoundError("--root: /x: no such directory"));
  // Only the whole context, followed by ": ", counts as already said.
  EXPECT_EQ(WithContext(absl::NotFoundError("--rooted: gone"), "--root"),
            absl::NotFoundError("--root: --rooted: gone"));
  EXPECT_EQ(WithContext(absl::NotFoundError("--root"), "--root"),
            absl::NotFoundError("--root: --root"));
}

}  // namespace
}  // namespace icount::base
