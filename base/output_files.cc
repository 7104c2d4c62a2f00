#include "base/output_files.h"

#include <sys/stat.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/files.h"

namespace icount::base {
namespace {

// `path` resolved as far as it exists: the whole path, or its directory
// with the file's name after it (a file not written yet).
std::string ResolvedAsFarAsItExists(const std::string& path) {
  if (absl::StatusOr<std::string> whole = RealPath(path); whole.ok()) return *whole;
  const size_t slash = path.rfind('/');
  const std::string directory = slash == std::string::npos ? "." : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (absl::StatusOr<std::string> resolved = RealPath(directory.empty() ? "/" : directory);
      resolved.ok()) {
    return absl::StrCat(*resolved == "/" ? "" : *resolved, "/", name);
  }
  return path;
}

}  // namespace

absl::Status CheckReplaceable(const std::string& path, absl::string_view what,
                              const std::function<absl::Status(absl::string_view text)>& is_ours) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) return absl::OkStatus();
  absl::StatusOr<std::string> text;
  std::string why;
  if (S_ISDIR(info.st_mode)) {
    why = "is a directory";
  } else if (!S_ISREG(info.st_mode)) {
    // Read, a device or pipe may never end; written, the file put in its
    // place by a rename would replace it.
    why = "is not a regular file (a device, pipe or socket)";
  } else if (text = ReadFileToString(path); !text.ok()) {
    why = absl::StrCat("cannot be read (", text.status().message(), ")");
  } else if (absl::Status ours = is_ours(*text); ours.ok()) {
    return absl::OkStatus();
  } else {
    why = std::string(ours.message());
  }
  return absl::FailedPreconditionError(absl::StrCat(path, " exists and ", why,
                                                    "; icount replaces only its own ", what,
                                                    ": choose another file or move it away"));
}

absl::Status CheckDistinctOutputs(
    const std::vector<std::pair<std::string, std::string>>& outputs) {
  std::vector<std::string> resolved;
  for (const auto& [flag, path] : outputs) {
    resolved.push_back(path.empty() ? "" : ResolvedAsFarAsItExists(path));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (size_t j = i + 1; j < outputs.size(); ++j) {
      if (resolved[i].empty() || resolved[i] != resolved[j]) continue;
      return absl::InvalidArgumentError(absl::StrCat("--", outputs[i].first, " and --",
                                                     outputs[j].first, " both name ", resolved[i],
                                                     ": give each its own file"));
    }
  }
  return absl::OkStatus();
}

}  // namespace icount::base
