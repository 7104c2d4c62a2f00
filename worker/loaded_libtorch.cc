#include "worker/loaded_libtorch.h"

#include <ATen/Version.h>
#include <torch/version.h>

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "re2/re2.h"

namespace icount {

constexpr char kEnvironmentOverride[] = "ICOUNT_LIBTORCH_VERSION";

LibTorchVersionReport LoadedLibTorchVersion() {
  if (const char* declared = std::getenv(kEnvironmentOverride);
      declared != nullptr && declared[0] != '\0') {
    return {declared, kEnvironmentOverride};
  }
  // "..., TORCH_VERSION=1.13.0, USE_CUDA=OFF, ..." in the build settings.
  std::string version;
  if (RE2::PartialMatch(at::show_config(), R"(\bTORCH_VERSION=([^,\s]+))", &version)) {
    return {version, "at::show_config()"};
  }
  return {TORCH_VERSION, "the LibTorch headers the worker was built with"};
}

std::string LibTorchVersionLine(const LibTorchVersionReport& report) {
  return absl::StrCat("icount-libtorch-version: ", report.version, " from ", report.source);
}

std::optional<LibTorchVersionReport> FindLibTorchVersionLine(absl::string_view output) {
  LibTorchVersionReport report;
  if (!RE2::PartialMatch(re2::StringPiece(output.data(), output.size()),
                         R"((?m)^icount-libtorch-version: (\S+) from (.+)$)", &report.version,
                         &report.source)) {
    return std::nullopt;
  }
  return report;
}

}  // namespace icount
