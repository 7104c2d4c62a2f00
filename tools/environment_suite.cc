#include "tools/environment_suite.h"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "compare/node_check.h"
#include "environment/suite_build.h"

namespace icount::tools {

namespace {

// The environment's PyTorch, said on stderr, and, when it is not Debian's,
// `target` built against it (BuiltSuite::bin_directory; empty for Debian's),
// with the prelude of run-time C++ snippets when `snippet_prelude`.
struct FoundAndBuilt {
  environment::PyTorchInstall install;
  environment::BuiltSuite built;
};
absl::StatusOr<FoundAndBuilt> FindAndBuild(const environment::EnvironmentSpec& spec,
                                           const std::string& target, bool snippet_prelude,
                                           const std::string& what, const std::string& tool) {
  FoundAndBuilt out;
  ICOUNT_ASSIGN_OR_RETURN(out.install, environment::FindPyTorch(spec));
  std::fprintf(stderr, "%s: %s: %s\n", tool.c_str(), spec.name.c_str(),
               environment::Describe(out.install).c_str());
  if (out.install.kind == environment::InstallKind::kSystem) return out;
  environment::SuiteBuildOptions options;
  ICOUNT_ASSIGN_OR_RETURN(options.workspace, environment::IcountWorkspace());
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

absl::StatusOr<std::string> ToolForEnvironment(const environment::EnvironmentSpec& spec,
                                               const std::string& own_path,
                                               const std::string& package, const std::string& name,
                                               const std::string& tool) {
  ICOUNT_ASSIGN_OR_RETURN(
      FoundAndBuilt found,
      FindAndBuild(spec, absl::StrCat("//", package, ":", name), /*snippet_prelude=*/true,
                   absl::StrCat("//", package, ":", name), tool));
  if (found.built.bin_directory.empty()) return own_path;
  return absl::StrCat(found.built.bin_directory, "/", package, "/", name);
}

environment::EnvironmentSpec EnvironmentFlagsSpec(const std::string& env,
                                                  const std::string& libtorch) {
  return {env.empty() && !libtorch.empty() ? "--libtorch" : "--env", env, libtorch, "libtorch"};
}

absl::StatusOr<EnvironmentSuite> SuiteForEnvironmentFlags(const std::string& env,
                                                          const std::string& libtorch,
                                                          const Suite& own_suite,
                                                          const std::string& tool) {
  if (env.empty() && libtorch.empty()) {
    EnvironmentSuite own;
    own.install = environment::SystemInstall();
    own.suite = own_suite;
    return own;
  }
  return SuiteForEnvironment(EnvironmentFlagsSpec(env, libtorch), own_suite, tool);
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

void AddLibTorchSettings(const EnvironmentSuite& environment,
                         std::map<std::string, std::string>& settings) {
  settings[compare::kLibTorchSetting] = environment::Describe(environment.install);
  settings[compare::kLibTorchInstallSetting] = environment::DescribeInstall(environment.install);
  if (!environment.fingerprint.empty()) {
    settings[compare::kLibTorchFingerprintSetting] = environment.fingerprint;
  }
}

}  // namespace icount::tools
