#ifndef ICOUNT_EXPAND_LIBTORCH_VERSION_H_
#define ICOUNT_EXPAND_LIBTORCH_VERSION_H_

// LibTorch release numbers, as definitions declare them
// (min_libtorch_version, definition.h) and environments report them
// (the worker's --print_libtorch_version):
//
//   absl::StatusOr<LibTorchVersion> have = ParseLibTorchVersion("1.13.0a0");
//   absl::StatusOr<LibTorchVersion> need = ParseLibTorchVersion("1.9");
//   if (*have < *need) ...  // skip the case when backtesting
//
// Only major.minor.patch matter. A missing patch is 0, and a pre-release or
// local suffix ("a0", "+cpu", ".dev20230101", "-rc1") is ignored, so
// "1.13.0a0" counts as 1.13.0: a case that needs 1.13 works on its release
// candidates, which is what backtesting asks.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace icount::expand {

struct LibTorchVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;

  // "1.9.0".
  std::string ToString() const;

  friend bool operator<(const LibTorchVersion& a, const LibTorchVersion& b) {
    if (a.major != b.major) return a.major < b.major;
    if (a.minor != b.minor) return a.minor < b.minor;
    return a.patch < b.patch;
  }
  friend bool operator==(const LibTorchVersion& a, const LibTorchVersion& b) {
    return a.major == b.major && a.minor == b.minor && a.patch == b.patch;
  }
};

enum class VersionSuffix {
  kRejected,  // exactly "major.minor" or "major.minor.patch" (definitions)
  kIgnored,   // anything not starting with a digit may follow (reports)
};

// Parses "1.9", "1.13.1" or, with VersionSuffix::kIgnored, "1.13.0a0" and
// "2.1.0+cpu". InvalidArgument names the text and the expected form.
absl::StatusOr<LibTorchVersion> ParseLibTorchVersion(
    absl::string_view text, VersionSuffix suffix = VersionSuffix::kRejected);

}  // namespace icount::expand

#endif  // ICOUNT_EXPAND_LIBTORCH_VERSION_H_
