#include "environment/build_sources.h"

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/files.h"
#include "base/fnv.h"

namespace icount::environment {
namespace {

// "a", "a and b", "a, b, c and 2 others": enough to see what changed
// without a screenful when a whole tree does.
std::string SomeOf(const std::vector<std::string>& paths) {
  constexpr size_t kShown = 3;
  if (paths.size() <= kShown) {
    if (paths.size() == 1) return paths[0];
    return absl::StrCat(absl::StrJoin(paths.begin(), paths.end() - 1, ", "), " and ", paths.back());
  }
  return absl::StrCat(absl::StrJoin(paths.begin(), paths.begin() + kShown, ", "), " and ",
                      paths.size() - kShown, " others");
}

}  // namespace

uint64_t ContentDigest(absl::string_view content) {
  base::Fnv1a64 hash;
  hash.Add(content);
  return hash.value();
}

absl::Status CheckSourceTree(const std::string& tree, absl::Span<const SourceFile> built_from) {
  std::vector<std::string> changed;
  std::vector<std::string> gone;
  for (const SourceFile& file : built_from) {
    absl::StatusOr<std::string> content =
        base::ReadFileToString(absl::StrCat(tree, "/", file.path));
    if (!content.ok()) {
      gone.push_back(file.path);
    } else if (ContentDigest(*content) != file.digest) {
      changed.push_back(file.path);
    }
  }
  if (changed.empty() && gone.empty()) return absl::OkStatus();
  std::vector<std::string> what;
  if (!changed.empty()) what.push_back(absl::StrCat(SomeOf(changed), " changed since"));
  if (!gone.empty()) {
    what.push_back(absl::StrCat(SomeOf(gone), gone.size() == 1 ? " is" : " are", " gone"));
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "icount's source tree at ", tree, " is not the one this program was built from: ",
      absl::StrJoin(what, "; "), " (", changed.size() + gone.size(), " of the ", built_from.size(),
      " files a side's worker is built from)"));
}

}  // namespace icount::environment
