#ifndef ICOUNT_ENVIRONMENT_SUITE_BUILD_H_
#define ICOUNT_ENVIRONMENT_SUITE_BUILD_H_

// icount's suite (its worker with every C++ case compiled in, the manifest,
// the TorchScript artifacts) built against another LibTorch than Debian's:
// a nested `bazel build` of icount's own source tree, with @libtorch_api
// pointing at the install (third_party/repositories.bzl, libtorch_install),
// in a Bazel output base of its own per install (by location: a
// developer's rebuild in place reuses it, and Bazel recompiles only what
// the changed headers reach). The generated C++ case sources are the same
// genrule outputs as in the default build; what changes is the headers
// they are compiled against and the libraries they are linked with.
// Actions that see no LibTorch header come from the shared disk cache, and
// a second build with nothing changed compiles nothing.
//
//   SuiteBuildOptions options;
//   ICOUNT_ASSIGN_OR_RETURN(options.workspace, IcountWorkspace());
//   options.on_progress = [](const std::string& line) { std::cerr << line << "\n"; };
//   absl::StatusOr<BuiltSuite> built = BuildSuiteFor(install, options);
//   // built->bin_directory + "/definitions/full_suite_worker"

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "environment/pytorch_install.h"

namespace icount::environment {

// In a root's builds directory (RootBuildsDirectory, root.h): the disk
// cache every build there shares, and the lock they take turns with. A
// Bazel build of your own in the root reuses icount's objects when it
// passes --disk_cache=<builds>/disk-cache and runs under
// `flock <builds>/build.lock`.
inline constexpr char kRootDiskCacheName[] = "disk-cache";
inline constexpr char kRootBuildLockName[] = "build.lock";

struct SuiteBuildOptions {
  std::string workspace;  // icount's source tree, e.g. from IcountWorkspace()
  // The Bazel command; empty: <workspace>/bazelw.
  std::string bazel;
  // Where output bases live; empty: base::CacheDirectory() + "/libtorch-builds"
  // (a root's: RootBuildsDirectory, root.h).
  std::string builds_directory;
  std::string target = "//definitions:full_suite";
  // Whether the build precompiles <torch/script.h> for C++ compiled at run
  // time (//timer/internal:snippet_prelude: ~30 s once per LibTorch). The
  // suite's worker runs its C++ cases compiled in and needs none; a tool
  // that compiles C++ statements, such as timeit, does.
  bool snippet_prelude = false;
  // kRoot installs: the command prefix that runs a command inside the root
  // (RootLauncher, root.h), with the workspace and builds_directory seen
  // there. The build then runs bazelw there, so the root's own Bazel (with
  // the options of its version) and compiler, with an output user root and
  // a disk cache of its own under builds_directory: actions compiled by
  // another compiler or against other system headers are never reused.
  std::vector<std::string> launcher;
  // Macros defined for the suite's generated C++ case sources alone
  // (--per_file_copt), such as the ICOUNT_LEAVE_OUT_ macro of each case to
  // leave out (expand/case_sources.h): changing them recompiles those
  // sources and links the worker again, nothing else.
  std::vector<std::string> case_source_defines;
  // Bazel's progress and error lines as they come ("[120 / 431] Compiling ...").
  std::function<void(const std::string& line)> on_progress;
};

struct BuiltSuite {
  std::string bin_directory;  // the build's bazel-bin
  std::string output_base;
  std::string fingerprint;  // of the install's files when it was built (Fingerprint())
};

// icount's source tree, needed to build for another LibTorch:
// $ICOUNT_WORKSPACE, else $BUILD_WORKSPACE_DIRECTORY (set by `bazel run`),
// else the tree this program was built from (bazel-bin/tools/X, whose
// Bazel output base records it); an error saying so when none names a
// directory with icount's WORKSPACE.
absl::StatusOr<std::string> IcountWorkspace();

// Where in a bazel-bin a suite target's outputs start:
// "//definitions:full_suite" -> "definitions/full_suite" (then
// "_worker", "_sources_manifest.pb", "_sources_shard_0.cc", ...).
std::string SuiteTargetPath(const std::string& target);

// The Bazel output base of `install`'s builds: one per install location,
// so that a LibTorch rebuilt in place builds incrementally.
std::string SuiteOutputBase(const PyTorchInstall& install, const SuiteBuildOptions& options);

// The build's bazel-bin, as Bazel names it (also after a failed build,
// whose generated sources and manifest are there).
absl::StatusOr<std::string> SuiteBinDirectory(const PyTorchInstall& install,
                                              const SuiteBuildOptions& options);

// The Bazel command line BuildSuiteFor runs (for messages and tests).
std::vector<std::string> SuiteBuildCommand(const PyTorchInstall& install,
                                           const SuiteBuildOptions& options,
                                           const std::string& output_base,
                                           const std::string& fingerprint);

// Builds options.target against `install` (not kSystem: Debian's is what
// the running tool was built with), with the C++ standard it needs, going
// on past a failed action (--keep_going) so that every failing translation
// unit reports its errors. An error carries the first compiler error,
// Bazel's last lines and the command to rerun.
absl::StatusOr<BuiltSuite> BuildSuiteFor(const PyTorchInstall& install,
                                         const SuiteBuildOptions& options);

}  // namespace icount::environment

#endif  // ICOUNT_ENVIRONMENT_SUITE_BUILD_H_
