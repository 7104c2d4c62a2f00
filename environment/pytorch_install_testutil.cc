#include "environment/pytorch_install_testutil.h"

#include <sys/stat.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "gtest/gtest.h"

namespace icount::environment {

void WriteTestFile(const std::string& path, const std::string& text) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    mkdir(path.substr(0, slash).c_str(), 0755);
  }
  ASSERT_TRUE(base::WriteFileAtomically(path, text).ok()) << path;
}

void MakeFakeLibTorch(const std::string& root, int cxx11_abi) {
  WriteTestFile(root + "/include/torch/csrc/api/include/torch/version.h",
                "#pragma once\n#define TORCH_VERSION_MAJOR 2\n#define TORCH_VERSION_MINOR 1\n"
                "#define TORCH_VERSION_PATCH 0\n");
  WriteTestFile(root + "/include/c10/core/TensorImpl.h", "// inline fast paths\n");
  WriteTestFile(root + "/include/ATen/ATen.h", "#pragma once\n");
  WriteTestFile(root + "/lib/libtorch_cpu.so", "elf");
  WriteTestFile(root + "/lib/libc10.so", "elf");
  WriteTestFile(
      root + "/share/cmake/Torch/TorchConfig.cmake",
      absl::StrCat("set(TORCH_CXX_FLAGS \"-D_GLIBCXX_USE_CXX11_ABI=", cxx11_abi, "\")\n"));
}

}  // namespace icount::environment
