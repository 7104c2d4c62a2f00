#include "worker/libtorch_version_line.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "re2/re2.h"

namespace icount::worker {

std::string LibTorchVersionLine(const LibTorchVersionReport& report) {
  return absl::StrCat("icount-libtorch-version: ", report.version, " from ", report.source,
                      report.build.empty() ? "" : "\nicount-libtorch-build: ", report.build);
}

std::optional<LibTorchVersionReport> FindLibTorchVersionLine(absl::string_view output) {
  LibTorchVersionReport report;
  if (!RE2::PartialMatch(re2::StringPiece(output.data(), output.size()),
                         R"((?m)^icount-libtorch-version: (\S+) from (.+)$)", &report.version,
                         &report.source)) {
    return std::nullopt;
  }
  RE2::PartialMatch(re2::StringPiece(output.data(), output.size()),
                    R"((?m)^icount-libtorch-build: (.*)$)", &report.build);
  return report;
}

}  // namespace icount::worker
