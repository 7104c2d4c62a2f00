#ifndef ICOUNT_BASE_FLAGS_H_
#define ICOUNT_BASE_FLAGS_H_

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

// What every icount program does with its command line: --help lists the
// program's own flags and exits 0, --version prints the versions of the
// icount libraries it is built from. Each program names those libraries
// itself, so a program depends on the version of nothing it does not link:
//
//   int main(int argc, char** argv) {
//     icount::base::ParseFlags(argc, argv, "Does X.\n\nUsage: tool --flag=V",
//                              {{"timer", icount::timer::kTimerVersion}});
//     ...
//   }
//
// The //tools binaries use ParseToolFlags (cli/tool_flags.h), which names
// all libraries; the worker names the two it links.

namespace icount::base {

// (library, version) pairs in the order --version prints them.
using VersionList = std::vector<std::pair<std::string, std::string>>;

// How --help groups a program's flags. Flags are listed by section, each
// with its default and help text:
//
//   Running on Slurm (--executor=slurm):
//     --shards=0
//         Array tasks, one node each; 0: one per node of the partition.
//
// A flag goes to the section of the file that defines it, if that file
// has one (ICOUNT_FLAG_SECTION); other flags go first, under "Flags". Flags
// that exist to check icount itself rather than to measure (e.g. main's
// --template_per_case) come last, under "For checking icount itself".
struct HelpLayout {
  // Names of flags, without "--".
  std::vector<std::string> checking_icount;
};

// Gives the flags the calling file defines a --help section of their own,
// titled `title`. At namespace scope, in the file with their ABSL_FLAGs:
//
//   ICOUNT_FLAG_SECTION("Running on Slurm (--executor=slurm)");
//
// Sections follow "Flags" in the order of their titles.
#define ICOUNT_FLAG_SECTION(title)                                             \
  [[maybe_unused]] static const bool icount_flag_section_of_this_file =       \
      ::icount::base::internal::RegisterFlagSection(__FILE__, title)

namespace internal {
// What ICOUNT_FLAG_SECTION expands to: `file` is the defining file's
// __FILE__, as abseil records it for each flag.
bool RegisterFlagSection(const char* file, const char* title);
}  // namespace internal

// The --help text: `usage`, then the flags defined outside abseil, grouped
// by `layout`.
std::string HelpText(absl::string_view usage, const HelpLayout& layout);

// "icount libraries: timer 0.1.0, worker 0.1.0".
std::string DescribeVersions(const VersionList& versions);

// Installs DescribeVersions(versions) as absl's --version text and
// HelpText(usage, layout) as the --help text, then parses argv. Returns the
// positional arguments. --helpfull shows abseil's flags too, as abseil lays
// them out. Also ignores SIGXFSZ, so a write past a file-size limit is an
// error the writer reports, not the program's death.
std::vector<char*> ParseFlags(int argc, char** argv, const char* usage, VersionList versions,
                              const HelpLayout& layout = {});

// A flag given twice on one command line is refused before anything runs:
// abseil would keep the last value and drop the first without a word
// (`compare --input=a.json --input=b.json` would show b.json alone). Forms
// that set the same flag count alike (--x=1, --x 1, -x=1; --b and --nob for
// a bool); arguments after "--" are not flags. ParseFlags calls it.
//
//   "--input is given twice (--input=a.json, then --input=b.json): it takes
//    one value, and the second would replace the first; give it once"
absl::Status CheckNoFlagGivenTwice(int argc, char** argv);

// Refuses flags that would do nothing: when `unused`, the first of `names`
// set to other than its default is an error, "--<name> <why>":
//
//   ICOUNT_RETURN_IF_ERROR(RefuseUnusedFlags(
//       {"repeats", "cache_sim"}, no_counts,
//       "shapes the instruction counts, which --no_counts leaves out: drop one of them"));
absl::Status RefuseUnusedFlags(std::initializer_list<absl::string_view> names, bool unused,
                               absl::string_view why);

// Checks of flag values, made before any work starts. Each error names the
// flag and its value and says what is allowed:
//
//   ICOUNT_RETURN_IF_ERROR(CheckFlagAtLeast("repeats", repeats, 1));
//   // "--repeats=0: must be at least 1"
absl::Status CheckFlagAtLeast(absl::string_view name, double value, double minimum);
// Seconds and other quantities that must be above zero, and finite.
absl::Status CheckFlagPositive(absl::string_view name, double value);
// For programs that take flags only: ParseFlags's positional arguments
// (argv[0] first) must be just the program's name.
absl::Status CheckNoPositionalArguments(const std::vector<char*>& positional);

// The one way a front end reports an error it stops on: prints
// "<program>: <message>" to stderr (the program's name as ParseFlags saw it)
// and returns 1, the exit status of an error:
//
//   if (!results.ok()) return Fail(results.status());
int Fail(absl::string_view message);
int Fail(const absl::Status& status);

}  // namespace icount::base

#endif  // ICOUNT_BASE_FLAGS_H_
