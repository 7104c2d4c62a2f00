#include "worker/loaded_libtorch.h"

#include <ATen/Version.h>
#include <stdlib.h>
#include <torch/version.h>

#include "gtest/gtest.h"

namespace icount::worker {
namespace {

TEST(LoadedLibTorchTest, ReadsTheLoadedLibrarysBuildSettings) {
  unsetenv("ICOUNT_LIBTORCH_VERSION");
  const LibTorchVersionReport report = LoadedLibTorchVersion();
  EXPECT_EQ(report.source, "at::show_config()");
  // Debian's headers and shared libraries come from one package.
  EXPECT_EQ(report.version, TORCH_VERSION);
  // The build settings, on one line, for history.
  EXPECT_NE(report.build.find("TORCH_VERSION="), std::string::npos) << report.build;
  EXPECT_NE(report.build.find("; "), std::string::npos);
  EXPECT_EQ(report.build.find('\n'), std::string::npos);
}

TEST(LoadedLibTorchTest, TheEnvironmentMayDeclareIt) {
  setenv("ICOUNT_LIBTORCH_VERSION", "1.8.1", 1);
  EXPECT_EQ(LoadedLibTorchVersion().version, "1.8.1");
  EXPECT_EQ(LoadedLibTorchVersion().source, "ICOUNT_LIBTORCH_VERSION");
  setenv("ICOUNT_LIBTORCH_VERSION", "", 1);  // empty: not declared
  EXPECT_EQ(LoadedLibTorchVersion().source, "at::show_config()");
  unsetenv("ICOUNT_LIBTORCH_VERSION");
}

TEST(LoadedLibTorchTest, SaysWhichInstructionSetATenDispatchesTo) {
  const std::string capability = AtenCpuCapability();
  EXPECT_TRUE(capability == "DEFAULT" || capability == "AVX2" || capability == "AVX512")
      << capability;
  EXPECT_NE(at::show_config().find("CPU capability usage: " + capability), std::string::npos);
}

TEST(LoadedLibTorchTest, NoAvxIsTheDefaultCapability) {
  // What LibTorch 1.13 prints under ATEN_CPU_CAPABILITY=default.
  EXPECT_EQ(
      AtenCpuCapabilityFromConfig("  - CPU capability usage: NO AVX\n  - Build settings: X\n"),
      "DEFAULT");
  EXPECT_EQ(AtenCpuCapabilityFromConfig("  - CPU capability usage: AVX2\n"), "AVX2");
  EXPECT_EQ(AtenCpuCapabilityFromConfig("PyTorch built with:\n"), "");
}

}  // namespace
}  // namespace icount::worker
