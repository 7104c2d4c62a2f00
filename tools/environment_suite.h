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
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/files.h"
#include "environment/pytorch_install.h"
#include "tools/suite.h"
#include "worker/runner.h"

namespace icount::tools {

struct EnvironmentSuite {
  environment::PyTorchInstall install;
  Suite suite;
  std::string fingerprint;  // of the install's files; "" for Debian's
  // A root side's: what runs its workers inside the root, and the root's
  // valgrind ("valgrind-3.24.0"); empty for this machine's.
  std::vector<std::string> launcher;
  std::string valgrind_version;
  // The suite's C++ cases that do not compile against this PyTorch, left
  // out of its worker, with the compiler's first error of each: they fail
  // on this side (RunnerOptions::uncompiled_cases), every other case runs.
  std::map<std::string, std::string> uncompiled_cases;
  // A suite's root, held in use while any copy of this lives: no other
  // icount refreshes or removes it under the run (environment::UseRoot).
  std::shared_ptr<base::FileLock> root_in_use;
  bool python_cases() const { return install.python_problem.empty(); }
};

// What every tool's runner needs of an environment: its worker, the
// command that sets it up (`env_command`, may be empty), the root's
// launcher and valgrind, and whether Python cases can run.
worker::RunnerOptions EnvironmentRunnerOptions(const EnvironmentSuite& environment,
                                               const std::string& env_command);

// Finds the environment's PyTorch, says which on stderr ("<tool>: <name>:
// torch ..."), and returns the suite to run there; Bazel's progress lines
// go to stderr while it builds.
absl::StatusOr<EnvironmentSuite> SuiteForEnvironment(const environment::EnvironmentSpec& spec,
                                                     const Suite& own_suite,
                                                     const std::string& tool);

// A tool built for an environment, and the prefix that runs it there
// (a root's launcher; empty elsewhere).
struct EnvironmentTool {
  std::string path;
  std::vector<std::string> launcher;
  // A suite's root, held in use (EnvironmentSuite::root_in_use); a tool
  // that execs the one built there keeps it across the exec.
  std::shared_ptr<base::FileLock> root_in_use;
  // What results record of the PyTorch the tool measures (LibTorchSettings).
  std::map<std::string, std::string> settings;
};

// The tool //<package>:<name> built for the environment's PyTorch (for
// timeit, which measures in its own process): `own_path` when that
// PyTorch is Debian's, which the running tool is built against. With
// python_statement, a PyTorch whose Python cannot run there (a LibTorch
// directory, a torch for another Python) is refused before anything is
// built: "--libtorch: --language=python cannot run there: ...".
absl::StatusOr<EnvironmentTool> ToolForEnvironment(const environment::EnvironmentSpec& spec,
                                                   const std::string& own_path,
                                                   const std::string& package,
                                                   const std::string& name, const std::string& tool,
                                                   bool python_statement);

// A side in a root measures the root's own torch and LibTorch, so a
// LibTorch directory given with a root would be ignored: refused, with both
// flags (`libtorch_flag` "A_libtorch", `root_flag` "A_root"):
//
//   "--libtorch=/opt/libtorch and --root=sid do not combine: ..."
absl::Status CheckRootWithoutLibTorch(const std::string& libtorch, const std::string& libtorch_flag,
                                      const std::string& root, const std::string& root_flag);

// What can be checked of `spec` before anything is made or built: its root
// is a suite Debian has or a directory that exists (environment::ResolveRoot)
// and comes without a LibTorch directory. A tool of many sides checks every
// side first: making one side's root and building in it takes minutes.
// Errors start with the side's name, as SuiteForEnvironment's do.
absl::Status CheckEnvironmentSpec(const environment::EnvironmentSpec& spec);

// Refuses, before anything is built, a run of Python cases only (no_cpp:
// --no_cpp) on a LibTorch directory, which has no torch Python package, or
// in an environment whose torch is for another Python than the worker's
// (asked of its python3, a second):
//
//   CheckCppLeftOut(EnvironmentFlagsSpec("", "/opt/libtorch"), /*no_cpp=*/true)
//   // "--no_cpp leaves the Python cases only, and --libtorch=/opt/libtorch has none (...)"
//   // ". venv312/bin/activate" as B: "... and B has none (its torch is for Python 3.12, ...)"
//
// A --sides line's side is named as "B's libtorch=DIR".
absl::Status CheckCppLeftOut(const environment::EnvironmentSpec& spec, bool no_cpp);

// The environment main's, ci's and timeit's --env, --libtorch and --root
// name, called by the flag that names it in messages ("--root" when a root
// is given, "--libtorch" when only a LibTorch directory is, else "--env").
environment::EnvironmentSpec EnvironmentFlagsSpec(const std::string& env,
                                                  const std::string& libtorch,
                                                  const std::string& root = "");

// main's and ci's --env, --libtorch and --root: SuiteForEnvironment for the
// environment they name, or, when all are empty, the tools' own suite on
// Debian's LibTorch without asking anything.
absl::StatusOr<EnvironmentSuite> SuiteForEnvironmentFlags(const std::string& env,
                                                          const std::string& libtorch,
                                                          const std::string& root,
                                                          const Suite& own_suite,
                                                          const std::string& tool);
inline constexpr char kEnvHelp[] =
    "Shell command (bash) that sets up the environment whose `import torch` is measured (its "
    "first use builds icount's C++ cases against it); default: Debian's LibTorch.";
inline constexpr char kRootHelp[] =
    "Root filesystem to measure in: a Debian suite (trixie, sid: made on first use and cached) "
    "or a directory (an unpacked image with python3, torch, g++, valgrind and bazel); icount's "
    "worker is built and run there with the root's own toolchain.";
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

// What builds and runs icount's worker for the install: "Python 3.11.2, g++
// 12.2.0, c++17" (compare::kToolchainSetting).
std::string ToolchainSetting(const environment::PyTorchInstall& install);

// The results' settings that say which LibTorch was measured
// (kLibTorchSetting, kLibTorchInstallSetting and, where `fingerprint` is
// not empty, kLibTorchFingerprintSetting, compare/node_check.h) and with
// what (kToolchainSetting):
//
//   LibTorchSettings(environment::SystemInstall(), "")
//   // {"libtorch": "torch 1.13.0 (Debian's system install) at /usr (the default)",
//   //  "libtorch_install": "torch 1.13.0 (Debian's system install) at /usr",
//   //  "toolchain": "Python 3.11.2, g++ 12.2.0, c++17"}
std::map<std::string, std::string> LibTorchSettings(const environment::PyTorchInstall& install,
                                                    const std::string& fingerprint);

// LibTorchSettings of the environment's PyTorch, and the valgrind that
// counted where it is a root's.
void AddLibTorchSettings(const EnvironmentSuite& environment,
                         std::map<std::string, std::string>& settings);

}  // namespace icount::tools

#endif  // ICOUNT_TOOLS_ENVIRONMENT_SUITE_H_
