#include "expand/text.h"

#include <string>
#include <vector>

namespace icount::expand::internal {

std::string JoinBlocks(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) {
    if (part.empty()) continue;
    if (!out.empty()) out += '\n';
    out += part;
  }
  return out;
}

}  // namespace icount::expand::internal
