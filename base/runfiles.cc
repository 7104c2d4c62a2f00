#include "base/runfiles.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace icount::base {
namespace {

// argv[0] as this process was started. A binary started by another from
// that one's runfiles (a worker from ab_test's, under valgrind, with the
// environment cleared) knows its runfiles only from this path: readlink of
// /proc/self/exe resolves the runfiles symlink to bazel-out. valgrind
// gives its client's argv[0] here too.
std::string Argv0() {
  std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
  std::string argv0;
  std::getline(cmdline, argv0, '\0');
  return argv0;
}

// The directories of a runfiles tree that may hold the repository
// `apparent`: its own name (WORKSPACE builds), then the canonical names
// Bazel's repository mapping gives it under bzlmod ("_main" where icount
// is the root module, "icount~" or "icount+" where it is a dependency),
// from the tree's _repo_mapping ("source,apparent,canonical" lines).
std::vector<std::string> RepositoryDirectories(const std::string& tree,
                                               absl::string_view apparent) {
  std::vector<std::string> names = {std::string(apparent)};
  std::ifstream mapping(tree + "/_repo_mapping");
  for (std::string line; std::getline(mapping, line);) {
    std::vector<absl::string_view> fields = absl::StrSplit(line, ',');
    if (fields.size() == 3 && fields[1] == apparent &&
        std::find(names.begin(), names.end(), fields[2]) == names.end()) {
      names.emplace_back(fields[2]);
    }
  }
  return names;
}

}  // namespace

std::vector<std::string> RunfilesTreesOf(const std::string& argv0, const std::string& exe) {
  std::vector<std::string> trees;
  if (!argv0.empty()) {
    // Started from a runfiles tree (".../x.runfiles/icount/worker/worker"):
    // that tree. Started as bazel-bin/... itself: its own tree beside it.
    if (size_t tree = argv0.rfind(".runfiles/"); tree != std::string::npos) {
      trees.push_back(argv0.substr(0, tree + 9));
    }
    trees.push_back(argv0 + ".runfiles");
  }
  if (!exe.empty()) trees.push_back(exe + ".runfiles");
  return trees;
}

std::vector<std::string> FindRunfiles(const std::string& relative_path) {
  std::vector<std::string> roots;
  for (const char* variable : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    if (const char* root = std::getenv(variable); root != nullptr && *root) roots.push_back(root);
  }
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  const std::string exe = n > 0 ? std::string(self, static_cast<size_t>(n)) : "";
  for (std::string& tree : RunfilesTreesOf(Argv0(), exe)) roots.push_back(std::move(tree));
  const size_t slash = relative_path.find('/');
  const absl::string_view repository = absl::string_view(relative_path).substr(0, slash);
  const absl::string_view rest =
      slash == std::string::npos ? "" : absl::string_view(relative_path).substr(slash);
  // Absolute, as the header promises: a tree found through a relative
  // argv[0] (`bazel-bin/tools/ab_test` run from the checkout) is relative
  // to this directory, and a program started elsewhere (a worker starts in
  // a scratch directory) would not find it.
  char cwd[4096];
  const std::string here = getcwd(cwd, sizeof(cwd)) != nullptr ? cwd : "";
  std::vector<std::string> found;
  for (std::string& root : roots) {
    if (!root.empty() && root[0] != '/' && !here.empty()) root = absl::StrCat(here, "/", root);
    for (const std::string& directory : RepositoryDirectories(root, repository)) {
      std::string candidate = absl::StrCat(root, "/", directory, rest);
      if (access(candidate.c_str(), F_OK) == 0) {
        found.push_back(std::move(candidate));
        break;
      }
    }
  }
  return found;
}

absl::StatusOr<std::string> FindRunfile(const std::string& relative_path) {
  std::vector<std::string> found = FindRunfiles(relative_path);
  if (!found.empty()) return found.front();
  return absl::NotFoundError(absl::StrCat(
      "cannot find ", relative_path,
      " in this binary's runfiles: run it with `bazel run` or "
      "from bazel-bin, and make sure the target that provides it is in the binary's data"));
}

}  // namespace icount::base
