#include "worker/framing.h"

#include <unistd.h>

#include <optional>
#include <string>

#include "gtest/gtest.h"

namespace icount::worker {
namespace {

TEST(FramingTest, FramesComeBackWholeAndTheEndIsClean) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_TRUE(WriteFrame(fds[1], "first").ok());
  ASSERT_TRUE(WriteFrame(fds[1], "").ok());
  close(fds[1]);
  absl::StatusOr<std::optional<std::string>> frame = ReadFrame(fds[0]);
  ASSERT_TRUE(frame.ok() && frame->has_value());
  EXPECT_EQ(**frame, "first");
  frame = ReadFrame(fds[0]);
  ASSERT_TRUE(frame.ok() && frame->has_value());
  EXPECT_EQ(**frame, "");
  frame = ReadFrame(fds[0]);
  ASSERT_TRUE(frame.ok());
  EXPECT_FALSE(frame->has_value());
  close(fds[0]);
}

TEST(FramingTest, ATruncatedFrameIsDataLoss) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const char partial[] = {10, 0, 0, 0, 'a', 'b'};  // says 10 bytes, has 2
  ASSERT_TRUE(WriteAll(fds[1], partial, sizeof(partial)));
  close(fds[1]);
  absl::StatusOr<std::optional<std::string>> frame = ReadFrame(fds[0]);
  EXPECT_EQ(frame.status().code(), absl::StatusCode::kDataLoss);
  close(fds[0]);

  ASSERT_EQ(pipe(fds), 0);
  ASSERT_TRUE(WriteAll(fds[1], partial, 2));  // half a header
  close(fds[1]);
  EXPECT_EQ(ReadFrame(fds[0]).status().code(), absl::StatusCode::kDataLoss);
  close(fds[0]);
}

}  // namespace
}  // namespace icount::worker
