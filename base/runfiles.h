#ifndef ICOUNT_BASE_RUNFILES_H_
#define ICOUNT_BASE_RUNFILES_H_

#include <string>

#include "absl/status/statusor.h"

namespace icount::base {

// The absolute path of a file in this binary's Bazel runfiles, e.g.
// FindRunfile("icount/timer/callgrind_runner"). Looks under $RUNFILES_DIR,
// $TEST_SRCDIR and <this executable>.runfiles (what `bazel run` and a
// bazel-bin/... invocation provide). NotFound names the file and how to fix.
absl::StatusOr<std::string> FindRunfile(const std::string& relative_path);

}  // namespace icount::base

#endif  // ICOUNT_BASE_RUNFILES_H_
