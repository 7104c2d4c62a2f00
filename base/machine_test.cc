#include "base/machine.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
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

// Restricted to its last allowed CPU (as `taskset -c N` would), the process
// may use that one only; on a machine with two CPUs or more that is not
// CPU 0, which pinning to 0..n-1 would pick.
TEST(MachineTest, AllowedCpusFollowTheAffinityMask) {
  const std::vector<int> all = AllowedCpus();
  ASSERT_FALSE(all.empty());
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
  cpu_set_t saved;
  ASSERT_EQ(sched_getaffinity(0, sizeof(saved), &saved), 0);
  cpu_set_t last;
  CPU_ZERO(&last);
  CPU_SET(all.back(), &last);
  ASSERT_EQ(sched_setaffinity(0, sizeof(last), &last), 0);
  const std::vector<int> restricted = AllowedCpus();
  ASSERT_EQ(sched_setaffinity(0, sizeof(saved), &saved), 0);
  EXPECT_EQ(restricted, std::vector<int>{all.back()});
}

TEST(MachineTest, CpuIdIsTheFirstProcessorsFamilyModelAndStepping) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  const std::string text((std::istreambuf_iterator<char>(cpuinfo)),
                         std::istreambuf_iterator<char>());
  const std::string cpuid = CpuId();
  if (text.find("\ncpu family\t: ") == std::string::npos) {
    EXPECT_EQ(cpuid, "") << "no family in /proc/cpuinfo";
    return;
  }
  // "family F, model M, stepping S", each the first such line's value.
  const std::vector<std::string> parts = absl::StrSplit(cpuid, ", ");
  ASSERT_EQ(parts.size(), 3) << cpuid;
  const std::pair<const char*, const char*> fields[] = {{"family ", "\ncpu family\t: "},
                                                        {"model ", "\nmodel\t\t: "},
                                                        {"stepping ", "\nstepping\t: "}};
  for (size_t i = 0; i < parts.size(); ++i) {
    ASSERT_TRUE(absl::StartsWith(parts[i], fields[i].first)) << cpuid;
    const std::string value = parts[i].substr(std::strlen(fields[i].first));
    const size_t at = text.find(fields[i].second);
    ASSERT_NE(at, std::string::npos) << fields[i].second;
    EXPECT_EQ(text.substr(at + std::strlen(fields[i].second), value.size() + 1), value + "\n")
        << cpuid;
  }
}

}  // namespace
}  // namespace icount::base
