#include "timer/internal/text.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"
#include "base/text.h"

namespace icount::timer::internal {

std::string NormalizeSnippet(absl::string_view text) {
  std::string out = base::Dedent(text);
  if (!out.empty() && out.front() == '\n') out.erase(0, 1);
  while (!out.empty() && absl::ascii_isspace(static_cast<unsigned char>(out.back())))
    out.pop_back();
  return out;
}

}  // namespace icount::timer::internal
