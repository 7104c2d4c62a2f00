// The RDTSCP-free hwy::platform::TimerResolution (see
// timer_resolution_without_rdtscp.cc) is what libhwy's PLT binds to in any
// binary that links LibTorch, and such a binary runs under valgrind.
#include <dlfcn.h>
#include <link.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include <ATen/core/Tensor.h>
#include <ATen/ops/add.h>
#include <ATen/ops/ones.h>
#include <torch/version.h>

#include "gtest/gtest.h"

namespace hwy::platform {
uint64_t TimerResolution();
}

namespace {

constexpr char kSymbol[] = "_ZN3hwy8platform15TimerResolutionEv";

// The path of the loaded library whose name contains `needle`, or "".
std::string LoadedLibrary(const char* needle) {
  struct Search {
    const char* needle;
    std::string path;
  } search{needle, ""};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        if (info->dlpi_name != nullptr && std::strstr(info->dlpi_name, s->needle) != nullptr) {
          s->path = info->dlpi_name;
          return 1;
        }
        return 0;
      },
      &search);
  return search.path;
}

TEST(TimerResolutionTest, LibTorchBringsLibhwy) {
  // The premise: without libhwy in the process there is nothing to replace.
  // Debian's 1.13 and 2.6 load it; 2.14 does not.
#if TORCH_VERSION_MAJOR == 1 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR < 10)
  EXPECT_NE(LoadedLibrary("libhwy.so"), "")
      << "LibTorch no longer loads libhwy; the replacement may be unnecessary";
#else
  if (LoadedLibrary("libhwy.so").empty()) {
    GTEST_SKIP() << "LibTorch " << TORCH_VERSION << " loads no libhwy: nothing to replace";
  }
#endif
}

TEST(TimerResolutionTest, TheExecutablesDefinitionWinsSymbolLookup) {
  // What libhwy's PLT entry resolves to: the first definition in the global
  // search order, which must be this executable's.
  void* found = dlsym(RTLD_DEFAULT, kSymbol);
  ASSERT_NE(found, nullptr) << kSymbol << " is not exported from the executable";
  EXPECT_EQ(found, reinterpret_cast<void*>(&hwy::platform::TimerResolution));
  Dl_info info;
  ASSERT_NE(dladdr(found, &info), 0);
  EXPECT_EQ(std::strstr(info.dli_fname, "libhwy"), nullptr) << info.dli_fname;
}

TEST(TimerResolutionTest, ReturnsAPositiveTickCount) {
  const uint64_t ticks = hwy::platform::TimerResolution();
  EXPECT_GT(ticks, 0u);
  EXPECT_LT(ticks, 1000000u);
}

TEST(TimerResolutionTest, ComputesUnderValgrind) {
  if (std::getenv("ICOUNT_INSIDE_VALGRIND_CHILD") != nullptr) {
    // The child: it got here, past libhwy's load-time initialiser.
    EXPECT_DOUBLE_EQ(at::add(at::ones({2, 2}), at::ones({2, 2})).sum().item<double>(), 8.0);
    return;
  }
  if (access("/usr/bin/valgrind", X_OK) != 0) GTEST_SKIP() << "valgrind is not installed";
  const std::string command =
      "ICOUNT_INSIDE_VALGRIND_CHILD=1 /usr/bin/valgrind --tool=none --vgdb=no -q /proc/" +
      std::to_string(getpid()) +
      "/exe --gtest_filter=TimerResolutionTest.ComputesUnderValgrind > /dev/null 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << command;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "a LibTorch program failed under valgrind: " << command;
}

}  // namespace
