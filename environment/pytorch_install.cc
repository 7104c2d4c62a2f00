#include "environment/pytorch_install.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/files.h"
#include "base/fnv.h"
#include "base/status.h"
#include "base/subprocess.h"
#include "patchlevel.h"  // CPython's PY_MAJOR_VERSION, PY_MINOR_VERSION

namespace icount::environment {
namespace {

// The worker embeds the system's CPython (third_party/python), the one
// these tools are built with: a torch package must be built for this
// Python to be imported there.
#define ICOUNT_STRINGIFY(x) #x
#define ICOUNT_VERSION_TEXT(major, minor) ICOUNT_STRINGIFY(major) "." ICOUNT_STRINGIFY(minor)
constexpr char kWorkerPythonVersion[] = ICOUNT_VERSION_TEXT(PY_MAJOR_VERSION, PY_MINOR_VERSION);
constexpr char kSystemPackage[] = "/usr/lib/python3/dist-packages/torch";

// Prints one line: "ICOUNT_TORCH\t<version>\t<package dir>\t<cxx11 abi>\t
// <python version>\t<python>", "ICOUNT_NO_TORCH\t<why>" when there is no
// torch module, or "ICOUNT_BROKEN_TORCH\t<why>" when importing it fails.
constexpr char kProbe[] = R"(import sys
try:
    import os, torch
except Exception as e:
    why = (str(e).splitlines() or [''])[0]
    missing = isinstance(e, ModuleNotFoundError) and e.name == 'torch'
    print(('ICOUNT_NO_TORCH\t' if missing else 'ICOUNT_BROKEN_TORCH\t') + type(e).__name__ +
          (': ' + why if why else ''))
    sys.exit(0)
print('\t'.join(['ICOUNT_TORCH', torch.__version__,
                 os.path.dirname(os.path.abspath(torch.__file__)),
                 str(int(torch._C._GLIBCXX_USE_CXX11_ABI)),
                 '%d.%d' % sys.version_info[:2], sys.executable]))
)";

constexpr char kPreCxx11AbiProblem[] =
    " is built with the pre-C++11 string ABI (_GLIBCXX_USE_CXX11_ABI=0), and icount's worker "
    "links Debian's abseil and protobuf, built with the C++11 ABI.";

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// The resolved path, or the path as given where it cannot be resolved.
std::string RealPath(const std::string& path) { return base::RealPath(path).value_or(path); }

std::string Parent(const std::string& path) { return path.substr(0, path.rfind('/')); }

// An error when share/cmake/Torch/TorchConfig.cmake says the library was
// built with the pre-C++11 string ABI.
absl::Status CheckCxx11Abi(const std::string& root, const std::string& name) {
  absl::StatusOr<std::string> config =
      base::ReadFileToString(root + "/share/cmake/Torch/TorchConfig.cmake");
  if (config.ok() && absl::StrContains(*config, "_GLIBCXX_USE_CXX11_ABI=0")) {
    return absl::FailedPreconditionError(
        absl::StrCat(name, ": the LibTorch in ", root, kPreCxx11AbiProblem,
                     " Use a cxx11-ABI build (the libtorch-cxx11-abi-* archive, or a source "
                     "build with _GLIBCXX_USE_CXX11_ABI=1)"));
  }
  return absl::OkStatus();
}

absl::Status CheckLayout(const std::string& root, const std::string& what) {
  struct stat st;
  if (stat(root.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat(what, " ", root, " does not exist"));
  }
  if (!S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " ", root,
                     " is a file, not a directory: name the directory that "
                     "holds include/ and lib/"));
  }
  if (root.find_first_of(" \t\n") != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " \"", root,
        "\" has a space in its path, which the build of icount's worker "
        "for it cannot take (Bazel splits link options at spaces): move it, or copy it, to a "
        "path without spaces"));
  }
  // Every header directory: one missing would be taken from Debian's
  // /usr/include, which the compiler searches after it.
  for (const char* part : {"/include/torch", "/include/ATen", "/include/c10",
                           "/lib/libtorch_cpu.so", "/lib/libc10.so"}) {
    if (!Exists(root + part)) {
      return absl::NotFoundError(
          absl::StrCat(what, " ", root, " has no ", absl::StripPrefix(part, "/"),
                       " (a LibTorch install has include/{torch,ATen,c10} and "
                       "lib/{libtorch_cpu,libc10}.so)"));
    }
  }
  return absl::OkStatus();
}

struct ProbeAnswer {
  bool has_torch = false;
  std::string why_not;  // when !has_torch
  std::string version, package, python_version, python;
  bool cxx11_abi = true;
};

// Asks `import torch` in the environment; `launcher` (may be empty) runs
// the question inside a root.
absl::StatusOr<ProbeAnswer> ProbePython(const EnvironmentSpec& spec,
                                        const std::vector<std::string>& launcher = {}) {
  std::vector<std::string> in_root = launcher;
  if (!launcher.empty()) {
    // The root's programs, not the host PATH's (pyenv's shims, /root/.local).
    in_root.insert(in_root.end(), {"/usr/bin/env", absl::StrCat("PATH=", kRootPath)});
  }
  std::vector<std::string> argv = EnvironmentPrefix(spec.command, in_root);
  argv.insert(argv.end(), {"python3", "-c", kProbe});
  absl::StatusOr<base::CommandResult> result = base::RunCommand(argv);
  if (!result.ok()) return result.status();
  ProbeAnswer answer;
  for (absl::string_view line : absl::StrSplit(result->output, '\n')) {
    std::vector<std::string> fields = absl::StrSplit(line, '\t');
    if (fields[0] == "ICOUNT_NO_TORCH" && fields.size() == 2) {
      answer.why_not = fields[1];
      return answer;
    }
    if (fields[0] == "ICOUNT_BROKEN_TORCH" && fields.size() == 2) {
      // A torch that is there but does not import is not "no torch":
      // measuring Debian's instead would answer another question.
      return absl::FailedPreconditionError(
          absl::StrCat(spec.name, ": `import torch` fails in the environment (", spec.command,
                       "): ", fields[1], "\nRun `python3 -c 'import torch'` there to see why."));
    }
    if (fields[0] == "ICOUNT_TORCH" && fields.size() == 6) {
      answer.has_torch = true;
      answer.version = fields[1];
      answer.package = fields[2];
      answer.cxx11_abi = fields[3] == "1";
      answer.python_version = fields[4];
      answer.python = fields[5];
      return answer;
    }
  }
  // bash's `exec python3` found none (127 alone could be the command's
  // own: `conda: command not found`).
  if (result->exit_code == 127 && absl::StrContains(result->output, "exec: python3: not found")) {
    answer.why_not = "no python3 on its PATH";
    return answer;
  }
  // The command itself failed, or python3 did: the environment is broken,
  // and guessing another PyTorch would measure the wrong thing.
  return absl::FailedPreconditionError(
      absl::StrCat("environment ", spec.name,
                   spec.command.empty() ? "" : absl::StrCat(" (", spec.command, ")"),
                   " is broken: cannot ask it which torch it has (", base::DescribeExit(*result),
                   "):\n", result->output));
}

absl::StatusOr<PyTorchInstall> FromPythonPackage(const EnvironmentSpec& spec,
                                                 const ProbeAnswer& answer) {
  const std::string found_by =
      absl::StrCat("`import torch` in ", spec.name, ", with ", answer.python);
  if (RealPath(answer.package) == RealPath(kSystemPackage)) {
    PyTorchInstall install = SystemInstall();
    install.how_found = found_by;
    return install;
  }
  const std::string use_directory = absl::StrCat("; to run its C++ cases only, pass --",
                                                 spec.libtorch_flag, "=<a LibTorch directory>");
  if (absl::Status layout = CheckLayout(answer.package, "the torch package"); !layout.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        spec.name, ": ", found_by, " loads torch ", answer.version, " from ", answer.package,
        ", which is not usable as a LibTorch: ", layout.message(), use_directory));
  }
  if (!answer.cxx11_abi) {
    return absl::FailedPreconditionError(absl::StrCat(
        spec.name, ": torch ", answer.version, " at ", answer.package, kPreCxx11AbiProblem,
        " Use a cxx11-ABI build of torch (a source build, or a wheel built with "
        "_GLIBCXX_USE_CXX11_ABI=1)"));
  }
  // Real paths: the same torch reached through a symlink (a linked venv or
  // home directory, a torch directory linked into site-packages) is the
  // same build, in the same output base, not a new one.
  const std::string package = RealPath(answer.package);
  PyTorchInstall install;
  install.kind = InstallKind::kPythonPackage;
  install.version = answer.version;
  install.root = package;
  install.include_directory = package + "/include";
  install.library_directory = package + "/lib";
  install.cxx_standard = CxxStandardFor(install.include_directory);
  install.toolchain = HostToolchain();
  install.how_found = found_by;
  if (answer.python_version == kWorkerPythonVersion) {
    // The directory `import torch` found it in, with what else is there
    // (numpy): the link's directory, not the linked torch's.
    install.python_path = RealPath(Parent(answer.package));
  } else {
    install.python_problem =
        absl::StrCat("its torch is for Python ", answer.python_version,
                     ", and icount's worker embeds Python ", kWorkerPythonVersion);
  }
  return install;
}

// Appends "path size mtime" of every regular file under `directory`
// (recursively, following symlinks) whose name passes `keep`.
void ListFiles(const std::string& directory, const std::string& relative,
               bool (*keep)(absl::string_view), std::vector<std::string>& out) {
  DIR* dir = opendir(directory.c_str());
  if (dir == nullptr) return;
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    const std::string path = directory + "/" + name;
    struct stat info;
    if (stat(path.c_str(), &info) != 0) continue;
    if (S_ISDIR(info.st_mode)) {
      ListFiles(path, relative + name + "/", keep, out);
    } else if (S_ISREG(info.st_mode) && keep(name)) {
      out.push_back(absl::StrCat(relative, name, " ", info.st_size, " ", info.st_mtim.tv_sec, ".",
                                 info.st_mtim.tv_nsec));
    }
  }
  closedir(dir);
}

bool AnyFile(absl::string_view) { return true; }
bool SharedLibrary(absl::string_view name) { return absl::StrContains(name, ".so"); }
bool TorchLibrary(absl::string_view name) {
  return SharedLibrary(name) && (absl::StartsWith(name, "libtorch") ||
                                 absl::StartsWith(name, "libc10") || name == "libshm.so");
}

// A root's LibTorch shares its include/ and lib/ with every other package
// of the root: only torch's own headers and libraries count.
absl::StatusOr<std::string> RootFingerprint(const PyTorchInstall& install) {
  const std::string include = install.filesystem_root + install.include_directory;
  std::vector<std::string> files;
  for (const char* part : {"torch", "ATen", "c10", "caffe2"}) {
    ListFiles(absl::StrCat(include, "/", part), absl::StrCat("include/", part, "/"), &AnyFile,
              files);
  }
  if (files.empty()) return absl::NotFoundError(absl::StrCat("no torch headers under ", include));
  ListFiles(install.filesystem_root + install.library_directory, "lib/", &TorchLibrary, files);
  std::sort(files.begin(), files.end());
  base::Fnv1a<uint64_t> hash;
  hash.Add(install.filesystem_root);
  hash.Add(install.include_directory);
  hash.Add(install.library_directory);
  hash.Add(install.python_path);
  for (const std::string& file : files) hash.Add(file);
  return hash.Hex();
}

}  // namespace

// "2.1.0" from the TORCH_VERSION_MAJOR/MINOR/PATCH of
// include/torch/csrc/api/include/torch/version.h, or of
// include/torch/headeronly/version.h, where the first only includes it
// (PyTorch 2.10 and later).
absl::StatusOr<std::string> HeaderVersion(const std::string& include_directory) {
  std::string path = include_directory + "/torch/csrc/api/include/torch/version.h";
  absl::StatusOr<std::string> text = base::ReadFileToString(path);
  if (!text.ok()) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  if (!absl::StrContains(*text, "#define TORCH_VERSION_MAJOR ") &&
      absl::StrContains(*text, "torch/headeronly/version.h")) {
    path = include_directory + "/torch/headeronly/version.h";
    text = base::ReadFileToString(path);
    if (!text.ok()) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  }
  std::vector<std::string> parts;
  for (const char* name : {"TORCH_VERSION_MAJOR", "TORCH_VERSION_MINOR", "TORCH_VERSION_PATCH"}) {
    const std::string define = absl::StrCat("#define ", name, " ");
    const size_t at = text->find(define);
    int value = 0;
    if (at == std::string::npos ||
        !absl::SimpleAtoi(absl::StripAsciiWhitespace(absl::string_view(*text).substr(
                              at + define.size(), text->find('\n', at) - at - define.size())),
                          &value)) {
      return absl::InvalidArgumentError(absl::StrCat(path, " has no readable ", name));
    }
    parts.push_back(absl::StrCat(value));
  }
  return absl::StrJoin(parts, ".");
}

std::string HostToolchain() {
#if defined(__clang__)
  constexpr char kCompiler[] = "clang++ " __clang_version__;
#else
  constexpr char kCompiler[] = "g++ " __VERSION__;
#endif
  return absl::StrCat("Python ", PY_VERSION, ", ", kCompiler);
}

std::string CxxStandardFor(const std::string& include_directory) {
  absl::StatusOr<std::string> aten = base::ReadFileToString(include_directory + "/ATen/ATen.h");
  return aten.ok() && absl::StrContains(*aten, "C++20 or later") ? "c++20" : "c++17";
}

std::vector<std::string> EnvironmentPrefix(const std::string& command,
                                           const std::vector<std::string>& launcher) {
  std::vector<std::string> prefix = launcher;
  prefix.insert(prefix.end(),
                {"/bin/bash", "-c",
                 absl::StrCat(command.empty() ? "true" : command, " && exec \"$@\""),
                 "icount-env"});
  return prefix;
}

PyTorchInstall SystemInstall() {
  PyTorchInstall install;
  install.kind = InstallKind::kSystem;
  install.root = "/usr";
  install.include_directory = "/usr/include";
  install.library_directory = "/usr/lib/x86_64-linux-gnu";
  install.version = HeaderVersion(install.include_directory).value_or("unknown");
  // What ./bazelw built the tools with (bazel/cxx20.bazelrc where ATen.h
  // demands C++20), as results record it.
  install.cxx_standard = CxxStandardFor(install.include_directory);
  install.toolchain = HostToolchain();
  install.how_found = "the default";
  return install;
}

absl::StatusOr<PyTorchInstall> ReadLibTorchDirectory(const std::string& root) {
  const std::string resolved = RealPath(root);
  if (absl::Status layout = CheckLayout(resolved, "the LibTorch directory"); !layout.ok()) {
    return layout;
  }
  absl::StatusOr<std::string> version = HeaderVersion(resolved + "/include");
  if (!version.ok()) return version.status();
  PyTorchInstall install;
  install.kind = InstallKind::kLibTorchDirectory;
  install.version = *version;
  install.root = resolved;
  install.include_directory = resolved + "/include";
  install.library_directory = resolved + "/lib";
  install.cxx_standard = CxxStandardFor(install.include_directory);
  install.toolchain = HostToolchain();
  install.python_problem = "a LibTorch directory has no torch Python package";
  return install;
}

absl::StatusOr<PyTorchInstall> FindPyTorch(const EnvironmentSpec& spec) {
  if (!spec.libtorch_directory.empty()) {
    absl::StatusOr<PyTorchInstall> install = ReadLibTorchDirectory(spec.libtorch_directory);
    if (!install.ok()) {
      return absl::Status(install.status().code(),
                          absl::StrCat("--", spec.libtorch_flag, ": ", install.status().message()));
    }
    if (absl::Status abi = CheckCxx11Abi(install->root, spec.name); !abi.ok()) return abi;
    install->how_found = absl::StrCat("--", spec.libtorch_flag);
    return install;
  }
  absl::StatusOr<ProbeAnswer> answer = ProbePython(spec);
  if (!answer.ok()) return answer.status();
  if (answer->has_torch) return FromPythonPackage(spec, *answer);
  PyTorchInstall install = SystemInstall();
  install.how_found =
      absl::StrCat("this environment's python3 cannot import torch (", answer->why_not, ")");
  return install;
}

absl::StatusOr<PyTorchInstall> FindPyTorchInRoot(const EnvironmentSpec& spec,
                                                 const std::vector<std::string>& launcher,
                                                 const std::string& root_directory,
                                                 const std::string& root_name) {
  ICOUNT_ASSIGN_OR_RETURN(ProbeAnswer answer, ProbePython(spec, launcher));
  if (!answer.has_torch) {
    return absl::FailedPreconditionError(absl::StrCat(
        spec.name, ": the root ", root_name, " (", root_directory, ") has no torch (",
        answer.why_not, "): install python3-torch and libtorch-dev there, or a torch wheel"));
  }
  PyTorchInstall install;
  install.kind = InstallKind::kRoot;
  install.version = answer.version;
  install.root = answer.package;
  install.filesystem_root = root_directory;
  install.filesystem_root_name = root_name;
  install.how_found = absl::StrCat("`import torch` in the root, with ", answer.python, " (Python ",
                                   answer.python_version, ")");
  if (answer.package == kSystemPackage) {
    // Debian's python3-torch and libtorch-dev: what the root's build finds
    // by default (third_party/repositories.bzl), as on the host.
    install.include_directory = "/usr/include";
    install.library_directory = "/usr/lib/x86_64-linux-gnu";
  } else {
    install.include_directory = answer.package + "/include";
    install.library_directory = answer.package + "/lib";
    install.python_path = Parent(answer.package);
    if (absl::Status layout = CheckLayout(root_directory + answer.package, "the torch package");
        !layout.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          spec.name, ": the root ", root_name, "'s torch ", answer.version, " at ", answer.package,
          " is not usable as a LibTorch: ", layout.message()));
    }
  }
  if (!answer.cxx11_abi) {
    return absl::FailedPreconditionError(absl::StrCat(
        spec.name, ": the root ", root_name, "'s torch ", answer.version, kPreCxx11AbiProblem,
        " Use a cxx11-ABI build of torch there"));
  }
  install.cxx_standard = CxxStandardFor(root_directory + install.include_directory);
  return install;
}

std::string DescribeInstall(const PyTorchInstall& install) {
  if (install.kind == InstallKind::kRoot) {
    return absl::StrCat("torch ", install.version, " (root ", install.filesystem_root_name,
                        ") at ", install.root, " in ", install.filesystem_root);
  }
  const char* kind = install.kind == InstallKind::kSystem          ? "Debian's system install"
                     : install.kind == InstallKind::kPythonPackage ? "Python package"
                                                                   : "LibTorch directory";
  return absl::StrCat("torch ", install.version, " (", kind, ") at ", install.root);
}

std::string Describe(const PyTorchInstall& install) {
  return absl::StrCat(DescribeInstall(install),
                      install.kind == InstallKind::kSystem ? " (" : ", found by ",
                      install.how_found, install.kind == InstallKind::kSystem ? ")" : "");
}

std::string DescribeMeasured(const PyTorchInstall& install) {
  if (install.kind != InstallKind::kSystem) return absl::StrCat("measures ", Describe(install));
  return absl::StrCat("measures Debian's system PyTorch ", install.version, " at ", install.root,
                      install.how_found.empty() ? "" : ": ", install.how_found);
}

absl::StatusOr<std::string> Fingerprint(const PyTorchInstall& install) {
  if (install.kind == InstallKind::kRoot) return RootFingerprint(install);
  std::vector<std::string> files;
  ListFiles(install.include_directory, "include/", &AnyFile, files);
  if (files.empty()) {
    return absl::NotFoundError(absl::StrCat("no headers under ", install.include_directory));
  }
  ListFiles(install.library_directory, "lib/", &SharedLibrary, files);
  std::sort(files.begin(), files.end());
  base::Fnv1a<uint64_t> hash;
  hash.Add(RealPath(install.include_directory));
  hash.Add(RealPath(install.library_directory));
  hash.Add(install.python_path);
  for (const std::string& file : files) hash.Add(file);
  return hash.Hex();
}

}  // namespace icount::environment
