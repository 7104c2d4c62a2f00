#include "environment/root.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/files.h"
#include "base/fnv.h"
#include "base/runfiles.h"
#include "base/status.h"
#include "base/subprocess.h"
#include "environment/pytorch_install.h"

namespace icount::environment {
namespace {

// mmdebstrap, not debootstrap: it resolves and unpacks the packages with
// apt and dpkg in a few calls, where debootstrap runs dpkg package by
// package, and it leaves the downloaded packages out of the root.
constexpr char kMmdebstrap[] = "/usr/bin/mmdebstrap";
// Debian's releases, one "13,Trixie,trixie,<dates>" line each, oldest first.
constexpr char kDebianReleases[] = "/usr/share/distro-info/debian.csv";
constexpr char kPartialSuffix[] = ".partial";
constexpr char kOldSuffix[] = ".old";
// Lines of a failed make's output its error quotes.
constexpr size_t kQuotedLines = 15;
// Below this when mmdebstrap stops, the disk filled up.
constexpr uint64_t kDiskFullBytes = 500'000'000;
// How many of the newest releases a message about an unknown suite names.
constexpr size_t kReleasesNamed = 6;

bool IsSuiteName(absl::string_view value) {
  return !value.empty() && std::all_of(value.begin(), value.end(),
                                       [](char c) { return c >= 'a' && c <= 'z'; });
}

// The codenames of Debian's releases, oldest first, sid among them, as this
// machine's distro-info-data lists them; empty when it is not installed.
// Not experimental: it holds only some packages, on top of sid.
std::vector<std::string> DebianReleases() {
  std::vector<std::string> names;
  absl::StatusOr<std::string> text = base::ReadFileToString(kDebianReleases);
  if (!text.ok()) return names;
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    std::vector<absl::string_view> fields = absl::StrSplit(line, ',');
    if (fields.size() >= 3 && IsSuiteName(fields[2]) && fields[2] != "experimental") {
      names.emplace_back(fields[2]);
    }
  }
  return names;
}

// What Debian's moving names (stable, testing, unstable, oldstable) stand
// for today, by the release dates distro-info-data lists; empty for any
// other name.
std::string CodenameOfAlias(absl::string_view alias) {
  if (alias == "unstable") return "sid";
  absl::StatusOr<std::string> text = base::ReadFileToString(kDebianReleases);
  if (!text.ok()) return "";
  char today[11];
  const time_t now = time(nullptr);
  struct tm utc;
  strftime(today, sizeof(today), "%Y-%m-%d", gmtime_r(&now, &utc));
  std::vector<std::string> released, unreleased;  // codenames, oldest first
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    std::vector<absl::string_view> fields = absl::StrSplit(line, ',');
    if (fields.size() < 3 || fields[0].empty() || !IsSuiteName(fields[2])) continue;
    const bool out = fields.size() >= 5 && !fields[4].empty() && fields[4] <= today;
    (out ? released : unreleased).emplace_back(fields[2]);
  }
  if (alias == "stable" && !released.empty()) return released.back();
  if (alias == "oldstable" && released.size() >= 2) return released[released.size() - 2];
  if (alias == "testing" && !unreleased.empty()) return unreleased.front();
  return "";
}

// A suite Debian has, by this machine's distro-info-data (not checked
// where that is missing: making the root says so).
absl::Status CheckSuiteExists(const Root& root) {
  const std::vector<std::string> releases = DebianReleases();
  if (releases.empty() ||
      std::find(releases.begin(), releases.end(), root.suite) != releases.end()) {
    return absl::OkStatus();
  }
  if (const std::string codename = CodenameOfAlias(root.suite); !codename.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        root.suite, " is Debian's moving name for ", codename,
        "; name the codename (--root=", codename, "), so that a root keeps what it holds"));
  }
  const std::vector<std::string> newest(
      releases.end() - std::min(releases.size(), kReleasesNamed), releases.end());
  return absl::NotFoundError(absl::StrCat(
      "Debian has no suite named ", root.suite, " (its releases, as ", kDebianReleases,
      " lists them: ..., ", absl::StrJoin(newest, ", "), "); or give a root directory"));
}

std::string RootLockPath(const Root& root) {
  return absl::StrCat(RootsDirectory(), "/", root.suite, ".lock");
}

// Takes <roots>/<suite>.lock: one process at a time makes, refreshes or
// removes a root, and none while runs use it (UseRoot holds it shared).
absl::StatusOr<base::FileLock> TakeRootLock(
    const Root& root, const std::function<void(const std::string&)>& on_line) {
  return base::FileLock::Take(RootLockPath(root), [&] {
    if (on_line) {
      on_line(absl::StrCat("waiting for the other icount runs that make or use the root ",
                           root.suite, " to end"));
    }
  });
}

// What making `root` needs of this machine: mmdebstrap, a suite Debian
// has, and running as root.
absl::Status CheckCanMakeRoot(const Root& root) {
  if (access(kMmdebstrap, X_OK) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "making the Debian root ", root.suite,
        " needs mmdebstrap, which is not installed: apt-get install mmdebstrap (./bazelw "
        "installs it), or bring a root directory (--root=DIR)"));
  }
  const std::vector<std::string> releases = DebianReleases();
  if (releases.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "making the Debian root ", root.suite, " needs the list of Debian's releases, ",
        kDebianReleases, ", which is missing: apt-get install distro-info-data (./bazelw "
        "installs it), or bring a root directory (--root=DIR)"));
  }
  ICOUNT_RETURN_IF_ERROR(CheckSuiteExists(root));
  if (geteuid() != 0) {
    return absl::PermissionDeniedError(absl::StrCat(
        "making the Debian root ", root.suite,
        " needs root (mmdebstrap installs packages as root): run `sudo ICOUNT_CACHE_DIR=",
        base::CacheDirectory(), " bazel-bin/tools/roots make ", root.suite,
        "` once, then use it as this user; or bring a root directory (--root=DIR)"));
  }
  return absl::OkStatus();
}

// Whether this machine's apt checks that a mirror's Release file is still
// valid (apt's default). A mirror that is a dated snapshot of Debian
// serves Release files past their Valid-Until; where the machine's own apt
// is told to take them, making a root takes them too.
bool AptChecksValidUntil() {
  absl::StatusOr<base::CommandResult> said =
      base::RunCommand({"/usr/bin/apt-config", "shell", "v", "Acquire::Check-Valid-Until"});
  return !said.ok() || !absl::StrContains(said->output, "'false'");
}

// The mmdebstrap command line that makes `root` in `target` from `mirror`.
// In a mount namespace of its own: the /proc, /sys and /dev mmdebstrap
// mounts in the target go with it, even when it is killed. In a PID
// namespace of its own, whose processes (mmdebstrap, apt, dpkg) the kernel
// kills when the tool that started it ends (setpriv's --pdeathsig on
// unshare, unshare's --kill-child on the namespace's first process): a
// tool killed while it makes a root leaves nothing writing into it. With
// the system's sbin directories on PATH, which mmdebstrap needs (chroot,
// mount) and a PATH set for a user or a job may lack.
std::vector<std::string> MmdebstrapCommand(const Root& root, const std::string& target,
                                           const std::string& mirror) {
  std::vector<std::string> argv = {"/usr/bin/env",
                                   absl::StrCat("PATH=", kRootPath),
                                   "setpriv",
                                   "--pdeathsig=KILL",
                                   "unshare",
                                   "--mount",
                                   "--propagation",
                                   "private",
                                   "--pid",
                                   "--kill-child=KILL",
                                   kMmdebstrap,
                                   "--mode=root",
                                   "--variant=minbase",
                                   "--include=" + absl::StrJoin(RootPackages(), ",")};
  if (!AptChecksValidUntil()) argv.push_back("--aptopt=Acquire::Check-Valid-Until \"false\"");
  argv.insert(argv.end(), {root.suite, target, mirror});
  return argv;
}

// The error for an mmdebstrap that ended with `result`, quoting `last`,
// its last lines of output.
absl::Status MakeFailed(const Root& root, const std::string& mirror,
                        const base::CommandResult& result, const std::deque<std::string>& last,
                        uint64_t free_bytes) {
  const std::string output = absl::StrJoin(last, "\n");
  std::string why = absl::StrCat("mmdebstrap failed (", base::DescribeExit(result), ")");
  if (free_bytes < kDiskFullBytes) {
    // A full disk reads like a mirror's failure ("Failed to fetch").
    why = absl::StrCat("the disk filled up: ", free_bytes / 1'000'000, " MB were free in ",
                       RootsDirectory(), " when mmdebstrap stopped (",
                       base::DescribeExit(result), "); free some space (`roots remove`), or set ",
                       "ICOUNT_CACHE_DIR to a directory on a larger disk");
  } else if (absl::StrContains(result.output, "is expired")) {
    why = absl::StrCat("the Debian mirror ", mirror, " serves a Release file for ", root.suite,
                       " past its Valid-Until date (a dated snapshot of Debian?); if you trust "
                       "the mirror, set Acquire::Check-Valid-Until \"false\" in this machine's "
                       "apt configuration (/etc/apt/apt.conf.d/), which making a root follows");
  } else if (absl::StrContains(result.output, "Failed to fetch") ||
             absl::StrContains(result.output, "does not have a Release file") ||
             absl::StrContains(result.output, "Could not resolve") ||
             absl::StrContains(result.output, "Temporary failure resolving")) {
    why = absl::StrCat("the Debian mirror ", mirror, " could not be reached, or has no suite ",
                       root.suite, " (mmdebstrap: ", base::DescribeExit(result),
                       "); check the machine's apt sources, or set ICOUNT_DEBIAN_MIRROR");
  }
  return absl::UnavailableError(absl::StrCat("cannot make the Debian root ", root.suite, ": ", why,
                                             "; nothing was kept. Its last lines:\n", output));
}

// mmdebstrap into `target` (removed first if left over); nothing is left
// there on failure. Its callers have checked CheckCanMakeRoot, before
// taking the root's lock.
absl::Status MakeRootFilesystem(const Root& root, const std::string& target,
                                const RootMakeOptions& options) {
  std::string mirror = options.mirror;
  if (mirror.empty()) {
    ICOUNT_ASSIGN_OR_RETURN(mirror, DebianMirror());
  }
  if (access(target.c_str(), F_OK) == 0) {
    if (options.on_line) {
      options.on_line(absl::StrCat("removing ", target, ", left by a make that was cut off"));
    }
    base::RemoveDirectoryTree(target);
  }
  if (const uint64_t free = base::FreeBytes(RootsDirectory()); free < options.free_bytes_needed) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "making the Debian root ", root.suite, " needs about ",
        options.free_bytes_needed / 1'000'000'000,
        " GB free, and ", RootsDirectory(), " has ", free / 1'000'000,
        " MB: free some space (`roots remove` removes a root), or set ICOUNT_CACHE_DIR to a "
        "directory on a larger disk"));
  }
  const std::vector<std::string> argv = MmdebstrapCommand(root, target, mirror);
  if (options.on_line) {
    options.on_line(absl::StrCat("making the Debian ", root.suite, " root at ", root.directory,
                                 " from ", mirror, " (a few minutes, once)"));
  }
  std::deque<std::string> last;
  base::CommandOptions run;
  run.on_line = [&](const std::string& line) {
    if (options.on_line) options.on_line(line);
    last.push_back(line);
    if (last.size() > kQuotedLines) last.pop_front();
  };
  absl::StatusOr<base::CommandResult> result = base::RunCommand(argv, run);
  if (result.ok() && result->exit_code == 0 && result->signal == 0) return absl::OkStatus();
  const uint64_t free_when_stopped = base::FreeBytes(RootsDirectory());
  base::RemoveDirectoryTree(target);
  if (!result.ok()) return result.status();
  return MakeFailed(root, mirror, *result, last, free_when_stopped);
}

absl::Status Rename(const std::string& from, const std::string& to) {
  if (rename(from.c_str(), to.c_str()) != 0) {
    return absl::InternalError(
        absl::StrCat("cannot rename ", from, " to ", to, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status CheckSuite(const Root& root, const char* what) {
  if (root.made_by_icount()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      root.directory, " is a root you brought: icount ", what, " only the roots it makes"));
}

}  // namespace

std::string RootsDirectory() { return base::CacheDirectory() + "/roots"; }

const std::vector<std::string>& RootPackages() {
  static const std::vector<std::string>* packages = new std::vector<std::string>{
      // What a side measures with.
      "python3-torch", "libtorch-dev", "python3-numpy", "valgrind", "g++",
      // What building icount's worker there needs (bazelw's list, less
      // what only tests, reports and Slurm use).
      "bazel-bootstrap", "bazel-rules-cc", "bazel-rules-java", "bazel-platforms", "bazel-skylib",
      "python3-dev", "libabsl-dev", "libprotobuf-dev", "protobuf-compiler", "libre2-dev",
      // What building icount's tools there needs besides (reports, history).
      "libjs-chart.js", "libsqlite3-dev"};
  return *packages;
}

namespace {

// A directory root at `real` (its real path). One of the roots icount makes,
// named by its path, is that suite's root: its builds are the suite's (not
// made a second time), and a make's .partial is refused rather than used
// half-made.
absl::StatusOr<Root> RootInIcountsCacheOr(const std::string& value, const std::string& context,
                                          const std::string& real) {
  Root root;
  root.name = value;
  root.directory = real;
  const absl::StatusOr<std::string> roots = base::RealPath(RootsDirectory());
  if (!roots.ok() || !absl::StartsWith(real, *roots + "/")) return root;
  const std::string entry = real.substr(roots->size() + 1);
  if (absl::StrContains(entry, "/")) return root;  // a directory inside a root
  if (IsSuiteName(entry)) {
    root.suite = entry;
    root.directory = absl::StrCat(RootsDirectory(), "/", entry);
    return root;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      context, ": ", value, ": ", real,
      " is a root icount is making or replacing, or whose make was cut off: not a root to use. "
      "Name its suite (`--root=SUITE`; `roots list` shows them)"));
}

}  // namespace

absl::StatusOr<Root> ResolveRoot(const std::string& value, const std::string& context) {
  Root root;
  root.name = value;
  if (absl::StrContains(value, "/") || absl::StartsWith(value, ".")) {
    absl::StatusOr<std::string> real = base::RealPath(value);
    if (!real.ok() || !base::IsDirectory(*real)) {
      return absl::NotFoundError(absl::StrCat(
          context, ": ", value, real.ok() ? ": a file, not a directory" : ": no such directory",
          ". A root is a directory holding a root filesystem (usr/, etc/), or the name of a "
          "Debian suite icount makes (trixie, sid)"));
    }
    if (!base::IsDirectory(*real + "/usr")) {
      return absl::InvalidArgumentError(absl::StrCat(
          context, ": ", value, ": ", *real,
          " is not a root filesystem (it has no usr/); unpack a container image there, or name a "
          "Debian suite (trixie, sid)"));
    }
    return RootInIcountsCacheOr(value, context, *real);
  }
  if (!IsSuiteName(value)) {
    return absl::InvalidArgumentError(absl::StrCat(
        context, ": ", value,
        ": neither a directory (give a path with a '/', e.g. ./image) nor a Debian suite's name "
        "(lowercase letters: bookworm, trixie, sid)"));
  }
  root.suite = value;
  root.directory = absl::StrCat(RootsDirectory(), "/", value);
  // A root made before stays usable whatever the list says now.
  if (!base::IsDirectory(root.directory)) {
    ICOUNT_RETURN_IF_ERROR(CheckSuiteExists(root), base::WithContext(_, context));
  }
  return root;
}

std::vector<std::string> MissingRootPackages(const Root& root) {
  if (!root.made_by_icount()) return {};
  absl::StatusOr<std::string> status =
      base::ReadFileToString(root.directory + "/var/lib/dpkg/status");
  std::set<std::string> installed;
  if (status.ok()) {
    // dpkg's database: paragraphs of "Field: value" lines.
    for (absl::string_view paragraph : absl::StrSplit(*status, "\n\n")) {
      std::string package;
      bool is_installed = false;
      for (absl::string_view line : absl::StrSplit(paragraph, '\n')) {
        if (absl::ConsumePrefix(&line, "Package: ")) package = std::string(line);
        if (line == "Status: install ok installed") is_installed = true;
      }
      if (is_installed) installed.insert(package);
    }
  }
  std::vector<std::string> missing;
  for (const std::string& package : RootPackages()) {
    if (!installed.count(package)) missing.push_back(package);
  }
  return missing;
}

bool RootIsMade(const Root& root) {
  return !root.made_by_icount() ||
         (base::IsDirectory(root.directory + "/usr") && MissingRootPackages(root).empty());
}

std::string WhyNotMade(const Root& root) {
  std::string why;
  if (base::IsDirectory(root.directory + kPartialSuffix)) {
    // A make holds the lock exclusively; runs using a root hold it shared.
    const int fd = open(RootLockPath(root).c_str(), O_RDONLY | O_CLOEXEC);
    const bool making = fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) != 0;
    if (fd >= 0) close(fd);
    why = making ? "being made now by another icount run"
                 : "not made: a make was cut off; the next use makes it again";
  } else if (!base::IsDirectory(root.directory)) {
    why = absl::StrCat("not made yet; `roots make ", root.suite,
                       "` makes it, as does the first run that names it");
  } else {
    why = absl::StrCat("not made: made by an icount that needed fewer packages; it lacks ",
                       absl::StrJoin(MissingRootPackages(root), ", "),
                       "; the next use makes it again");
  }
  if (base::IsDirectory(root.directory + kOldSuffix)) {
    absl::StrAppend(&why, " (a refresh cut off left ", root.directory, kOldSuffix, ": `roots remove ",
                    root.suite, "` removes it)");
  }
  return why;
}

namespace {

// Makes the suite's root into <suite>.partial, then swaps it in; the old
// one's builds go with it. The caller holds the root's lock.
absl::Status MakeAndSwap(const Root& root, const RootMakeOptions& options) {
  const std::string partial = root.directory + kPartialSuffix;
  ICOUNT_RETURN_IF_ERROR(MakeRootFilesystem(root, partial, options));
  const std::string old = root.directory + kOldSuffix;
  base::RemoveDirectoryTree(old);
  if (base::IsDirectory(root.directory)) ICOUNT_RETURN_IF_ERROR(Rename(root.directory, old));
  ICOUNT_RETURN_IF_ERROR(Rename(partial, root.directory));
  base::RemoveDirectoryTree(old);
  base::RemoveDirectoryTree(RootBuildsDirectory(root));
  return absl::OkStatus();
}

// <cache>/roots and enter_root's mount point in it, <cache>/roots/.mnt.
// Made through sudo (`sudo ICOUNT_CACHE_DIR=... roots make sid`), what this
// creates of them goes to the user who ran sudo, who then uses the root as
// themself: enter_root and their builds write there.
absl::Status MakeRootsDirectory() {
  const std::string mount_point = RootsDirectory() + "/.mnt";
  std::vector<std::string> created;
  for (const std::string& directory : {base::CacheDirectory(), RootsDirectory(), mount_point}) {
    if (!base::IsDirectory(directory)) created.push_back(directory);
  }
  ICOUNT_RETURN_IF_ERROR(base::MakeDirectories(mount_point));
  const char* uid = std::getenv("SUDO_UID");
  const char* gid = std::getenv("SUDO_GID");
  if (geteuid() != 0 || uid == nullptr || gid == nullptr) return absl::OkStatus();
  for (const std::string& directory : created) {
    if (chown(directory.c_str(), std::atoi(uid), std::atoi(gid)) != 0) {
      return absl::PermissionDeniedError(absl::StrCat("cannot give ", directory,
                                                      " to the user who ran sudo (uid ", uid,
                                                      "): ", std::strerror(errno)));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status EnsureRootMade(const Root& root, const RootMakeOptions& options) {
  if (RootIsMade(root)) return absl::OkStatus();
  // Before the lock: a suite that cannot be made leaves no lock file.
  ICOUNT_RETURN_IF_ERROR(CheckCanMakeRoot(root));
  ICOUNT_RETURN_IF_ERROR(MakeRootsDirectory());
  ICOUNT_ASSIGN_OR_RETURN(base::FileLock lock, TakeRootLock(root, options.on_line));
  if (RootIsMade(root)) return absl::OkStatus();  // made while we waited
  if (base::IsDirectory(root.directory + "/usr") && options.on_line) {
    options.on_line(absl::StrCat("the root ", root.suite, " lacks packages this icount needs (",
                                 absl::StrJoin(MissingRootPackages(root), ", "),
                                 "): making it again"));
  }
  return MakeAndSwap(root, options);
}

absl::Status RemakeRoot(const Root& root, const RootMakeOptions& options) {
  ICOUNT_RETURN_IF_ERROR(CheckSuite(root, "remakes"));
  ICOUNT_RETURN_IF_ERROR(CheckCanMakeRoot(root));
  ICOUNT_RETURN_IF_ERROR(MakeRootsDirectory());
  ICOUNT_ASSIGN_OR_RETURN(base::FileLock lock, TakeRootLock(root, options.on_line));
  return MakeAndSwap(root, options);
}

absl::StatusOr<std::optional<base::FileLock>> UseRoot(const Root& root,
                                                      const RootMakeOptions& options) {
  if (!root.made_by_icount()) return std::optional<base::FileLock>();
  // A refresh or a removal may come between the make and the shared lock:
  // the root is taken once it is made while held.
  for (int attempt = 0; attempt < 3; ++attempt) {
    ICOUNT_RETURN_IF_ERROR(EnsureRootMade(root, options));
    ICOUNT_ASSIGN_OR_RETURN(base::FileLock lock, base::FileLock::TakeShared(RootLockPath(root), [&] {
      if (options.on_line) {
        options.on_line(absl::StrCat("waiting for another icount that makes or removes the root ",
                                     root.suite));
      }
    }));
    if (RootIsMade(root)) return std::optional<base::FileLock>(std::move(lock));
  }
  return absl::AbortedError(absl::StrCat("the root ", root.suite,
                                         " was removed or made again by other icount runs three "
                                         "times as this one began to use it; run again"));
}

absl::Status RemoveRoot(const Root& root,
                        const std::function<void(const std::string& line)>& on_wait) {
  ICOUNT_RETURN_IF_ERROR(CheckSuite(root, "removes"));
  if (!base::IsDirectory(root.directory) && !base::IsDirectory(root.directory + kPartialSuffix) &&
      !base::IsDirectory(root.directory + kOldSuffix)) {
    return absl::NotFoundError(absl::StrCat("there is no root ", root.suite, " at ",
                                            root.directory, "; `roots list` lists them"));
  }
  ICOUNT_ASSIGN_OR_RETURN(base::FileLock lock, TakeRootLock(root, on_wait));
  for (const char* suffix : {"", kPartialSuffix, kOldSuffix}) {
    base::RemoveDirectoryTree(root.directory + suffix);
  }
  base::RemoveDirectoryTree(RootBuildsDirectory(root));
  // The lock file stays (base::FileLock): a run waiting on it to use the
  // root finds it removed and makes it again.
  return absl::OkStatus();
}

std::vector<Root> ListMadeRoots() {
  std::vector<Root> roots;
  DIR* dir = opendir(RootsDirectory().c_str());
  if (dir == nullptr) return roots;
  while (dirent* entry = readdir(dir)) {
    absl::string_view name = entry->d_name;
    if (!absl::ConsumeSuffix(&name, kPartialSuffix)) absl::ConsumeSuffix(&name, kOldSuffix);
    if (!IsSuiteName(name)) continue;
    if (std::any_of(roots.begin(), roots.end(), [&](const Root& r) { return r.suite == name; })) {
      continue;
    }
    absl::StatusOr<Root> root = ResolveRoot(std::string(name), "--root");
    if (root.ok()) roots.push_back(*std::move(root));
  }
  closedir(dir);
  std::sort(roots.begin(), roots.end(),
            [](const Root& a, const Root& b) { return a.suite < b.suite; });
  return roots;
}

absl::StatusOr<std::string> DebianMirror() {
  ICOUNT_ASSIGN_OR_RETURN(const std::string script,
                          base::FindRunfile("icount/environment/debian_mirror.sh"));
  // The answer on its own descriptor (a file, written whole before the
  // script exits), apart from what apt says on stderr.
  constexpr int kAnswerFd = 3;
  std::FILE* file = std::tmpfile();
  if (file == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot create a file for the Debian mirror's name: ", std::strerror(errno)));
  }
  base::CommandOptions options;
  options.fds = {{fileno(file), kAnswerFd}};
  absl::StatusOr<base::CommandResult> result = base::RunCommand(
      {"bash", "-c", absl::StrCat("exec bash \"$0\" >&", kAnswerFd), script}, options);
  std::string answer;
  char buffer[4096];
  lseek(fileno(file), 0, SEEK_SET);
  for (ssize_t n; (n = read(fileno(file), buffer, sizeof(buffer))) > 0;) answer.append(buffer, n);
  std::fclose(file);
  ICOUNT_RETURN_IF_ERROR(result.status());
  if (result->signal != 0 || result->exit_code != 0) {
    std::string why(absl::StripAsciiWhitespace(result->output));
    if (why.empty()) why = absl::StrCat(script, " ended with ", base::DescribeExit(*result));
    return absl::NotFoundError(why);
  }
  return std::string(absl::StripAsciiWhitespace(answer));
}

absl::StatusOr<std::vector<std::string>> RootLauncher(const Root& root,
                                                      const std::vector<std::string>& binds) {
  if (!RootIsMade(root)) {
    return absl::FailedPreconditionError(
        absl::StrCat("the root ", root.name, " is not made yet (`roots make ", root.suite, "`)"));
  }
  for (const std::string& bind : binds) {
    if (absl::StrContains(bind, ",")) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot show ", bind, " inside a root: its path has a ','"));
    }
  }
  ICOUNT_ASSIGN_OR_RETURN(const std::string enter_root,
                          base::FindRunfile("icount/environment/enter_root"));
  std::vector<std::string> launcher = {enter_root, "--root=" + root.directory};
  if (!binds.empty()) launcher.push_back("--bind=" + absl::StrJoin(binds, ","));
  launcher.push_back("--");
  return launcher;
}

std::string RootBuildsDirectory(const Root& root) {
  base::Fnv1a<uint64_t> key;
  key.Add(root.directory);
  return absl::StrCat(base::CacheDirectory(), "/root-builds/",
                      root.made_by_icount() ? root.suite + "-" : "", key.Hex());
}

}  // namespace icount::environment
