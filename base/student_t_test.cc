#include "base/student_t.h"

#include "gtest/gtest.h"

namespace icount::base {
namespace {

TEST(StudentTTest, TwoSidedPMatchesTables) {
  EXPECT_NEAR(StudentTTwoSidedP(0, 5), 1.0, 1e-12);
  EXPECT_NEAR(StudentTTwoSidedP(12.706, 1), 0.05, 1e-4);
  EXPECT_NEAR(StudentTTwoSidedP(2.5706, 5), 0.05, 1e-4);
  EXPECT_NEAR(StudentTTwoSidedP(-2.228, 10), 0.05, 1e-4);
  EXPECT_NEAR(StudentTTwoSidedP(4.032, 5), 0.01, 1e-4);
  EXPECT_NEAR(StudentTTwoSidedP(1.96, 1e6), 0.05, 1e-4);
}

TEST(StudentTTest, QuantileInvertsTheDistribution) {
  EXPECT_NEAR(StudentTQuantile(0.975, 5), 2.5706, 1e-4);
  EXPECT_NEAR(StudentTQuantile(0.975, 30), 2.0423, 1e-4);
  EXPECT_NEAR(StudentTQuantile(0.025, 30), -2.0423, 1e-4);
  EXPECT_NEAR(StudentTQuantile(0.9, 3), 1.6377, 1e-4);
  EXPECT_EQ(StudentTQuantile(0.5, 7), 0);
}

}  // namespace
}  // namespace icount::base
