// roots: the root filesystems a side can run in (--root, --A_root): lists
// what each holds, makes, refreshes and removes the Debian roots icount
// keeps under its cache (environment/root.h).
//
//   bazel run //tools:roots -- list
//   bazel run //tools:roots -- make trixie sid
//   bazel run //tools:roots -- refresh sid
//   bazel run //tools:roots -- remove trixie
//   bazel run //tools:roots -- list /srv/images/pytorch-nightly
#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/files.h"
#include "base/flags.h"
#include "base/status.h"
#include "cli/tool_flags.h"
#include "environment/root.h"

namespace icount::tools {
namespace {

constexpr char kUsage[] =
    "Lists, makes, refreshes and removes the root filesystems a side can run in (--root, "
    "--A_root, root= in an ab_test --sides file).\n\n"
    "Usage: bazel run //tools:roots -- list [ROOT...]\n"
    "       bazel run //tools:roots -- make SUITE...      (a Debian suite: trixie, sid, ...)\n"
    "       bazel run //tools:roots -- refresh SUITE...   (made again with the newest packages)\n"
    "       bazel run //tools:roots -- remove SUITE...\n\n"
    "A ROOT is a Debian suite icount makes under its cache directory, or a directory you "
    "bring (an unpacked container image). `list` without ROOTs lists the suites icount has "
    "made, with their size and what they hold.";

void Progress(const std::string& line) { std::fprintf(stderr, "roots: %s\n", line.c_str()); }

std::string Gigabytes(uint64_t bytes) { return absl::StrFormat("%.1f GB", bytes / 1e9); }

absl::Status List(const std::vector<environment::Root>& roots) {
  if (roots.empty()) {
    std::printf("no roots made yet under %s; `roots make trixie` makes one\n",
                environment::RootsDirectory().c_str());
    return absl::OkStatus();
  }
  for (const environment::Root& root : roots) {
    std::printf("%s\n  at %s\n", root.name.c_str(), root.directory.c_str());
    if (!environment::RootIsMade(root)) {
      std::printf("  %s\n", environment::WhyNotMade(root).c_str());
      continue;
    }
    absl::StatusOr<environment::RootContents> contents = environment::InspectRoot(root);
    if (!contents.ok()) {
      std::printf("  cannot look inside: %s\n", std::string(contents.status().message()).c_str());
      continue;
    }
    std::printf("  %s on disk\n  torch %s\n  %s\n", Gigabytes(base::BytesOnDisk(root.directory)).c_str(),
                contents->torch.c_str(), environment::DescribeToolchain(*contents).c_str());
    // Where icount's builds in the root go (empty before the first): for
    // the space they take, and for a build of one's own that shares their
    // disk cache (environment/suite_build.h).
    const std::string builds = environment::RootBuildsDirectory(root);
    std::printf("  icount's builds in it at %s, %s on disk\n", builds.c_str(),
                Gigabytes(base::BytesOnDisk(builds)).c_str());
    if (absl::Status usable = environment::CheckRootContents(root, *contents); !usable.ok()) {
      std::printf("  not usable as a side: %s\n", std::string(usable.message()).c_str());
    }
  }
  return absl::OkStatus();
}

absl::Status Run(const std::vector<std::string>& arguments) {
  if (arguments.empty()) {
    return absl::InvalidArgumentError("say what to do: list, make, refresh or remove (--help)");
  }
  const std::string& verb = arguments[0];
  if (verb != "list" && verb != "make" && verb != "refresh" && verb != "remove") {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", verb, "\" is not something roots does: list, make, refresh or remove"));
  }
  std::vector<environment::Root> roots;
  for (size_t i = 1; i < arguments.size(); ++i) {
    ICOUNT_ASSIGN_OR_RETURN(environment::Root root, environment::ResolveRoot(arguments[i], "roots " + verb));
    // A directory you bring is used as it is: there is nothing to make.
    if (verb != "list" && !root.made_by_icount()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "roots ", verb, ": ", arguments[i], " is a root you brought: icount makes, refreshes and "
          "removes only the Debian suites it makes (`roots list ", arguments[i],
          "` shows what it holds)"));
    }
    roots.push_back(std::move(root));
  }
  if (verb == "list") return List(roots.empty() ? environment::ListMadeRoots() : roots);
  if (roots.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(verb, " needs the Debian suites to ", verb, ", e.g. `roots ", verb,
                     " trixie`"));
  }
  environment::RootMakeOptions options;
  options.on_line = Progress;
  for (const environment::Root& root : roots) {
    if (verb == "make") {
      ICOUNT_RETURN_IF_ERROR(environment::EnsureRootMade(root, options));
      Progress(absl::StrCat(root.name, " is made, at ", root.directory));
    } else if (verb == "refresh") {
      ICOUNT_RETURN_IF_ERROR(environment::RemakeRoot(root, options));
      Progress(absl::StrCat(root.name, " is made again, at ", root.directory));
    } else {
      ICOUNT_RETURN_IF_ERROR(environment::RemoveRoot(root, Progress));
      Progress(absl::StrCat(root.name, " and its builds are removed"));
    }
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace icount::tools

int main(int argc, char** argv) {
  const std::vector<char*> positional = icount::cli::ParseToolFlags(argc, argv, icount::tools::kUsage);
  const std::vector<std::string> arguments(positional.begin() + 1, positional.end());
  if (absl::Status status = icount::tools::Run(arguments); !status.ok()) {
    return icount::base::Fail(status);
  }
  return 0;
}
