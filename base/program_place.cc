#include "base/program_place.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/files.h"
#include "base/runfiles.h"

namespace icount::base {
namespace {

// Whether the ELF64 file `binary` finds its libraries relative to its own
// path: "$ORIGIN" in its DT_RPATH or DT_RUNPATH (read through its section
// headers, every offset checked against the file's size).
bool RunpathNamesOrigin(absl::string_view binary) {
  const auto fits = [&](uint64_t offset, uint64_t size) {
    return offset <= binary.size() && size <= binary.size() - offset;
  };
  Elf64_Ehdr header;
  if (!fits(0, sizeof(header))) return false;
  std::memcpy(&header, binary.data(), sizeof(header));
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_shentsize != sizeof(Elf64_Shdr) ||
      !fits(header.e_shoff, uint64_t{header.e_shnum} * sizeof(Elf64_Shdr))) {
    return false;
  }
  const auto section = [&](uint64_t index) {
    Elf64_Shdr entry;
    std::memcpy(&entry, binary.data() + header.e_shoff + index * sizeof(Elf64_Shdr), sizeof(entry));
    return entry;
  };
  for (uint64_t i = 0; i < header.e_shnum; ++i) {
    const Elf64_Shdr dynamic = section(i);
    if (dynamic.sh_type != SHT_DYNAMIC || dynamic.sh_link >= header.e_shnum ||
        !fits(dynamic.sh_offset, dynamic.sh_size)) {
      continue;
    }
    const Elf64_Shdr strings = section(dynamic.sh_link);
    if (!fits(strings.sh_offset, strings.sh_size)) continue;
    const absl::string_view table = binary.substr(strings.sh_offset, strings.sh_size);
    for (uint64_t at = 0; at + sizeof(Elf64_Dyn) <= dynamic.sh_size; at += sizeof(Elf64_Dyn)) {
      Elf64_Dyn entry;
      std::memcpy(&entry, binary.data() + dynamic.sh_offset + at, sizeof(entry));
      if ((entry.d_tag != DT_RPATH && entry.d_tag != DT_RUNPATH) ||
          entry.d_un.d_val >= table.size()) {
        continue;
      }
      const absl::string_view path = table.substr(entry.d_un.d_val);
      if (absl::StrContains(path.substr(0, path.find('\0')), "ORIGIN")) return true;
    }
  }
  return false;
}

// Writes `contents` to the new file `path` (mode 0755) from a child
// process. Written here, the file would be open for writing while another
// thread forks (O_CLOEXEC closes the descriptor only at that child's
// exec), and starting it meanwhile fails with ETXTBSY ("Text file busy"):
// concurrent runs each place a worker. The child only opens, writes and
// exits, as a child of a threaded process may.
bool WriteExecutableFromChild(const std::string& path, const std::string& contents) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
    if (fd < 0) _exit(1);
    for (size_t written = 0; written < contents.size();) {
      const ssize_t n = write(fd, contents.data() + written, contents.size() - written);
      if (n <= 0) _exit(1);
      written += static_cast<size_t>(n);
    }
    _exit(close(fd) == 0 ? 0 : 1);
  }
  if (pid < 0) return false;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return false;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

absl::Status LinkExecutable(const std::string& from, const std::string& to) {
  absl::StatusOr<std::string> real = RealPath(from);
  if (!real.ok()) return absl::NotFoundError(absl::StrCat("the program ", real.status().message()));
  const absl::StatusOr<std::string> binary = ReadFileToString(*real);
  // A program that finds its libraries relative to its own file ($ORIGIN
  // in its RUNPATH, as Bazel's dynamically linked tests do) would lose them
  // as a link or copy elsewhere.
  const bool finds_libraries_by_its_path = binary.ok() && RunpathNamesOrigin(*binary);
  if (!finds_libraries_by_its_path) {
    if (link(real->c_str(), to.c_str()) == 0) return absl::OkStatus();
    if (binary.ok()) {
      if (WriteExecutableFromChild(to, *binary)) return absl::OkStatus();
      unlink(to.c_str());
    }
  }
  if (symlink(real->c_str(), to.c_str()) != 0) {
    const int error = errno;
    return absl::InternalError(
        absl::StrCat("cannot link ", to, " to ", from, ": ", std::strerror(error)));
  }
  return absl::OkStatus();
}

// A program without a tree (copied out of Bazel's outputs) gets none.
void LinkRunfiles(const std::string& program, const std::string& to) {
  absl::StatusOr<std::string> real = RealPath(program);
  for (const std::string& tree : RunfilesTreesOf(program, real.ok() ? *real : "")) {
    absl::StatusOr<std::string> real_tree = RealPath(tree);
    struct stat info;
    if (real_tree.ok() && stat(real_tree->c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
      (void)symlink(real_tree->c_str(), to.c_str());
      return;
    }
  }
}

// The file a place's maker holds locked (flock) while the place is in use.
constexpr char kPlaceLock[] = "lock";

// Places whose maker is gone and whose scratch directory is gone too: left
// by a run that was killed (SIGKILL leaves no time to remove them), or
// kept for logs since removed. A place whose maker holds its lock is in
// use, even where its scratch cannot be seen from here (another mount
// namespace: a Bazel sandbox, a root); a place being made has no `s` yet.
void RemoveAbandonedPlaces() {
  DIR* parent = opendir(kProgramPlaceParent);
  if (parent == nullptr) return;
  while (const dirent* entry = readdir(parent)) {
    if (!absl::StartsWith(entry->d_name, "icount-path-")) continue;
    const std::string directory = absl::StrCat(kProgramPlaceParent, "/", entry->d_name);
    const std::string link = directory + "/s";
    struct stat info;
    if (lstat(directory.c_str(), &info) != 0 || info.st_uid != geteuid() ||
        lstat(link.c_str(), &info) != 0 || stat(link.c_str(), &info) == 0) {
      continue;
    }
    const int lock = open(absl::StrCat(directory, "/", kPlaceLock).c_str(), O_RDONLY | O_CLOEXEC);
    const bool in_use = lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) != 0;
    if (lock >= 0) close(lock);
    if (in_use) continue;
    if (DIR* place = opendir(directory.c_str())) {
      while (const dirent* name = readdir(place)) {
        if (name->d_name[0] != '.') unlinkat(dirfd(place), name->d_name, 0);
      }
      closedir(place);
    }
    rmdir(directory.c_str());
  }
  closedir(parent);
}

}  // namespace

ProgramPlace ProgramPlace::Make(const std::string& scratch) {
  RemoveAbandonedPlaces();
  std::string directory = absl::StrCat(kProgramPlaceParent, "/icount-path-XXXXXX");
  if (mkdtemp(directory.data()) == nullptr) return ProgramPlace(scratch, scratch, scratch);
  const std::string lock_path = absl::StrCat(directory, "/", kPlaceLock);
  const int lock = open(lock_path.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  std::string link = absl::StrCat(directory, "/s");
  if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) != 0 ||
      symlink(scratch.c_str(), link.c_str()) != 0) {
    if (lock >= 0) close(lock);
    unlink(lock_path.c_str());
    rmdir(directory.c_str());
    return ProgramPlace(scratch, scratch, scratch);
  }
  ProgramPlace place(std::move(directory), std::move(link), scratch);
  place.lock_ = lock;
  return place;
}

absl::StatusOr<std::string> ProgramPlace::Link(const std::string& program,
                                               const std::string& name) {
  const std::string start = absl::StrCat(directory_, "/", name);
  if (absl::Status linked = LinkExecutable(program, start); !linked.ok()) return linked;
  names_.push_back(name);
  LinkRunfiles(program, start + ".runfiles");
  return start;
}

absl::StatusOr<std::string> ProgramPlace::LinkData(const std::string& path,
                                                   const std::string& name) {
  const std::string link = absl::StrCat(directory_, "/", name);
  if (symlink(path.c_str(), link.c_str()) != 0) {
    const int error = errno;
    return absl::InternalError(
        absl::StrCat("cannot link ", link, " to ", path, ": ", std::strerror(error)));
  }
  names_.push_back(name);
  return link;
}

ProgramPlace::~ProgramPlace() {
  // A kept place, its maker gone, is removed once its scratch is.
  if (lock_ >= 0) close(lock_);
  if (kept_) return;
  for (const std::string& name : names_) {
    unlink(absl::StrCat(directory_, "/", name).c_str());
    unlink(absl::StrCat(directory_, "/", name, ".runfiles").c_str());
  }
  if (directory_ == real_scratch_) return;
  unlink(scratch_.c_str());
  unlink(absl::StrCat(directory_, "/", kPlaceLock).c_str());
  rmdir(directory_.c_str());
}

}  // namespace icount::base
