#include "base/timestamp.h"

#include <ctime>
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

}  // namespace icount::base
