#include "base/phase_log.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "base/files.h"
#include "gtest/gtest.h"

namespace icount::base {
namespace {

struct Line {
  std::string process, phase;
  double wall = 0, user = 0, sys = 0;
  long minor_faults = 0;
};

std::vector<Line> ReadLog(const std::string& path) {
  std::vector<Line> lines;
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return lines;
  for (absl::string_view row : absl::StrSplit(*text, '\n', absl::SkipEmpty())) {
    std::vector<std::string> fields = absl::StrSplit(row, '\t');
    EXPECT_EQ(fields.size(), 8u) << row;
    if (fields.size() != 8) continue;
    Line line{fields[1], fields[2]};
    EXPECT_TRUE(absl::SimpleAtod(fields[3], &line.wall)) << row;
    EXPECT_TRUE(absl::SimpleAtod(fields[4], &line.user)) << row;
    EXPECT_TRUE(absl::SimpleAtod(fields[5], &line.sys)) << row;
    EXPECT_TRUE(absl::SimpleAtoi(fields[6], &line.minor_faults)) << row;
    lines.push_back(line);
  }
  return lines;
}

// Burns `seconds` of this process's CPU time. CPU time, not wall time: on a
// loaded machine a spin of 50 ms wall time may get a few ms of a CPU, while
// 50 ms of CPU time always takes at least 50 ms of wall time, so the
// assertions below (CPU >= 45 ms, wall >= 50 ms) hold under any load.
void Spin(double seconds) {
  timespec start, now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
  do {
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  } while ((now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) * 1e-9 < seconds);
}

// What the log shows of Spin(0.05): getrusage's user + system time, which
// split the same CPU time at a millisecond's precision in the log.
constexpr double kSpunCpuSeconds = 0.045;

class PhaseLogTest : public ::testing::Test {
 protected:
  // The path is read once per process, so every test shares one log.
  static void SetUpTestSuite() {
    path_ = new std::string(std::string(std::getenv("TEST_TMPDIR")) + "/phases.tsv");
    setenv("ICOUNT_PHASE_LOG", path_->c_str(), 1);
  }
  void SetUp() override { std::remove(path_->c_str()); }
  static std::string* path_;
};
std::string* PhaseLogTest::path_ = nullptr;

TEST_F(PhaseLogTest, RecordsThisProcesssWorkBetweenMarks) {
  ASSERT_TRUE(PhaseLogEnabled());
  PhaseMark mark = PhaseNow();
  Spin(0.05);
  mark = RecordPhase("test", "spin", mark);
  std::vector<char> pages(8 << 20);
  for (size_t i = 0; i < pages.size(); i += 4096) pages[i] = 1;
  RecordPhase("test", "touch 8 MiB", mark);
  std::vector<Line> lines = ReadLog(*path_);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].process, "test");
  EXPECT_EQ(lines[0].phase, "spin");
  EXPECT_GE(lines[0].wall, 0.05);
  EXPECT_GE(lines[0].user + lines[0].sys, kSpunCpuSeconds);
  EXPECT_EQ(lines[1].phase, "touch 8 MiB");
  EXPECT_GE(lines[1].minor_faults, 1000);  // 2048 pages, fewer with huge pages
}

TEST_F(PhaseLogTest, APhaseIncludesTheChildrenItReaped) {
  const PhaseMark mark = PhaseNow();
  const pid_t child = fork();
  if (child == 0) {
    Spin(0.05);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  RecordPhase("parent", "fork, wait", mark);
  std::vector<Line> lines = ReadLog(*path_);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_GE(lines[0].user + lines[0].sys, kSpunCpuSeconds);
}

TEST_F(PhaseLogTest, RecordsAReapedChildsWholeLife) {
  timespec forked;
  clock_gettime(CLOCK_MONOTONIC, &forked);
  const pid_t child = fork();
  if (child == 0) {
    Spin(0.05);
    _exit(0);
  }
  int status = 0;
  rusage usage;
  ASSERT_EQ(wait4(child, &status, 0, &usage), child);
  RecordChildPhase("parent", "child", forked, usage);
  std::vector<Line> lines = ReadLog(*path_);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].phase, "child");
  EXPECT_GE(lines[0].wall, 0.05);
  EXPECT_GE(lines[0].user + lines[0].sys, kSpunCpuSeconds);
}

TEST_F(PhaseLogTest, RecordsTheTimeSinceTheProcessStarted) {
  Spin(0.05);
  RecordPhaseSinceStart("test", "since exec");
  std::vector<Line> lines = ReadLog(*path_);
  ASSERT_EQ(lines.size(), 1u);
  // At least the spin, and not the time since boot.
  EXPECT_GE(lines[0].wall, 0.04);
  EXPECT_LT(lines[0].wall, 3600);
  EXPECT_GE(lines[0].user + lines[0].sys, kSpunCpuSeconds);
}

}  // namespace
}  // namespace icount::base
