#include "worker/libtorch_version_line_testutil.h"

#include <cstdlib>
#include <string>

#include "base/files.h"
#include "gtest/gtest.h"

namespace icount::worker {

std::string AnswerOnReportFd(const std::string& name, const std::string& report) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name + ".report";
  EXPECT_TRUE(base::WriteFileAtomically(path, report).ok()) << path;
  return "fd=${1#--libtorch_report_fd=}; eval \"cat '" + path + "' >&$fd\"";
}

}  // namespace icount::worker
