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

std::string FakePythonEnvironment(const std::string& line) {
  absl::StatusOr<std::string> bin = base::MakeTemporaryDirectory("fake-python");
  EXPECT_TRUE(bin.ok()) << bin.status();
  WriteTestFile(*bin + "/answer", line + "\n");
  WriteTestFile(*bin + "/python3", absl::StrCat("#!/bin/sh\ncat ", *bin, "/answer\n"));
  chmod((*bin + "/python3").c_str(), 0755);
  return absl::StrCat("export PATH=", *bin, ":$PATH");
}

std::string ProbeLine(const std::string& package, const std::string& abi,
                      const std::string& python_version) {
  return absl::StrCat("ICOUNT_TORCH\t2.1.0a0+git1234\t", package, "\t", abi, "\t", python_version,
                      "\t/venv/bin/python3");
}

}  // namespace icount::environment
