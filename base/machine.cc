#include "base/machine.h"

#include <unistd.h>

#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

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

std::string CpuId() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  std::map<std::string, std::string> fields;
  // The first processor's block ends at its blank line.
  while (std::getline(cpuinfo, line) && !line.empty()) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    fields.emplace(std::string(absl::StripTrailingAsciiWhitespace(line.substr(0, colon))),
                   std::string(absl::StripAsciiWhitespace(line.substr(colon + 1))));
  }
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

}  // namespace icount::base
