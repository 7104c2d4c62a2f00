#include "environment/suite_build.h"

#include <unistd.h>

#include <cstdlib>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "base/files.h"
#include "base/fnv.h"
#include "base/status.h"
#include "base/subprocess.h"

namespace icount::environment {
namespace {

// Lines of Bazel's output an error quotes.
constexpr size_t kQuotedLines = 40;
// The exit code of a Bazel command stopped by an interrupt.
constexpr int kBazelInterrupted = 8;

bool InRoot(const PyTorchInstall& install) { return install.kind == InstallKind::kRoot; }

// A root's Debian LibTorch (no torch of a virtual environment there) is
// where the build looks by default: no repository environment names it.
bool BuildsWithRootsLibTorch(const PyTorchInstall& install) {
  return InRoot(install) && install.python_path.empty();
}

std::string BuildsDirectory(const SuiteBuildOptions& options) {
  return options.builds_directory.empty() ? base::CacheDirectory() + "/libtorch-builds"
                                          : options.builds_directory;
}

std::string Bazel(const SuiteBuildOptions& options) {
  return options.bazel.empty() ? options.workspace + "/bazelw" : options.bazel;
}

// Bazel's startup options: where its outputs go. A root's build also has
// its own install base (the root's Bazel is not the host's) and runs
// without a server (--batch), so that nothing of it outlives the tool in
// the root's mount namespace.
std::vector<std::string> StartupOptions(const PyTorchInstall& install,
                                        const std::string& output_base) {
  std::vector<std::string> options = {"--output_base=" + output_base};
  if (InRoot(install)) {
    options.insert(options.end(),
                   {"--output_user_root=" + output_base + "-user-root", "--batch"});
  } else {
    // The server is only needed for this build: it goes soon after.
    options.push_back("--max_idle_secs=60");
  }
  return options;
}

// Runs Bazel, handing its lines to on_progress; an error quotes the last
// ones and the command.
absl::StatusOr<std::string> RunBazel(const std::vector<std::string>& command,
                                     const SuiteBuildOptions& options, const std::string& what) {
  std::deque<std::string> last;
  std::string first_error;  // a compiler's, located by #line in a case's definition
  base::CommandOptions run;
  run.on_line = [&](const std::string& line) {
    if (options.on_progress) options.on_progress(line);
    last.push_back(line);
    if (last.size() > kQuotedLines) last.pop_front();
    if (first_error.empty() && absl::StrContains(line, ": error: ")) first_error = line;
  };
  // In the workspace, as a person would run it: bazelw and .bazelrc (the
  // disk cache) are found there.
  std::vector<std::string> argv = options.launcher;
  if (!options.launcher.empty()) {
    // The root's programs; and bazelw leaves the root's packages alone (they
    // are the ones a root's build needs, not the host's list).
    argv.insert(argv.end(), {"/usr/bin/env", absl::StrCat("PATH=", kRootPath),
                             "BAZELW_SKIP_PACKAGE_CHECK=1"});
  }
  argv.insert(argv.end(), {"/bin/sh", "-c", "cd \"$1\" && shift && exec \"$@\"",
                           "icount-bazel", options.workspace});
  argv.insert(argv.end(), command.begin(), command.end());
  absl::StatusOr<base::CommandResult> result = base::RunCommand(argv, run);
  if (!result.ok()) return result.status();
  if (result->exit_code == kBazelInterrupted && result->signal == 0) {
    // Ctrl-C reaches Bazel with the tool that started it.
    return absl::CancelledError(absl::StrCat(
        what, " was interrupted (Bazel's exit code ", kBazelInterrupted,
        "): nothing was measured. Run the same command again: the build goes on from what it "
        "had compiled"));
  }
  if (result->exit_code != 0 || result->signal != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, " failed (", base::DescribeExit(*result), ")",
        first_error.empty() ? "" : absl::StrCat("; the first error:\n  ", first_error), "\n",
        "Bazel's last lines:\n", absl::StrJoin(last, "\n"), "\nThe command, run in ",
        options.workspace, ":\n  ", absl::StrJoin(command, " ")));
  }
  return result->output;
}

bool IsIcountWorkspace(const std::string& directory) {
  absl::StatusOr<std::string> workspace = base::ReadFileToString(directory + "/WORKSPACE");
  return workspace.ok() && absl::StrContains(*workspace, "workspace(name = \"icount\")");
}

// The source tree of the Bazel output base this program was built in
// (bazel-bin/tools/X): Bazel writes it to <output base>/DO_NOT_BUILD_HERE.
std::string WorkspaceOfThisBuild() {
  absl::StatusOr<std::string> self = base::RealPath("/proc/self/exe");
  if (!self.ok()) return "";
  const size_t execroot = self->find("/execroot/");
  if (execroot == std::string::npos) return "";
  absl::StatusOr<std::string> workspace =
      base::ReadFileToString(self->substr(0, execroot) + "/DO_NOT_BUILD_HERE");
  if (!workspace.ok()) return "";
  const std::string directory(absl::StripTrailingAsciiWhitespace(*workspace));
  return IsIcountWorkspace(directory) ? directory : "";
}

// "--per_file_copt=.*definitions/full_suite_sources_shard_[0-9]+\.cc@-DA,-DB":
// the generated case sources of options.target (expand/suite.bzl names
// them <name>_sources_shard_<k>.cc).
std::string CaseSourceCopts(const SuiteBuildOptions& options) {
  std::vector<std::string> defines;
  for (const std::string& define : options.case_source_defines) defines.push_back("-D" + define);
  return absl::StrCat("--per_file_copt=.*", SuiteTargetPath(options.target),
                      "_sources_shard_[0-9]+\\.cc@",
                      absl::StrJoin(defines, ","));
}

// Builds in one root take turns, so that a second one (another output
// base: another install in the root, a tool's own build) finds what they
// share in the root's disk cache rather than compiling it beside the first.
absl::StatusOr<base::FileLock> TakeRootBuildTurn(const SuiteBuildOptions& options) {
  const std::string builds = BuildsDirectory(options);
  ICOUNT_RETURN_IF_ERROR(base::MakeDirectories(builds));
  return base::FileLock::Take(absl::StrCat(builds, "/", kRootBuildLockName), [&] {
    if (options.on_progress) options.on_progress("waiting for another build in this root");
  });
}

}  // namespace

std::string SuiteTargetPath(const std::string& target) {
  return absl::StrReplaceAll(absl::StripPrefix(target, "//"), {{":", "/"}});
}

// One output base per install location (not per fingerprint): a developer
// who rebuilds LibTorch in place gets an incremental build, not a new tree.
std::string SuiteOutputBase(const PyTorchInstall& install, const SuiteBuildOptions& options) {
  base::Fnv1a<uint64_t> key;
  key.Add(install.include_directory);
  key.Add(install.library_directory);
  key.Add(install.python_path);
  return absl::StrCat(BuildsDirectory(options), "/", key.Hex());
}

absl::StatusOr<std::string> IcountWorkspace() {
  for (const char* name : {"ICOUNT_WORKSPACE", "BUILD_WORKSPACE_DIRECTORY"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    if (IsIcountWorkspace(value)) return std::string(value);
    return absl::NotFoundError(absl::StrCat("$", name, "=", value,
                                            " is not icount's source tree (no WORKSPACE naming "
                                            "the icount workspace there)"));
  }
  if (std::string workspace = WorkspaceOfThisBuild(); !workspace.empty()) return workspace;
  return absl::NotFoundError(
      "building icount's worker for another LibTorch needs icount's source tree: run the tool "
      "with `./bazelw run //tools:...` from the tree, or set ICOUNT_WORKSPACE=<icount checkout>");
}

std::vector<std::string> SuiteBuildCommand(const PyTorchInstall& install,
                                           const SuiteBuildOptions& options,
                                           const std::string& output_base,
                                           const std::string& fingerprint) {
  std::vector<std::string> command = {Bazel(options)};
  const std::vector<std::string> startup = StartupOptions(install, output_base);
  command.insert(command.end(), startup.begin(), startup.end());
  command.insert(command.end(),
                 {"build", "--curses=no", "--color=no",
                  // No bazel-bin/bazel-out links in the workspace: they belong to the
                  // developer's own build.
                  "--symlink_prefix=/",
                  // Every failing unit's errors, for the cases they name.
                  "--keep_going"});
  if (InRoot(install)) {
    // The root's compiler and headers make other objects than the host's:
    // the root's disk cache, never the host's.
    command.push_back(absl::StrCat("--disk_cache=", BuildsDirectory(options), "/",
                                   kRootDiskCacheName));
  }
  // In a root, with the root's Debian LibTorch, bazelw picks the standard
  // that LibTorch needs by itself: the same flags as any build there (a
  // second -std would change every compile's command line, and so its key
  // in the root's disk cache).
  if (install.cxx_standard != "c++17" && !BuildsWithRootsLibTorch(install)) {
    // After .bazelrc's -std=c++17: the last one wins.
    command.insert(command.end(), {"--cxxopt=-std=" + install.cxx_standard,
                                   "--host_cxxopt=-std=" + install.cxx_standard});
  }
  if (!BuildsWithRootsLibTorch(install)) {
    command.insert(command.end(),
                   {"--repo_env=ICOUNT_BUILD_LIBTORCH_INCLUDE=" + install.include_directory,
                    "--repo_env=ICOUNT_BUILD_LIBTORCH_LIB=" + install.library_directory,
                    "--repo_env=ICOUNT_BUILD_TORCH_PYTHONPATH=" + install.python_path});
  }
  command.push_back("--repo_env=ICOUNT_BUILD_LIBTORCH_FINGERPRINT=" + fingerprint);
  if (!options.snippet_prelude) command.push_back("--define=icount_snippet_prelude=off");
  if (!options.case_source_defines.empty()) command.push_back(CaseSourceCopts(options));
  command.push_back(options.target);
  return command;
}

absl::StatusOr<std::string> SuiteBinDirectory(const PyTorchInstall& install,
                                              const SuiteBuildOptions& options) {
  SuiteBuildOptions quiet = options;
  quiet.on_progress = nullptr;
  std::vector<std::string> info_command = {Bazel(options)};
  const std::vector<std::string> startup =
      StartupOptions(install, SuiteOutputBase(install, options));
  info_command.insert(info_command.end(), startup.begin(), startup.end());
  info_command.insert(info_command.end(), {"info", "bazel-bin"});
  ICOUNT_ASSIGN_OR_RETURN(
      const std::string info,
      RunBazel(info_command, quiet, "asking Bazel where the build's outputs are"));
  // The last line is the answer; bazelw or Bazel may print notes before it.
  absl::string_view answer = absl::StripTrailingAsciiWhitespace(info);
  answer = answer.substr(answer.rfind('\n') + 1);
  if (access(std::string(answer).c_str(), F_OK) != 0) {
    return absl::InternalError(
        absl::StrCat("Bazel names ", answer, " as its outputs' directory, which does not exist"));
  }
  return std::string(answer);
}

absl::StatusOr<BuiltSuite> BuildSuiteFor(const PyTorchInstall& install,
                                         const SuiteBuildOptions& options) {
  if (install.kind == InstallKind::kSystem) {
    return absl::InvalidArgumentError(
        "BuildSuiteFor: Debian's LibTorch is the one the tools are built with");
  }
  BuiltSuite built;
  ICOUNT_ASSIGN_OR_RETURN(built.fingerprint, Fingerprint(install));
  built.output_base = SuiteOutputBase(install, options);
  const std::vector<std::string> build =
      SuiteBuildCommand(install, options, built.output_base, built.fingerprint);
  std::optional<base::FileLock> turn;
  if (InRoot(install)) {
    ICOUNT_ASSIGN_OR_RETURN(base::FileLock lock, TakeRootBuildTurn(options));
    turn.emplace(std::move(lock));
  }
  ICOUNT_RETURN_IF_ERROR(
      RunBazel(build, options, absl::StrCat("building icount for ", Describe(install))).status());
  ICOUNT_ASSIGN_OR_RETURN(built.bin_directory, SuiteBinDirectory(install, options));
  return built;
}

}  // namespace icount::environment
