#include "worker/failure.h"

#include "gtest/gtest.h"

namespace icount::worker {
namespace {

TEST(FailureTest, Names) {
  EXPECT_STREQ(FailureKindName(worker::FAILURE_SETUP), "setup");
  EXPECT_STREQ(FailureKindName(worker::FAILURE_MEASURE), "measure");
  EXPECT_STREQ(FailureKindName(worker::FAILURE_CRASH), "crash");
  EXPECT_STREQ(FailureKindName(worker::FAILURE_TIMEOUT), "timeout");
  EXPECT_STREQ(FailureKindName(worker::FAILURE_WORKER), "worker");
  EXPECT_STREQ(FailureKindName(worker::FAILURE_KIND_UNSPECIFIED), "unknown");
}

TEST(FailureTest, OnlyWhatTheMachineMayCauseIsRetried) {
  EXPECT_TRUE(IsRetryable(worker::FAILURE_CRASH));
  EXPECT_TRUE(IsRetryable(worker::FAILURE_TIMEOUT));
  EXPECT_TRUE(IsRetryable(worker::FAILURE_WORKER));
  EXPECT_FALSE(IsRetryable(worker::FAILURE_SETUP));
  EXPECT_FALSE(IsRetryable(worker::FAILURE_MEASURE));
}

TEST(FailureTest, FailureResult) {
  const worker::WorkerResultProto result = FailureResult(worker::FAILURE_TIMEOUT, "too slow");
  ASSERT_TRUE(result.has_failure());
  EXPECT_EQ(result.failure().kind(), worker::FAILURE_TIMEOUT);
  EXPECT_EQ(result.failure().reason(), "too slow");
}

}  // namespace
}  // namespace icount::worker
