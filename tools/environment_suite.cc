#include "tools/environment_suite.h"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/program_place.h"
#include "base/status.h"
#include "compare/node_check.h"
#include "environment/root.h"
#include "environment/suite_build.h"
#include "worker/runner.h"

namespace icount::tools {

namespace {

// The environment's PyTorch, said on stderr, and, when it is not Debian's,
// `target` built against it (BuiltSuite::bin_directory; empty for Debian's),
// with the prelude of run-time C++ snippets when `snippet_prelude`.
struct FoundAndBuilt {
  environment::PyTorchInstall install;
  environment::BuiltSuite built;
  std::vector<std::string> launcher;  // a root's
  std::string valgrind_version;       // a root's
};

void Say(const std::string& tool, const std::string& side, const std::string& line) {
  std::fprintf(stderr, "%s: %s: %s\n", tool.c_str(), side.c_str(), line.c_str());
}

// The root the spec names, made when it is not yet, checked, and its
// PyTorch; `options` then builds inside it.
absl::Status FindInRoot(const environment::EnvironmentSpec& spec, const std::string& tool,
                        environment::SuiteBuildOptions& options, FoundAndBuilt& out) {
  ICOUNT_ASSIGN_OR_RETURN(environment::Root root,
                          environment::ResolveRoot(spec.root, "--" + spec.root_flag));
  environment::RootMakeOptions make;
  make.on_line = [&](const std::string& line) { Say(tool, spec.name, "root: " + line); };
  ICOUNT_RETURN_IF_ERROR(environment::EnsureRootMade(root, make));
  const std::string cache = base::CacheDirectory();
  ICOUNT_RETURN_IF_ERROR(base::MakeDirectories(cache));
  ICOUNT_ASSIGN_OR_RETURN(const environment::RootContents contents,
                          environment::InspectRoot(root));
  ICOUNT_RETURN_IF_ERROR(environment::CheckRootContents(root, contents));
  // The source tree the build reads, the cache its outputs and the
  // workers' scratch directories go to, where the workers start: the same
  // paths inside as out.
  std::vector<std::string> binds = {base::kProgramPlaceParent, options.workspace, cache,
                                    base::TemporaryParentDirectory()};
  binds.insert(binds.end(), spec.root_binds.begin(), spec.root_binds.end());
  ICOUNT_ASSIGN_OR_RETURN(out.launcher, environment::RootLauncher(root, binds));
  ICOUNT_ASSIGN_OR_RETURN(out.install, environment::FindPyTorchInRoot(spec, out.launcher,
                                                                      root.directory, root.name));
  out.install.toolchain = environment::RootToolchain(contents);
  out.valgrind_version = contents.valgrind;
  Say(tool, spec.name, absl::StrCat("root ", root.name, " at ", root.directory, ": ",
                                    environment::DescribeToolchain(contents)));
  options.launcher = out.launcher;
  options.builds_directory = environment::RootBuildsDirectory(root);
  return absl::OkStatus();
}
absl::StatusOr<FoundAndBuilt> FindAndBuild(const environment::EnvironmentSpec& spec,
                                           const std::string& target, bool snippet_prelude,
                                           const std::string& what, const std::string& tool) {
  FoundAndBuilt out;
  environment::SuiteBuildOptions options;
  if (spec.root.empty()) {
    ICOUNT_ASSIGN_OR_RETURN(out.install, environment::FindPyTorch(spec));
  } else {
    ICOUNT_ASSIGN_OR_RETURN(options.workspace, environment::IcountWorkspace());
    ICOUNT_RETURN_IF_ERROR(FindInRoot(spec, tool, options, out),
                           absl::Status(_.code(), absl::StrCat(spec.name, ": ", _.message())));
  }
  Say(tool, spec.name, environment::DescribeMeasured(out.install));
  if (out.install.kind == environment::InstallKind::kSystem) return out;
  if (options.workspace.empty()) {
    ICOUNT_ASSIGN_OR_RETURN(options.workspace, environment::IcountWorkspace());
  }
  options.target = target;
  options.snippet_prelude = snippet_prelude;
  options.on_progress = [&](const std::string& line) {
    std::fprintf(stderr, "%s: %s: bazel: %s\n", tool.c_str(), spec.name.c_str(), line.c_str());
  };
  std::fprintf(stderr,
               "%s: %s: building %s against it (minutes the first time; Bazel reuses what is "
               "built after that)...\n",
               tool.c_str(), spec.name.c_str(), what.c_str());
  ICOUNT_ASSIGN_OR_RETURN(out.built, environment::BuildSuiteFor(out.install, options),
                          absl::Status(_.code(), absl::StrCat(spec.name, ": ", _.message())));
  return out;
}

}  // namespace

absl::StatusOr<EnvironmentSuite> SuiteForEnvironment(const environment::EnvironmentSpec& spec,
                                                     const Suite& own_suite,
                                                     const std::string& tool) {
  ICOUNT_ASSIGN_OR_RETURN(FoundAndBuilt found, FindAndBuild(spec, "//definitions:full_suite",
                                                            /*snippet_prelude=*/false,
                                                            "icount's worker and C++ cases", tool));
  EnvironmentSuite out;
  out.install = std::move(found.install);
  out.launcher = std::move(found.launcher);
  out.valgrind_version = std::move(found.valgrind_version);
  if (found.built.bin_directory.empty()) {
    out.suite = own_suite;
    return out;
  }
  out.fingerprint = found.built.fingerprint;
  ICOUNT_ASSIGN_OR_RETURN(
      out.suite, LoadSuiteFromDirectory(found.built.bin_directory, "definitions", "full_suite"));
  std::fprintf(stderr, "%s: %s: worker %s (fingerprint %s)\n", tool.c_str(), spec.name.c_str(),
               out.suite.worker_path.c_str(), out.fingerprint.c_str());
  return out;
}

absl::StatusOr<EnvironmentTool> ToolForEnvironment(const environment::EnvironmentSpec& spec,
                                                   const std::string& own_path,
                                                   const std::string& package,
                                                   const std::string& name,
                                                   const std::string& tool) {
  ICOUNT_ASSIGN_OR_RETURN(
      FoundAndBuilt found,
      FindAndBuild(spec, absl::StrCat("//", package, ":", name), /*snippet_prelude=*/true,
                   absl::StrCat("//", package, ":", name), tool));
  EnvironmentTool out;
  out.launcher = std::move(found.launcher);
  out.path = found.built.bin_directory.empty()
                 ? own_path
                 : absl::StrCat(found.built.bin_directory, "/", package, "/", name);
  return out;
}

environment::EnvironmentSpec EnvironmentFlagsSpec(const std::string& env,
                                                  const std::string& libtorch,
                                                  const std::string& root) {
  const char* name = !root.empty()                       ? "--root"
                     : env.empty() && !libtorch.empty() ? "--libtorch"
                                                        : "--env";
  return {name, env, libtorch, "libtorch", root, "root"};
}

worker::RunnerOptions EnvironmentRunnerOptions(const EnvironmentSuite& environment,
                                               const std::string& env_command) {
  worker::RunnerOptions options;
  options.worker_path = environment.suite.worker_path;
  if (!env_command.empty()) options.command_prefix = environment::EnvironmentPrefix(env_command);
  options.launcher = environment.launcher;
  options.valgrind_version = environment.valgrind_version;
  options.python = environment.python_cases();
  return options;
}

absl::StatusOr<EnvironmentSuite> SuiteForEnvironmentFlags(const std::string& env,
                                                          const std::string& libtorch,
                                                          const std::string& root,
                                                          const Suite& own_suite,
                                                          const std::string& tool) {
  if (env.empty() && libtorch.empty() && root.empty()) {
    EnvironmentSuite own;
    own.install = environment::SystemInstall();
    own.suite = own_suite;
    return own;
  }
  return SuiteForEnvironment(EnvironmentFlagsSpec(env, libtorch, root), own_suite, tool);
}

absl::StatusOr<std::vector<expand::SuiteCaseProto>> SelectEnvironmentCases(
    const EnvironmentSuite& environment, CaseFilter filter, const std::string& tool) {
  if (!environment.python_cases() && filter.python) {
    const std::string& why = environment.install.python_problem;
    if (!filter.cpp) {
      return absl::FailedPreconditionError(
          absl::StrCat(why, ": Python cases cannot run, and --no_cpp leaves nothing else"));
    }
    std::fprintf(stderr, "%s: %s: Python cases are skipped\n", tool.c_str(), why.c_str());
    filter.python = false;
  }
  return SelectCases(environment.suite, filter);
}

std::string ToolchainSetting(const EnvironmentSuite& environment) {
  return absl::StrCat(environment.install.toolchain, ", ", environment.install.cxx_standard);
}

void AddLibTorchSettings(const EnvironmentSuite& environment,
                         std::map<std::string, std::string>& settings) {
  settings[compare::kLibTorchSetting] = environment::Describe(environment.install);
  settings[compare::kLibTorchInstallSetting] = environment::DescribeInstall(environment.install);
  if (!environment.fingerprint.empty()) {
    settings[compare::kLibTorchFingerprintSetting] = environment.fingerprint;
  }
  settings[compare::kToolchainSetting] = ToolchainSetting(environment);
  // A root's valgrind counted, not the one this process finds.
  if (!environment.valgrind_version.empty() && settings.count("valgrind") > 0) {
    settings["valgrind"] = environment.valgrind_version;
  }
}

}  // namespace icount::tools
