// enter_root: runs a command inside a root filesystem, in a private mount
// namespace (environment/root_namespace.h), with the root left unchanged
// and nothing mounted once the command ends. The tools start a root side's
// builds and workers through it; by hand, it opens a shell in a root:
//
//   bazel-bin/environment/enter_root --root=$HOME/.cache/icount/roots/sid --bind=$PWD -- bash
//
// The command keeps this process's pid, environment and open files, and
// runs as the root's programs: /usr/bin/python3 is the root's. It is killed
// when the process that started enter_root ends, so that a tool killed
// while a build or a worker runs in a root leaves nothing running there.
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/flags.h"
#include "environment/root_namespace.h"

ABSL_FLAG(std::string, root, "", "The root filesystem's directory (required).");
ABSL_FLAG(std::vector<std::string>, bind, {},
          "Comma-separated host directories seen at the same path inside the root.");
ABSL_FLAG(std::string, mount_directory, "",
          "An existing directory for the namespace's tmpfs; default: <icount cache>/roots/.mnt, "
          "created when missing.");

int main(int argc, char** argv) {
  const pid_t parent = getppid();
  std::vector<char*> command = icount::base::ParseFlags(
      argc, argv,
      "Runs COMMAND inside a root filesystem, in a private mount namespace.\n\n"
      "Usage: enter_root --root=DIR [--bind=DIR,...] -- COMMAND [ARG...]",
      {});
  command.erase(command.begin());  // argv[0]
  icount::environment::RootMounts mounts;
  mounts.root = absl::GetFlag(FLAGS_root);
  mounts.binds = absl::GetFlag(FLAGS_bind);
  mounts.mount_directory = absl::GetFlag(FLAGS_mount_directory);
  if (mounts.root.empty() || command.empty()) {
    return icount::base::Fail(absl::InvalidArgumentError(
        "give the root and a command: enter_root --root=DIR -- COMMAND [ARG...]"));
  }
  if (mounts.mount_directory.empty()) {
    mounts.mount_directory = icount::base::CacheDirectory() + "/roots/.mnt";
    if (absl::Status made = icount::base::MakeDirectories(mounts.mount_directory); !made.ok()) {
      return icount::base::Fail(made);
    }
  }
  char cwd[4096];
  if (getcwd(cwd, sizeof(cwd)) != nullptr) mounts.working_directory = cwd;
  if (absl::Status entered = icount::environment::EnterRoot(mounts); !entered.ok()) {
    return icount::base::Fail(entered);
  }
  // SIGKILL when the parent ends, kept across exec: the command (a --batch
  // Bazel, valgrind and its worker) does not outlive the tool, nor keeps the
  // namespace, and with it the root's mounts, alive. A parent already gone
  // has been replaced by the time of the check.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) {
    return icount::base::Fail(absl::InternalError(absl::StrCat(
        "cannot tie ", command[0], " inside the root ", mounts.root,
        " to the program that started it (prctl PR_SET_PDEATHSIG): ", std::strerror(errno))));
  }
  if (getppid() != parent) return 1;  // nobody is left to read a message
  command.push_back(nullptr);
  execvp(command[0], command.data());
  return icount::base::Fail(absl::NotFoundError(absl::StrCat(
      "cannot run ", command[0], " inside the root ", mounts.root, ": ", std::strerror(errno))));
}
