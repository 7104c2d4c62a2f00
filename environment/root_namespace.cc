#include "environment/root_namespace.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/files.h"

namespace icount::environment {
namespace {

std::string Errno() { return std::strerror(errno); }

absl::Status WriteProcFile(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot open ", path, ": ", Errno()));
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const std::string why = Errno();
  close(fd);
  if (!written) return absl::InternalError(absl::StrCat("cannot write ", path, ": ", why));
  return absl::OkStatus();
}

// A private mount namespace; for a user who is not root, inside a user
// namespace where that user is root (and only there).
absl::Status Unshare() {
  const uid_t uid = getuid();
  const gid_t gid = getgid();
  if (geteuid() == 0) {
    if (unshare(CLONE_NEWNS) != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot make a private mount namespace (unshare: ", Errno(),
                       "); a container may forbid it: run icount where `unshare -m true` works"));
    }
    return absl::OkStatus();
  }
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "entering a root as a user who is not root needs user namespaces, and this kernel "
        "refuses one (unshare: ",
        Errno(),
        "). Enable them (sysctl kernel.unprivileged_userns_clone=1, or "
        "user.max_user_namespaces > 0), or run as root"));
  }
  if (absl::Status s = WriteProcFile("/proc/self/setgroups", "deny"); !s.ok()) return s;
  if (absl::Status s = WriteProcFile("/proc/self/uid_map", absl::StrCat("0 ", uid, " 1\n"));
      !s.ok()) {
    return s;
  }
  return WriteProcFile("/proc/self/gid_map", absl::StrCat("0 ", gid, " 1\n"));
}

absl::Status Mount(const std::string& source, const std::string& target, const char* type,
                   unsigned long flags, const std::string& data, const std::string& what) {
  if (mount(source.c_str(), target.c_str(), type, flags, data.empty() ? nullptr : data.c_str()) !=
      0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot mount ", what, " at ", target, ": ", Errno()));
  }
  return absl::OkStatus();
}

// The root and the directories to bind as the overlay needs them, checked
// before any namespace is made.
absl::Status CheckMounts(const RootMounts& mounts) {
  if (!base::IsDirectory(mounts.root + "/usr")) {
    return absl::NotFoundError(
        absl::StrCat(mounts.root, " is not a root filesystem (it has no usr/)"));
  }
  // The overlay's options separate directories by ':' and options by ','.
  if (absl::StrContains(mounts.root, ":") || absl::StrContains(mounts.root, ",")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the root's path ", mounts.root, " has a ':' or ','; move or link it to a plain path"));
  }
  for (const std::string& bind : mounts.binds) {
    // Shown at the same path inside, which a relative path is not.
    if (!absl::StartsWith(bind, "/")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot show ", bind, " inside the root: give its absolute path (", base::UserPath(bind),
          ")"));
    }
    if (!base::IsDirectory(bind)) {
      return absl::NotFoundError(absl::StrCat("cannot show ", bind,
                                              " inside the root: it is not a directory"));
    }
  }
  return absl::OkStatus();
}

// The root as an overlay whose writable layer is a tmpfs on
// `mounts.mount_directory`; returns the merged root's directory.
absl::StatusOr<std::string> MountOverlay(const RootMounts& mounts) {
  const std::string& scratch = mounts.mount_directory;
  if (absl::Status s = Mount("icount-root", scratch, "tmpfs", 0, "mode=0755", "a tmpfs");
      !s.ok()) {
    return s;
  }
  const std::string upper = scratch + "/upper", work = scratch + "/work",
                    merged = scratch + "/root";
  for (const std::string& dir : {upper, work, merged}) {
    if (mkdir(dir.c_str(), 0755) != 0) {
      return absl::InternalError(absl::StrCat("cannot create ", dir, ": ", Errno()));
    }
  }
  if (absl::Status s = Mount("icount-root", merged, "overlay", 0,
                             absl::StrCat("lowerdir=", mounts.root, ",upperdir=", upper,
                                          ",workdir=", work),
                             absl::StrCat("the root ", mounts.root, " (overlayfs)"));
      !s.ok()) {
    return s;
  }
  return merged;
}

// The host's /proc, /dev and /sys, and `mounts.binds` at their own paths,
// inside the root at `merged`.
absl::Status MountInsideRoot(const RootMounts& mounts, const std::string& merged) {
  for (const char* system : {"/proc", "/dev", "/sys"}) {
    const std::string target = merged + system;
    if (absl::Status s = base::MakeDirectories(target); !s.ok()) return s;
    if (absl::Status s = Mount(system, target, nullptr, MS_BIND | MS_REC, "", system); !s.ok()) {
      return s;
    }
  }
  // Shorter paths first, so that a bound directory inside another bound one
  // is mounted over it, not under it.
  std::vector<std::string> binds = mounts.binds;
  std::sort(binds.begin(), binds.end(),
            [](const std::string& a, const std::string& b) { return a.size() < b.size(); });
  for (const std::string& bind : binds) {
    const std::string target = merged + bind;
    if (absl::Status s = base::MakeDirectories(target); !s.ok()) return s;
    if (absl::Status s = Mount(bind, target, nullptr, MS_BIND, "", bind); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status EnterRoot(const RootMounts& mounts) {
  if (absl::Status s = CheckMounts(mounts); !s.ok()) return s;
  if (absl::Status s = Unshare(); !s.ok()) return s;
  // Nothing mounted from here on reaches the host's namespace.
  if (absl::Status s = Mount("none", "/", nullptr, MS_REC | MS_PRIVATE, "", "/ as private");
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::string> merged = MountOverlay(mounts);
  if (!merged.ok()) return merged.status();
  if (absl::Status s = MountInsideRoot(mounts, *merged); !s.ok()) return s;
  if (chroot(merged->c_str()) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot chroot into ", mounts.root, ": ", Errno()));
  }
  const std::string cwd = mounts.working_directory.empty() ? "/" : mounts.working_directory;
  if (chdir(cwd.c_str()) != 0 && chdir("/") != 0) {
    return absl::InternalError(absl::StrCat("cannot change into / of the root: ", Errno()));
  }
  return absl::OkStatus();
}

}  // namespace icount::environment
