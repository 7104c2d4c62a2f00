#include "worker/libtorch_version_line.h"

#include <sys/stat.h>

#include <cstdlib>
#include <string>

#include "base/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "worker/libtorch_version_line_testutil.h"

namespace icount::worker {
namespace {

using ::testing::HasSubstr;

// A stand-in worker: prints what a side's setup might, then writes
// `report` to the descriptor it is given, as the worker does.
std::string StandIn(const std::string& name, const std::string& report) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  EXPECT_TRUE(base::WriteFileAtomically(
                  path,
                  "#!/bin/sh\n"
                  "echo '(env) activated'\n"
                  "echo 'icount-libtorch-version: 9.9.9 from a line that is no answer'\n" +
                      AnswerOnReportFd(name, report) + "\n")
                  .ok());
  chmod(path.c_str(), 0755);
  return path;
}

TEST(LibTorchVersionLineTest, LinesForPeople) {
  EXPECT_EQ(LibTorchVersionLine({"2.1.0+cpu", "at::show_config()", ""}),
            "icount-libtorch-version: 2.1.0+cpu from at::show_config()");
  EXPECT_EQ(LibTorchVersionLine({"1.13.0", "at::show_config()", "- GCC 12.2; - Build settings: X=1"}),
            "icount-libtorch-version: 1.13.0 from at::show_config()\n"
            "icount-libtorch-build: - GCC 12.2; - Build settings: X=1");
}

// The answer comes on its own descriptor, through a command prefix, what
// the command prints around it read by no one.
TEST(LibTorchVersionLineTest, TheReportIsReadApartFromTheOutput) {
  const std::string worker = StandIn(
      "worker", SerializeLibTorchReport({"2.1.0+cpu", "at::show_config()", "- GCC 12.2"}));
  absl::StatusOr<WorkerLibTorchAnswer> answer =
      AskWorkerForLibTorch({"/bin/sh", "-c", "echo setting up; exec \"$@\"", "side", worker});
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->result.exit_code, 0);
  EXPECT_THAT(answer->result.output, HasSubstr("setting up"));
  ASSERT_TRUE(answer->report.has_value()) << answer->result.output;
  EXPECT_EQ(answer->report->version, "2.1.0+cpu");
  EXPECT_EQ(answer->report->source, "at::show_config()");
  EXPECT_EQ(answer->report->build, "- GCC 12.2");
}

TEST(LibTorchVersionLineTest, AWorkerThatWritesNothingHasNoReport) {
  absl::StatusOr<WorkerLibTorchAnswer> answer = AskWorkerForLibTorch({StandIn("silent", "")});
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_FALSE(answer->report.has_value());
  EXPECT_FALSE(AskWorkerForLibTorch({"/nonexistent/worker"}).ok());
}

}  // namespace
}  // namespace icount::worker
