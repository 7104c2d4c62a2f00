#include "base/machine.h"

#include <unistd.h>

#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace icount::base {
namespace {

TEST(MachineTest, AnswersWhatTheSystemSays) {
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof(host) - 1), 0);
  EXPECT_EQ(HostName(), host);
  EXPECT_EQ(OnlineCpus(), sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_GE(OnlineCpus(), 1);
  // The model is a line of /proc/cpuinfo, without its "model name : ".
  std::ifstream cpuinfo("/proc/cpuinfo");
  const std::string text((std::istreambuf_iterator<char>(cpuinfo)),
                         std::istreambuf_iterator<char>());
  const std::string model = CpuModel();
  EXPECT_FALSE(model.empty());
  if (model != "unknown CPU") {
    EXPECT_NE(text.find(": " + model + "\n"), std::string::npos) << model;
  }
}

}  // namespace
}  // namespace icount::base
