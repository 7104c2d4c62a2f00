#ifndef ICOUNT_TOOLS_ENVIRONMENT_SUITE_H_
#define ICOUNT_TOOLS_ENVIRONMENT_SUITE_H_

// The suite a run uses in an environment (main's and ci's --env and
// --libtorch, each side of ab_test): the tools' own suite, built against
// Debian's LibTorch, when the environment's PyTorch is Debian's; otherwise
// icount's suite built against that PyTorch (environment/suite_build.h),
// compiled the first time and found in Bazel's cache after that.
//
//   environment::EnvironmentSpec spec{"B", ". ~/venvs/b/bin/activate", "", "B_libtorch"};
//   absl::StatusOr<EnvironmentSuite> b = SuiteForEnvironment(spec, own_suite, "ab_test");
//   // stderr: "ab_test: B: torch 2.1.0 (Python package) at ..., found by ..."
//   //         "ab_test: B: building icount's worker and C++ cases against it ..."
//   RunnerOptions options;
//   options.worker_path = b->suite.worker_path;

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "environment/pytorch_install.h"
#include "tools/suite.h"

namespace icount::tools {

struct EnvironmentSuite {
  environment::PyTorchInstall install;
  Suite suite;
  std::string fingerprint;  // of the install's files; "" for Debian's
  bool python_cases() const { return install.python_problem.empty(); }
};

// Finds the environment's PyTorch, says which on stderr ("<tool>: <name>:
// torch ..."), and returns the suite to run there; Bazel's progress lines
// go to stderr while it builds.
absl::StatusOr<EnvironmentSuite> SuiteForEnvironment(const environment::EnvironmentSpec& spec,
                                                     const Suite& own_suite,
                                                     const std::string& tool);

// The tool //<package>:<name> built for the environment's PyTorch (for
// timeit, which measures in its own process): `own_path` when that
// PyTorch is Debian's, which the running tool is built against.
absl::StatusOr<std::string> ToolForEnvironment(const environment::EnvironmentSpec& spec,
                                               const std::string& own_path,
                                               const std::string& package, const std::string& name,
                                               const std::string& tool);

// The environment main's, ci's and timeit's --env and --libtorch name,
// called by the flag that names it in messages ("--libtorch" when only a
// LibTorch directory is given, else "--env").
environment::EnvironmentSpec EnvironmentFlagsSpec(const std::string& env,
                                                  const std::string& libtorch);

// main's and ci's --env and --libtorch: SuiteForEnvironment for the
// environment they name, or, when both are empty, the tools' own suite on
// Debian's LibTorch without asking anything.
absl::StatusOr<EnvironmentSuite> SuiteForEnvironmentFlags(const std::string& env,
                                                          const std::string& libtorch,
                                                          const Suite& own_suite,
                                                          const std::string& tool);
inline constexpr char kEnvHelp[] =
    "Shell command (bash) that sets up the environment whose `import torch` is measured (its "
    "first use builds icount's C++ cases against it); default: Debian's LibTorch.";
inline constexpr char kLibTorchHelp[] =
    "LibTorch directory (include/, lib/, share/cmake/Torch) to measure; C++ cases only.";

// The cases of the environment's suite that main's and ci's --filter,
// --no_cpp and --no_python select. Where the environment's PyTorch cannot
// run Python cases they are skipped, with a note on stderr, unless --no_cpp
// leaves nothing else (an error naming the flag):
//
//   CaseFilter filter{"^Empty", /*cpp=*/true, /*python=*/true};
//   absl::StatusOr<std::vector<expand::SuiteCaseProto>> cases =
//       SelectEnvironmentCases(*environment, filter, "ci");
//   // with --libtorch: stderr "ci: <why>: Python cases are skipped", C++ cases only
absl::StatusOr<std::vector<expand::SuiteCaseProto>> SelectEnvironmentCases(
    const EnvironmentSuite& environment, CaseFilter filter, const std::string& tool);

// The results' settings that say which LibTorch was measured
// (kLibTorchSetting, kLibTorchInstallSetting and kLibTorchFingerprintSetting,
// compare/node_check.h).
void AddLibTorchSettings(const EnvironmentSuite& environment,
                         std::map<std::string, std::string>& settings);

}  // namespace icount::tools

#endif  // ICOUNT_TOOLS_ENVIRONMENT_SUITE_H_
