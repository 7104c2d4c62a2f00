#ifndef ICOUNT_ENVIRONMENT_NESTED_BUILD_SOURCES_H_
#define ICOUNT_ENVIRONMENT_NESTED_BUILD_SOURCES_H_

// The source files of icount's tree that a nested build of a side's worker
// and timer compiles (//definitions:full_suite, //timer and what they use),
// with their digests as this program was built: the table
// //environment:nested_build_sources generates (build_sources.bzl), for
// CheckSourceTree (build_sources.h). Sorted by path.

#include "absl/types/span.h"
#include "environment/build_sources.h"

namespace icount::environment {

absl::Span<const SourceFile> NestedBuildSources();

}  // namespace icount::environment

#endif  // ICOUNT_ENVIRONMENT_NESTED_BUILD_SOURCES_H_
