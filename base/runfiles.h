#ifndef ICOUNT_BASE_RUNFILES_H_
#define ICOUNT_BASE_RUNFILES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace icount::base {

// The absolute path of a file in this binary's Bazel runfiles, e.g.
// FindRunfile("icount/timer/callgrind_runner"). Looks under $RUNFILES_DIR
// and $TEST_SRCDIR (`bazel run`, `bazel test`), then in the runfiles trees
// of this process's argv[0] and executable (RunfilesTreesOf). The first
// component names the repository as a WORKSPACE build names it ("icount");
// under bzlmod, the tree's _repo_mapping gives its directory ("_main",
// "icount~"). NotFound names the file and how to fix.
absl::StatusOr<std::string> FindRunfile(const std::string& relative_path);

// Every place FindRunfile looks where `relative_path` exists, in its order:
// for a caller that must pick among them (one built for another LibTorch).
std::vector<std::string> FindRunfiles(const std::string& relative_path);

// The runfiles trees a binary started as `argv0` (the executable `exe`,
// symbolic links resolved) may have, in order: the tree argv0 lies in (a
// binary started from another's runfiles, as the runner starts a worker
// with its environment cleared), then argv0.runfiles and exe.runfiles (a
// bazel-bin/... invocation). They need not exist.
std::vector<std::string> RunfilesTreesOf(const std::string& argv0, const std::string& exe);

}  // namespace icount::base

#endif  // ICOUNT_BASE_RUNFILES_H_
