#include "worker/loaded_libtorch.h"

#include <ATen/Version.h>
#include <torch/version.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "re2/re2.h"

namespace icount::worker {

constexpr char kEnvironmentOverride[] = "ICOUNT_LIBTORCH_VERSION";

LibTorchVersionReport LoadedLibTorchVersion() {
  const std::string config = at::show_config();
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(config, '\n', absl::SkipWhitespace())) {
    lines.push_back(std::string(absl::StripAsciiWhitespace(line)));
  }
  const std::string build = absl::StrJoin(lines, "; ");
  if (const char* declared = std::getenv(kEnvironmentOverride);
      declared != nullptr && declared[0] != '\0') {
    return {declared, kEnvironmentOverride, build};
  }
  // "..., TORCH_VERSION=1.13.0, USE_CUDA=OFF, ..." in the build settings.
  std::string version;
  if (RE2::PartialMatch(config, R"(\bTORCH_VERSION=([^,\s]+))", &version)) {
    return {version, "at::show_config()", build};
  }
  return {TORCH_VERSION, "the LibTorch headers the worker was built with", build};
}

std::string AtenCpuCapabilityFromConfig(const std::string& config) {
  std::string capability;
  RE2::PartialMatch(config, R"(CPU capability usage: ([^\n]*))", &capability);
  // ATen says "NO AVX" for what ATEN_CPU_CAPABILITY calls "default".
  return capability == "NO AVX" ? "DEFAULT" : capability;
}

std::string AtenCpuCapability() { return AtenCpuCapabilityFromConfig(at::show_config()); }

}  // namespace icount::worker
