#ifndef ICOUNT_ENVIRONMENT_PYTORCH_INSTALL_TESTUTIL_H_
#define ICOUNT_ENVIRONMENT_PYTORCH_INSTALL_TESTUTIL_H_

// Fake PyTorch installs for tests of what reads them (FindPyTorch, the
// tools' checks of a side): the files icount looks at, none that builds or
// loads.
//
//   MakeFakeLibTorch(dir);  // a LibTorch directory saying 2.1.0
//   absl::StatusOr<PyTorchInstall> install =
//       FindPyTorch({"B", "", dir, "B_libtorch", "", ""});

#include <string>

namespace icount::environment {

// Writes `text` to `path`, making its parent directories first (fake
// installs are a few levels deep); a failure fails the test.
void WriteTestFile(const std::string& path, const std::string& text);

// A LibTorch install's layout at `root` with version 2.1.0: headers,
// libraries (empty files) and the CMake config that states the string ABI.
void MakeFakeLibTorch(const std::string& root, int cxx11_abi = 1);

}  // namespace icount::environment

#endif  // ICOUNT_ENVIRONMENT_PYTORCH_INSTALL_TESTUTIL_H_
