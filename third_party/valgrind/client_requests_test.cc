// Proves the callgrind client requests compile into our code and are inert
// outside valgrind.
#include <valgrind/callgrind.h>
#include <valgrind/valgrind.h>

#include "gtest/gtest.h"

namespace {

TEST(ValgrindClientRequestsTest, InertOutsideValgrind) {
  // Bazel runs tests natively, never under valgrind.
  EXPECT_EQ(RUNNING_ON_VALGRIND, 0u);
  // Each of these is a no-op sequence of instructions natively.
  CALLGRIND_ZERO_STATS;
  CALLGRIND_START_INSTRUMENTATION;
  CALLGRIND_TOGGLE_COLLECT;
  CALLGRIND_TOGGLE_COLLECT;
  CALLGRIND_STOP_INSTRUMENTATION;
  CALLGRIND_DUMP_STATS_AT("wiring test");
  SUCCEED();
}

}  // namespace
