#ifndef ICOUNT_ENVIRONMENT_BUILD_SOURCES_H_
#define ICOUNT_ENVIRONMENT_BUILD_SOURCES_H_

// Whether icount's source tree still holds the sources a program was built
// from. A tool builds a side's worker from the source tree at run time
// (suite_build.h), while its own runs, its host side's worker and the
// results it reads come from the tree it was built from: a tree changed
// since (an edit, a `git pull`, another checkout in ICOUNT_WORKSPACE) would
// build a worker other than the one the tool expects, and an A/B would
// compare icount's two versions as much as two PyTorches. So the tool
// carries the path and a digest of each source file such a build compiles
// (environment/nested_build_sources.h, made by build_sources.bzl) and
// checks the tree before building:
//
//   absl::Status same = CheckSourceTree("/home/me/icount", NestedBuildSources());
//   // FailedPrecondition: "icount's source tree at /home/me/icount is not the
//   // one this program was built from: worker/runner.cc changed since ..."

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace icount::environment {

struct SourceFile {
  const char* path;  // relative to the source tree, e.g. "worker/runner.cc"
  uint64_t digest;   // ContentDigest of the file's bytes
};

// FNV-1a (64 bits) of a file's bytes: tells an edited file from the one
// built, not meant to resist a forgery.
uint64_t ContentDigest(absl::string_view content);

// OK when every file of `built_from` has the same bytes under `tree`;
// otherwise FailedPrecondition naming the files that changed or are gone
// (the first few, and how many in all).
absl::Status CheckSourceTree(const std::string& tree, absl::Span<const SourceFile> built_from);

}  // namespace icount::environment

#endif  // ICOUNT_ENVIRONMENT_BUILD_SOURCES_H_
