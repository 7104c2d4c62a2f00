#ifndef ICOUNT_CLI_TOOL_FLAGS_H_
#define ICOUNT_CLI_TOOL_FLAGS_H_

#include <map>
#include <string>
#include <vector>

#include "base/flags.h"

// The command line of the //tools binaries, which are built from every icount
// library: base::ParseFlags (base/flags.h) with all their versions.
//
//   int main(int argc, char** argv) {
//     icount::cli::ParseToolFlags(argc, argv, "Does X.\n\nUsage: tool --flag=V");
//     ...
//   }

namespace icount::cli {

// Every icount library and its version, in --version order.
base::VersionList AllLibraryVersions();

// "icount libraries: timer 0.1.0, compare 0.1.0, ..." for every tool's --version.
std::string LibraryVersions();

// {"timer": "0.1.0", "compare": ..., ...}, as results files record them.
std::map<std::string, std::string> LibraryVersionMap();

// base::ParseFlags(argc, argv, usage, AllLibraryVersions()), with --help's
// sections for the flags the tools share (--executor, --history, --html) and
// `checking_icount`, the tool's flags that exist to check icount itself,
// listed last (see base::HelpLayout); then ResolvePathFlags(), and under
// `bazel run` a change to the directory it was started from, so that the
// shell commands a tool runs (a side's --A, --env) start there too. A
// closed pipe is then an error where it is written (EPIPE), not SIGPIPE, and
// a tool whose standard output could not be written exits 1 saying so.
std::vector<char*> ParseToolFlags(int argc, char** argv, const char* usage,
                                  std::vector<std::string> checking_icount = {});

// Makes every flag that names a file or directory (--output, --json,
// --libtorch, a --root that is a directory, ...) absolute, a relative value
// taken from where the user stands (base::UserPath): `bazel run` starts a
// tool in its runfiles, and `--output=run.json` belongs beside the user,
// not there. Messages then name the absolute path.
void ResolvePathFlags();

// Why a tool refuses, with base::RefuseUnusedFlags, a flag that shapes
// the instruction counts beside --no_counts.
inline constexpr char kShapesCountsBesideNoCounts[] =
    "shapes the instruction counts, which --no_counts leaves out: drop one of them";

// This process's command line, arguments with spaces quoted, e.g.
// "bazel-bin/tools/main '--filter=add|mul'", for runs to record.
std::string ToolCommandLine();

}  // namespace icount::cli

#endif  // ICOUNT_CLI_TOOL_FLAGS_H_
