#include "base/runfiles_testutil.h"

#include <string>

#include "absl/status/statusor.h"
#include "base/runfiles.h"
#include "gtest/gtest.h"

namespace icount::base {

std::string TestRunfile(const std::string& relative_path) {
  absl::StatusOr<std::string> found = FindRunfile(relative_path);
  if (!found.ok()) {
    ADD_FAILURE() << found.status();
    return "";
  }
  return *found;
}

}  // namespace icount::base
