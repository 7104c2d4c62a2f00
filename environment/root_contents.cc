// What a root holds (InspectRoot, CheckRootContents in root.h): asked
// inside the root by a shell script, so that a root without Python or a
// compiler still answers.
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/status.h"
#include "base/subprocess.h"
#include "environment/pytorch_install.h"
#include "environment/root.h"

namespace icount::environment {
namespace {

// Asks the root, one "name<TAB>answer" line each.
constexpr char kInspectScript[] = R"sh(
answer() { printf '%s\t%s\n' "$1" "$(echo "$2" | head -n 1)"; }
if command -v python3 >/dev/null; then
  answer python "$(python3 -c 'import platform; print(platform.python_version())' 2>&1)"
  answer torch "$(python3 -c 'import torch; print(torch.__version__)' 2>&1 | tail -n 1)"
else
  answer python none; answer torch "none: no python3"
fi
# Named as the tools name the host's (g++ or clang++), whatever c++ is.
for cxx in c++ g++ clang++; do
  if command -v $cxx >/dev/null; then
    name=g++; $cxx --version 2>&1 | head -n 1 | grep -q clang && name=clang++
    answer compiler "$name $($cxx -dumpfullversion -dumpversion 2>&1)"
    break
  fi
done
command -v valgrind >/dev/null && answer valgrind "$(valgrind --version 2>&1)"
if command -v bazel >/dev/null; then
  # Debian's bazel-bootstrap says "bazel no_version"; its package knows.
  version=$(dpkg-query -W -f='${Version}' bazel-bootstrap 2>/dev/null | sed 's/[+~].*//')
  answer bazel "${version:+bazel $version}$(test -n "$version" || bazel --version 2>&1)"
fi
exit 0
)sh";

}  // namespace

absl::StatusOr<RootContents> InspectRoot(const Root& root) {
  if (access((root.directory + "/bin/sh").c_str(), X_OK) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the root ", root.name, " (", root.directory,
        ") has no /bin/sh: a root is a whole system (an unpacked container image, or a Debian "
        "suite icount makes) with python3 and torch, a C++ compiler, valgrind and Bazel"));
  }
  ICOUNT_ASSIGN_OR_RETURN(std::vector<std::string> argv, RootLauncher(root, {}));
  argv.insert(argv.end(),
              {"/usr/bin/env", absl::StrCat("PATH=", kRootPath), "/bin/sh", "-c", kInspectScript});
  ICOUNT_ASSIGN_OR_RETURN(base::CommandResult result, base::RunCommand(argv));
  if (result.exit_code != 0 || result.signal != 0) {
    return absl::FailedPreconditionError(absl::StrCat("cannot look inside the root ", root.name,
                                                      " (", base::DescribeExit(result),
                                                      "):\n", result.output));
  }
  RootContents contents;
  contents.torch = contents.compiler = contents.valgrind = contents.bazel = contents.python =
      "none";
  for (absl::string_view line : absl::StrSplit(result.output, '\n')) {
    std::vector<std::string> fields = absl::StrSplit(line, absl::MaxSplits('\t', 1));
    if (fields.size() != 2) continue;
    if (fields[0] == "torch") contents.torch = fields[1];
    if (fields[0] == "python") contents.python = fields[1];
    if (fields[0] == "compiler") contents.compiler = fields[1];
    if (fields[0] == "valgrind") contents.valgrind = fields[1];
    if (fields[0] == "bazel") contents.bazel = fields[1];
  }
  return contents;
}

std::string RootToolchain(const RootContents& contents) {
  return absl::StrCat("Python ", contents.python, ", ", contents.compiler);
}

std::string DescribeToolchain(const RootContents& contents) {
  return absl::StrCat(RootToolchain(contents), ", ", contents.valgrind, ", ", contents.bazel);
}

absl::Status CheckRootContents(const Root& root, const RootContents& contents) {
  std::vector<std::string> missing;
  if (!contents.torch.empty() && !absl::ascii_isdigit(contents.torch[0])) {
    missing.push_back(
        absl::StrCat("torch (`import torch`: ", contents.torch, "; install python3-torch)"));
  }
  // A side's command runs in the root with /bin/bash (EnvironmentPrefix).
  if (access((root.directory + "/bin/bash").c_str(), X_OK) != 0) {
    missing.push_back("bash (install bash: a side's commands run with /bin/bash)");
  }
  if (contents.compiler == "none") missing.push_back("a C++ compiler (install g++)");
  if (contents.valgrind == "none") missing.push_back("valgrind (install valgrind)");
  if (contents.bazel == "none") missing.push_back("Bazel (install bazel-bootstrap)");
  if (missing.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "the root ", root.name, " (", root.directory, ") lacks ", absl::StrJoin(missing, ", "),
      ": a root side builds icount's worker with the root's Bazel and compiler and measures with "
      "its torch and valgrind"));
}

}  // namespace icount::environment
