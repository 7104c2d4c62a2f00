#ifndef ICOUNT_ENVIRONMENT_PYTORCH_INSTALL_H_
#define ICOUNT_ENVIRONMENT_PYTORCH_INSTALL_H_

// Which PyTorch an environment holds. An environment is a shell command
// that sets it up ("source ~/venvs/my_branch/bin/activate"), as in
// upstream's A/B: its PyTorch is the torch package that `import torch`
// loads there (a wheel or a source build, with include/ and lib/ inside),
// or a LibTorch directory given outright (the official archive's layout:
// include/, lib/, share/cmake/Torch), or, when neither gives one, Debian's
// system install that icount itself is built against.
//
//   EnvironmentSpec spec{"B", ". ~/venvs/my_branch/bin/activate", "", "B_libtorch"};
//   absl::StatusOr<PyTorchInstall> install = FindPyTorch(spec);
//   if (!install.ok()) return install.status();  // names B and what to do
//   std::cerr << "B: " << Describe(*install) << "\n";
//   // B: torch 2.1.0 (Python package) at /home/me/venvs/my_branch/lib/
//   //    python3.11/site-packages/torch, found by `import torch` in B, with
//   //    /home/me/venvs/my_branch/bin/python3
//
// worker_build.h then builds icount's worker against it.

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace icount::environment {

struct EnvironmentSpec {
  std::string name;     // "A", "B", a --sides name: for messages
  std::string command;  // shell command that sets the environment up; may be empty
  // A LibTorch install's root (--A_libtorch, --libtorch); empty: look for
  // the torch Python package of the environment.
  std::string libtorch_directory;
  // The flag that gives libtorch_directory ("A_libtorch"), for messages.
  std::string libtorch_flag;
  // A root filesystem the side runs in (--A_root, --root; root.h): a
  // Debian suite's name or a directory; empty: this machine.
  std::string root;
  std::string root_flag;  // "A_root", for messages
  // Host directories the side's programs read or write inside the root
  // besides icount's tree, cache and temporary directory (timeit's working
  // directory and --json's), seen there at the same paths.
  std::vector<std::string> root_binds = {};
};

enum class InstallKind {
  kSystem,         // Debian's libtorch-dev and python3-torch
  kPythonPackage,  // a torch package with include/ and lib/ (wheel, source build)
  kLibTorchDirectory,
  // The torch of a root filesystem (root.h), with the root's own Python,
  // compiler and valgrind: Debian's there, or a package it holds.
  kRoot,
};

struct PyTorchInstall {
  InstallKind kind = InstallKind::kSystem;
  std::string version;            // "2.1.0", "1.13.0"
  std::string root;               // /usr, the package's torch/, or the LibTorch directory
  std::string include_directory;  // holds torch/, ATen/, c10/
  std::string library_directory;  // holds libtorch_cpu.so and libc10.so
  // The directory holding the torch package, for the worker's sys.path;
  // empty for Debian's (already there) and for a LibTorch directory, whose
  // workers run C++ cases only.
  std::string python_path;
  // Why Python cases cannot run beside this LibTorch ("a LibTorch
  // directory has no torch Python package"); empty when they can.
  std::string python_problem;
  std::string how_found;  // for people: "`import torch` in B, with /venv/bin/python3"
  // "c++17" or "c++20": what code compiled against this LibTorch needs
  // (CxxStandardFor).
  std::string cxx_standard = "c++17";
  // kRoot: the root filesystem's directory on the host and the name it was
  // given by (a Debian suite, or the directory); the directories above are
  // paths inside it.
  std::string filesystem_root;
  std::string filesystem_root_name;
  // The Python the worker embeds and the compiler that builds it, which
  // both move counts: "Python 3.11.2, g++ 12.2.0" (HostToolchain()), or a
  // root's own.
  std::string toolchain;
};

// This machine's toolchain, as the tools were built with it: "Python
// 3.11.2, g++ 12.2.0".
std::string HostToolchain();

// PATH for commands icount runs inside a root filesystem: the root's own
// programs, not those the host's PATH names (pyenv's shims, ~/.local/bin).
inline constexpr char kRootPath[] =
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// /bin/bash -c '<command> && exec "$@"' icount-env: put before a command's
// argv to run it in the environment `command` sets up. Bash, so that the
// commands environments are set up with work as their docs write them
// (`source activate env_a`, `source venv/bin/activate`, `conda activate`).
// `launcher` (a root's, RootLauncher in root.h) goes first: the command
// then runs inside the root.
std::vector<std::string> EnvironmentPrefix(const std::string& command,
                                           const std::vector<std::string>& launcher = {});

// The install the spec names or its environment holds. Errors name the
// environment and say what to do: a directory that is not a LibTorch
// install, a torch package without headers, or one with the pre-C++11
// string ABI (icount's worker links Debian's abseil and protobuf, built
// with the C++11 ABI). A torch package for a Python other than the
// worker's (3.11) is measured in C++ only (python_problem says why).
absl::StatusOr<PyTorchInstall> FindPyTorch(const EnvironmentSpec& spec);

// The PyTorch of a root filesystem at `root_directory`: the torch package
// that `import torch` loads with the root's python3, asked through
// `launcher` (RootLauncher in root.h), after the environment command of
// `spec` (may be empty) runs there too. An error when the root has no
// torch, or one that fails to import.
absl::StatusOr<PyTorchInstall> FindPyTorchInRoot(const EnvironmentSpec& spec,
                                                 const std::vector<std::string>& launcher,
                                                 const std::string& root_directory,
                                                 const std::string& root_name);

// "2.1.0", from the version header under `include_directory` (holding
// torch/, ATen/, c10/): torch/csrc/api/include/torch/version.h, or
// torch/headeronly/version.h where that only includes it (2.10 and later).
absl::StatusOr<std::string> HeaderVersion(const std::string& include_directory);

// The C++ standard code compiled against the headers under
// `include_directory` needs: "c++20" where ATen/ATen.h demands it
// (PyTorch 2.10 and later), else "c++17".
std::string CxxStandardFor(const std::string& include_directory);

// Debian's LibTorch 1.13 in /usr, which icount's own build uses.
PyTorchInstall SystemInstall();

// A LibTorch directory's install (kLibTorchDirectory); an error when
// `root` lacks include/torch, lib/libtorch_cpu.so or a readable version.
absl::StatusOr<PyTorchInstall> ReadLibTorchDirectory(const std::string& root);

// Which install it is, whoever found it: "torch 2.1.0 (Python package) at
// /venv/.../torch".
std::string DescribeInstall(const PyTorchInstall& install);

// DescribeInstall and how it was found: "torch 2.1.0 (Python package) at
// /venv/.../torch, found by ...", or "torch 1.13.0 (Debian's system
// install) at /usr (this environment's python3 cannot import torch (...))".
std::string Describe(const PyTorchInstall& install);

// What a side measures, for the line a tool prints as it starts:
//   "measures Debian's system PyTorch 1.13.0 at /usr: this environment's
//    python3 cannot import torch (ModuleNotFoundError: No module named 'torch')"
//   "measures torch 2.6.0 (Python package) at /venv/..., found by `import torch`"
std::string DescribeMeasured(const PyTorchInstall& install);

// 16 hex digits that change when a header under include_directory or a
// library in library_directory is added, removed or rewritten (paths,
// sizes and modification times; directories symlinked in are followed).
absl::StatusOr<std::string> Fingerprint(const PyTorchInstall& install);

}  // namespace icount::environment

#endif  // ICOUNT_ENVIRONMENT_PYTORCH_INSTALL_H_
