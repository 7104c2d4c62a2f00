#include "worker/failure.h"

#include "gtest/gtest.h"

namespace icount::worker {
namespace {

TEST(FailureTest, Names) {
  EXPECT_STREQ(FailureKindName(FAILURE_SETUP), "setup");
  EXPECT_STREQ(FailureKindName(FAILURE_MEASURE), "measure");
  EXPECT_STREQ(FailureKindName(FAILURE_CRASH), "crash");
  EXPECT_STREQ(FailureKindName(FAILURE_TIMEOUT), "timeout");
  EXPECT_STREQ(FailureKindName(FAILURE_WORKER), "worker");
  EXPECT_STREQ(FailureKindName(FAILURE_KIND_UNSPECIFIED), "unknown");
}

TEST(FailureTest, OnlyWhatTheMachineMayCauseIsRetried) {
  EXPECT_TRUE(IsRetryable(FAILURE_CRASH));
  EXPECT_TRUE(IsRetryable(FAILURE_TIMEOUT));
  EXPECT_TRUE(IsRetryable(FAILURE_WORKER));
  EXPECT_FALSE(IsRetryable(FAILURE_SETUP));
  EXPECT_FALSE(IsRetryable(FAILURE_MEASURE));
}

TEST(FailureTest, FailureResult) {
  const WorkerResultProto result = FailureResult(FAILURE_TIMEOUT, "too slow");
  ASSERT_TRUE(result.has_failure());
  EXPECT_EQ(result.failure().kind(), FAILURE_TIMEOUT);
  EXPECT_EQ(result.failure().reason(), "too slow");
}

}  // namespace
}  // namespace icount::worker
