#ifndef ICOUNT_ENVIRONMENT_PYTORCH_INSTALL_TESTUTIL_H_
#define ICOUNT_ENVIRONMENT_PYTORCH_INSTALL_TESTUTIL_H_

// Fake PyTorch installs for tests of what reads them (FindPyTorch, the
// tools' checks of a side): the files icount looks at, none that builds or
// loads.
//
//   MakeFakeLibTorch(dir);  // a LibTorch directory saying 2.1.0
//   absl::StatusOr<PyTorchInstall> install =
//       FindPyTorch({"B", "", dir, "B_libtorch", "", ""});
//   // a venv whose torch is for Python 3.12:
//   install = FindPyTorch({"B", FakePythonEnvironment(ProbeLine(dir, "1", "3.12")),
//                          "", "B_libtorch", "", ""});

#include <string>

namespace icount::environment {

// Writes `text` to `path`, making its parent directories first (fake
// installs are a few levels deep); a failure fails the test.
void WriteTestFile(const std::string& path, const std::string& text);

// A LibTorch install's layout at `root` with version 2.1.0: headers,
// libraries (empty files) and the CMake config that states the string ABI.
void MakeFakeLibTorch(const std::string& root, int cxx11_abi = 1);

// An environment command whose python3 answers FindPyTorch's probe with
// `line`, e.g. ProbeLine(site + "/torch", "1", "3.12"): a torch package
// at `package`, built with that string ABI for that Python.
std::string FakePythonEnvironment(const std::string& line);
std::string ProbeLine(const std::string& package, const std::string& abi,
                      const std::string& python_version);

}  // namespace icount::environment

#endif  // ICOUNT_ENVIRONMENT_PYTORCH_INSTALL_TESTUTIL_H_
