#ifndef ICOUNT_ENVIRONMENT_ROOT_NAMESPACE_H_
#define ICOUNT_ENVIRONMENT_ROOT_NAMESPACE_H_

// Running a program inside a root filesystem (a Debian root icount made, an
// unpacked container image) without changing it and without leaving a
// mount behind. The calling process moves into a mount namespace of its
// own (and a user namespace when it is not root), where:
//
//   - the root is mounted as an overlay whose writable layer is a tmpfs:
//     what the program writes outside the bound directories (Python's
//     __pycache__, /root/.bashrc) vanishes with the namespace, and the
//     root's own files are never touched;
//   - /proc, /dev and /sys are the host's;
//   - every directory of `binds` appears at the same path inside, so paths
//     (the source tree, the cache, a run's scratch directory) mean the
//     same thing on both sides;
//
// and then chroots into the overlay. The namespace and all its mounts go
// away when the last process in it ends, however it ends: exit, Ctrl-C or
// SIGKILL.
//
//   RootMounts mounts;
//   mounts.root = "/home/me/.cache/icount/roots/trixie";
//   mounts.mount_directory = "/home/me/.cache/icount/roots/.mnt";
//   mounts.binds = {"/home/me/icount", "/home/me/.cache/icount", "/tmp"};
//   if (absl::Status s = EnterRoot(mounts); !s.ok()) ...  // says what is missing
//   execv("/usr/bin/valgrind", ...);  // the root's valgrind

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace icount::environment {

struct RootMounts {
  std::string root;  // the root filesystem's directory (holds usr/, etc/)
  // An existing directory the tmpfs is mounted on, inside the namespace
  // only; any number of processes may use the same one at once.
  std::string mount_directory;
  // Host directories seen at the same path inside; each must exist.
  std::vector<std::string> binds;
  // The working directory inside: the same path, when it is bound; else /.
  std::string working_directory;
};

// Enters the namespace and chroots into the root (see above). Errors say
// which step failed and why, and what to do (a kernel without user
// namespaces for a user who is not root, a root path the overlay cannot
// take).
absl::Status EnterRoot(const RootMounts& mounts);

}  // namespace icount::environment

#endif  // ICOUNT_ENVIRONMENT_ROOT_NAMESPACE_H_
