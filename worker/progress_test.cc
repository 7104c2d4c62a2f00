#include "worker/progress.h"

#include "gtest/gtest.h"

namespace icount::worker {
namespace {

TEST(ProgressTest, ProgressFormats) {
  RunnerProgress p;
  p.done = 3;
  p.total = 10;
  p.failed = 1;
  p.phase = "wall time, 1 thread";
  p.elapsed_seconds = 30;
  p.eta_seconds = 70;
  EXPECT_EQ(FormatProgress(p, true),
            "[#########.....................] 3/10 (1 failed) wall time, 1 thread, ETA 1m10s");
  EXPECT_EQ(FormatProgress(p, false),
            "icount: 3/10 done (1 failed), wall time, 1 thread, 30s elapsed, ETA 1m10s");
}

TEST(ProgressTest, ProgressLogHasALinePerFinishedOrderAndAHeartbeat) {
  ProgressLog log(30);
  RunnerProgress p;
  p.total = 4;
  p.phase = "instruction counts";
  EXPECT_TRUE(log.Line(p).has_value());  // the first report
  p.elapsed_seconds = 1;
  EXPECT_FALSE(log.Line(p).has_value());  // nothing new
  p.elapsed_seconds = 29;
  EXPECT_FALSE(log.Line(p).has_value());
  p.elapsed_seconds = 30.5;  // quiet for 30 s: a heartbeat
  EXPECT_EQ(log.Line(p), "icount: 0/4 done, instruction counts, 31s elapsed, ETA unknown");
  p.elapsed_seconds = 31;
  EXPECT_FALSE(log.Line(p).has_value());
  p.done = 1;  // an order finished: at once
  EXPECT_TRUE(log.Line(p).has_value());
  p.elapsed_seconds = 61.5;
  EXPECT_TRUE(log.Line(p).has_value());
}

}  // namespace
}  // namespace icount::worker
