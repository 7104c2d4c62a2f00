#include "expand/libtorch_version.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "re2/re2.h"

namespace icount::expand {

std::string LibTorchVersion::ToString() const {
  return absl::StrCat(major, ".", minor, ".", patch);
}

absl::StatusOr<LibTorchVersion> ParseLibTorchVersion(absl::string_view text, VersionSuffix suffix) {
  // Numbers without leading zeros, so "1.09" is not silently 1.9.
  static const RE2* const kVersion =
      new RE2(R"((0|[1-9][0-9]{0,5})\.(0|[1-9][0-9]{0,5})(?:\.(0|[1-9][0-9]{0,5}))?)");
  LibTorchVersion version;
  std::string patch;
  re2::StringPiece input(text.data(), text.size());
  const bool numbers = RE2::Consume(&input, *kVersion, &version.major, &version.minor, &patch);
  auto digit_at = [&](size_t i) { return input.size() > i && input[i] >= '0' && input[i] <= '9'; };
  // A suffix may not continue the numbers: "1.9.0.1" and "1.99999999" are
  // rejected rather than read as 1.9.0 and 1.999999.
  const bool rest_ok = suffix == VersionSuffix::kRejected
                           ? input.empty()
                           : !digit_at(0) && !(input.size() > 1 && input[0] == '.' && digit_at(1));
  if (!numbers || !rest_ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", text,
        "\" is not a LibTorch version; write major.minor or major.minor.patch, e.g. "
        "\"1.9\" or \"1.13.1\"",
        suffix == VersionSuffix::kIgnored ? " (a suffix such as \"a0\" or \"+cpu\" may follow)"
                                          : ""));
  }
  if (!patch.empty()) version.patch = std::stoi(patch);
  return version;
}

}  // namespace icount::expand
