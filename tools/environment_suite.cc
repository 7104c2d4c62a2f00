#include "tools/environment_suite.h"

#include <cstdio>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "environment/suite_build.h"

namespace icount {

absl::StatusOr<EnvironmentSuite> SuiteForEnvironment(const environment::EnvironmentSpec& spec,
                                                     const Suite& own_suite,
                                                     const std::string& tool) {
  EnvironmentSuite out;
  ICOUNT_ASSIGN_OR_RETURN(out.install, environment::FindPyTorch(spec));
  std::fprintf(stderr, "%s: %s: %s\n", tool.c_str(), spec.name.c_str(),
               environment::Describe(out.install).c_str());
  if (out.install.kind == environment::InstallKind::kSystem) {
    out.suite = own_suite;
    return out;
  }
  environment::SuiteBuildOptions options;
  ICOUNT_ASSIGN_OR_RETURN(options.workspace, environment::IcountWorkspace());
  options.on_progress = [&](const std::string& line) {
    std::fprintf(stderr, "%s: %s: bazel: %s\n", tool.c_str(), spec.name.c_str(), line.c_str());
  };
  std::fprintf(stderr,
               "%s: %s: building icount's worker and C++ cases against it (minutes the first "
               "time; Bazel reuses what is built after that)...\n",
               tool.c_str(), spec.name.c_str());
  ICOUNT_ASSIGN_OR_RETURN(const environment::BuiltSuite built,
                          environment::BuildSuiteFor(out.install, options),
                          absl::Status(_.code(), absl::StrCat(spec.name, ": ", _.message())));
  out.fingerprint = built.fingerprint;
  ICOUNT_ASSIGN_OR_RETURN(out.suite,
                          LoadSuiteFromDirectory(built.bin_directory, "definitions", "full_suite"));
  std::fprintf(stderr, "%s: %s: worker %s (fingerprint %s)\n", tool.c_str(), spec.name.c_str(),
               out.suite.worker_path.c_str(), out.fingerprint.c_str());
  return out;
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
  return SuiteForEnvironment({"--env", env, libtorch, "libtorch"}, own_suite, tool);
}

void AddLibTorchSettings(const EnvironmentSuite& environment,
                         std::map<std::string, std::string>& settings) {
  settings["libtorch"] = environment::Describe(environment.install);
  if (!environment.fingerprint.empty()) settings["libtorch_fingerprint"] = environment.fingerprint;
}

}  // namespace icount
