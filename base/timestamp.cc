#include "base/timestamp.h"

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>

namespace icount::base {

std::string NowRfc3339() {
  const std::time_t now = std::time(nullptr);
  std::tm utc;
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

std::optional<int64_t> ParseRfc3339(const std::string& text) {
  std::tm utc = {};
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return static_cast<int64_t>(timegm(&utc));
}

}  // namespace icount::base
