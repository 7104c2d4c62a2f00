#include "base/runfiles.h"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace icount::base {

absl::StatusOr<std::string> FindRunfile(const std::string& relative_path) {
  std::vector<std::string> roots;
  for (const char* variable : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    if (const char* root = std::getenv(variable); root != nullptr && *root) roots.push_back(root);
  }
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n > 0) roots.push_back(std::string(self, static_cast<size_t>(n)) + ".runfiles");
  for (const std::string& root : roots) {
    const std::string candidate = absl::StrCat(root, "/", relative_path);
    if (access(candidate.c_str(), F_OK) == 0) return candidate;
  }
  return absl::NotFoundError(absl::StrCat(
      "cannot find ", relative_path,
      " in this binary's runfiles: run it with `bazel run` or "
      "from bazel-bin, and make sure the target that provides it is in the binary's data"));
}

}  // namespace icount::base
