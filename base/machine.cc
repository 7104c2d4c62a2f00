#include "base/machine.h"

#include <unistd.h>

#include <fstream>
#include <string>

#include "absl/strings/match.h"

namespace icount::base {

std::string HostName() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0') return "unknown";
  return host;
}

std::string CpuModel() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (absl::StartsWith(line, "model name") && line.find(':') != std::string::npos) {
      const size_t value = line.find_first_not_of(' ', line.find(':') + 1);
      if (value != std::string::npos) return line.substr(value);
    }
  }
  return "unknown CPU";
}

int OnlineCpus() { return static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)); }

}  // namespace icount::base
