#include "base/machine.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace icount::base {

std::string HostName() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0') return "unknown";
  return host;
}

namespace {

// The first processor's block of /proc/cpuinfo, by field name ("model
// name", "cpu family", ...), values without surrounding spaces.
std::map<std::string, std::string> FirstProcessorFields() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  std::map<std::string, std::string> fields;
  // The block ends at its blank line.
  while (std::getline(cpuinfo, line) && !line.empty()) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    fields.emplace(std::string(absl::StripTrailingAsciiWhitespace(line.substr(0, colon))),
                   std::string(absl::StripAsciiWhitespace(line.substr(colon + 1))));
  }
  return fields;
}

}  // namespace

std::string CpuModel() {
  const std::map<std::string, std::string> fields = FirstProcessorFields();
  auto it = fields.find("model name");
  return it == fields.end() || it->second.empty() ? "unknown CPU" : it->second;
}

std::string CpuId() {
  const std::map<std::string, std::string> fields = FirstProcessorFields();
  std::vector<std::string> parts;
  for (const auto& [field, name] : {std::pair<const char*, const char*>{"cpu family", "family"},
                                    {"model", "model"},
                                    {"stepping", "stepping"}}) {
    auto it = fields.find(field);
    if (it != fields.end() && !it->second.empty())
      parts.push_back(absl::StrCat(name, " ", it->second));
  }
  return absl::StrJoin(parts, ", ");
}

int OnlineCpus() { return static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)); }

std::vector<int> AllowedCpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
  }
  if (cpus.empty()) {
    for (int cpu = 0; cpu < std::max(1, OnlineCpus()); ++cpu) cpus.push_back(cpu);
  }
  return cpus;
}

}  // namespace icount::base
