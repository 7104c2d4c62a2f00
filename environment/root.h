#ifndef ICOUNT_ENVIRONMENT_ROOT_H_
#define ICOUNT_ENVIRONMENT_ROOT_H_

// A side can be a root filesystem: a Debian suite icount makes itself
// (mmdebstrap from the machine's own Debian mirror, cached under
// <cache>/roots/<suite> and reused after), or a directory the user brings
// (an unpacked container image). Everything of such a side is the root's:
// icount's worker is built there by the root's Bazel and compiler against
// its LibTorch, and runs with its Python, torch and valgrind, entered
// through enter_root (root_namespace.h).
//
//   absl::StatusOr<Root> root = ResolveRoot("trixie", "--root");  // not made yet, maybe
//   RootMakeOptions make;
//   make.on_line = [](const std::string& line) { std::cerr << line << "\n"; };
//   if (absl::Status s = EnsureRootMade(*root, make); !s.ok()) ...
//   absl::StatusOr<std::vector<std::string>> launcher = RootLauncher(*root);
//   // *launcher + {"/usr/bin/python3", "-c", "import torch"} runs the root's torch

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/files.h"

namespace icount::environment {

struct Root {
  std::string name;       // as given: "trixie", or the directory
  std::string suite;      // the Debian suite icount makes; empty for a user's directory
  std::string directory;  // the root filesystem on the host
  bool made_by_icount() const { return !suite.empty(); }
};

// Where icount keeps the roots it makes: <cache>/roots.
std::string RootsDirectory();

// The Debian packages a root icount makes holds: PyTorch, a compiler,
// valgrind, and what building icount there needs (Bazel, abseil, ...).
const std::vector<std::string>& RootPackages();

// A --root value: a path (with a '/', or starting with '.') names a
// directory, a root the user brings; a name of lowercase letters (a Debian
// suite: bookworm, trixie, sid) is one icount makes, made or not (a name
// Debian does not have is refused unless it was made before). A root icount made, named by its directory,
// is that suite's (the same builds); a make's unfinished directory is
// refused. Errors start with `context` (the flag, say
// "--B_root") and say what a value may be: a path that does not exist, a
// name that is neither.
absl::StatusOr<Root> ResolveRoot(const std::string& value, const std::string& context);

// Whether the root is ready to use: a user's directory always; a suite
// once its make finished (a make cut off leaves only <suite>.partial) and
// while it holds every package of RootPackages().
bool RootIsMade(const Root& root);

// Why a suite's root is not made (RootIsMade false), for `roots list`:
// not made yet, being made now by another run, a make cut off, or made by
// an icount that needed fewer packages; and a refresh cut off that left
// <suite>.old behind.
std::string WhyNotMade(const Root& root);

// The packages of RootPackages() a suite's root does not hold (by its
// dpkg database): one made by an icount that needed fewer. EnsureRootMade
// makes such a root again. Empty for a user's directory.
std::vector<std::string> MissingRootPackages(const Root& root);

struct RootMakeOptions {
  // The Debian mirror; empty: DebianMirror().
  std::string mirror;
  // Progress lines (mmdebstrap's, apt's) as they come.
  std::function<void(const std::string& line)> on_line;
  // What making a root needs free on the cache's disk, checked before
  // mmdebstrap starts: a root takes 2-3 GB (trixie 2.4, sid 2.9), its
  // packages downloaded into it first.
  uint64_t free_bytes_needed = 5'000'000'000;
};

// Makes a suite's root unless it is made (made again when it lacks
// packages, as RootIsMade says): mmdebstrap (variant minbase,
// RootPackages()) into <suite>.partial, renamed into place once complete,
// under a lock so that two tools never make one root at once. A .partial
// left by a make that was cut off is removed and made again. Errors leave
// nothing half-made and say what to do: mmdebstrap missing, not root, a
// suite Debian does not have, the mirror unreachable or its Release file
// expired.
absl::Status EnsureRootMade(const Root& root, const RootMakeOptions& options);

// The root in use: a suite's root made when it is not (EnsureRootMade),
// then held shared (<roots>/<suite>.lock) while the lock lives, so that
// no RemakeRoot or RemoveRoot changes it, or its builds, under a run; they
// wait for the run. A user's directory holds nothing (nullopt).
//
//   ICOUNT_ASSIGN_OR_RETURN(std::optional<base::FileLock> in_use, UseRoot(root, make));
//   ...  // build and measure in the root
absl::StatusOr<std::optional<base::FileLock>> UseRoot(const Root& root,
                                                      const RootMakeOptions& options);

// Makes the suite's root again (the packages' newest versions) and
// replaces the old one once the new one is complete; the builds made for
// the old one go too. Waits for the runs using the root (UseRoot).
absl::Status RemakeRoot(const Root& root, const RootMakeOptions& options);

// Removes a suite's root, what a make or refresh cut off left of it, and the
// builds made for it, once no run uses it; on_wait (when given) hears why it
// waits.
absl::Status RemoveRoot(const Root& root,
                        const std::function<void(const std::string& line)>& on_wait = nullptr);

// The roots icount has made (or began to make, or left a refresh's .old
// of), by suite.
std::vector<Root> ListMadeRoots();

// The Debian mirror the machine's apt sources name, as apt reads them
// ($ICOUNT_DEBIAN_MIRROR wins): the first URI of a source for a Debian
// release's own archive, not its -updates or -security pocket. The rule
// is environment/debian_mirror.sh's, which bench/c10_rebuild.sh asks too.
absl::StatusOr<std::string> DebianMirror();

// The command prefix that runs a command inside the root (enter_root, from
// the running tool's runfiles), with icount's source tree, its cache and
// the temporary directory seen at their own paths inside.
absl::StatusOr<std::vector<std::string>> RootLauncher(const Root& root,
                                                      const std::vector<std::string>& binds);

// Where builds made inside the root live: <cache>/root-builds/<hash of the
// root's directory>.
std::string RootBuildsDirectory(const Root& root);

// What a root holds, asked inside it.
struct RootContents {
  std::string torch;     // "2.6.0", or "none: ModuleNotFoundError..."
  std::string python;    // "3.13.5"
  std::string compiler;  // "g++ 14.2.0"
  std::string valgrind;  // "valgrind-3.24.0"
  std::string bazel;     // "bazel 4.2.3"
};
absl::StatusOr<RootContents> InspectRoot(const Root& root);

// "Python 3.13.5, c++ 14.2.0": what PyTorchInstall::toolchain holds.
std::string RootToolchain(const RootContents& contents);

// RootToolchain and the rest: "Python 3.13.5, c++ 14.2.0, valgrind-3.24.0,
// bazel 4.2.3".
std::string DescribeToolchain(const RootContents& contents);

// An error naming what the root lacks to be a side (torch, a C++ compiler,
// valgrind, Bazel) and how to add it; OK when it has all.
absl::Status CheckRootContents(const Root& root, const RootContents& contents);

}  // namespace icount::environment

#endif  // ICOUNT_ENVIRONMENT_ROOT_H_
