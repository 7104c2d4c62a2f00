#include "base/files.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/file.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace icount::base {

absl::StatusOr<std::string> ReadFileToString(const std::string& path) {
  // A directory opens, and then reads as nothing at all.
  struct stat info;
  if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": is a directory, not a file"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  return contents.str();
}

absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents) {
  const std::string temporary = absl::StrCat(path, ".tmp.", getpid());
  FILE* file = std::fopen(temporary.c_str(), "wb");
  if (file == nullptr) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot write (", temporary, "): ", std::strerror(errno)));
  }
  const bool written = std::fwrite(contents.data(), 1, contents.size(), file) == contents.size();
  const bool flushed = std::fflush(file) == 0 && fsync(fileno(file)) == 0;
  const bool closed = std::fclose(file) == 0;
  if (!written || !flushed || !closed || std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string error = std::strerror(errno);
    std::remove(temporary.c_str());
    return absl::DataLossError(absl::StrCat(path, ": write failed: ", error));
  }
  return absl::OkStatus();
}

absl::Status AppendLineDurably(const std::string& path, absl::string_view line) {
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot append: ", std::strerror(errno)));
  }
  const std::string data = absl::StrCat(line, "\n");
  struct stat before;
  const bool sized = fstat(fd, &before) == 0;
  // One write per line: a crash leaves whole lines only. A write that fails
  // part way (a full disk, a file-size limit) is cut back off, so the file
  // still ends with a whole line.
  const ssize_t written = write(fd, data.data(), data.size());
  std::string error;
  if (written < 0) {
    error = std::strerror(errno);
  } else if (written < static_cast<ssize_t>(data.size())) {
    error = absl::StrCat("only ", written, " of ", data.size(),
                         " bytes written (a full disk or a file-size limit?)");
  } else if (fsync(fd) != 0) {
    error = std::strerror(errno);
  }
  if (!error.empty() && written > 0 && sized) (void)!ftruncate(fd, before.st_size);
  close(fd);
  if (!error.empty()) return absl::DataLossError(absl::StrCat(path, ": write failed: ", error));
  return absl::OkStatus();
}

std::string TemporaryParentDirectory() {
  for (const char* name : {"TEST_TMPDIR", "TMPDIR"}) {
    if (const char* value = std::getenv(name); value != nullptr && *value != '\0') return value;
  }
  return "/tmp";
}

absl::StatusOr<std::string> RealPath(const std::string& path) {
  char* resolved = realpath(path.c_str(), nullptr);
  if (resolved == nullptr) {
    return absl::NotFoundError(absl::StrCat(path, ": ", std::strerror(errno)));
  }
  std::string result = resolved;
  free(resolved);
  return result;
}

std::string CacheDirectory() {
  if (const char* dir = std::getenv("ICOUNT_CACHE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return absl::StrCat(xdg, "/icount");
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return absl::StrCat(home, "/.cache/icount");
  }
  // Inside `bazel test` HOME is unset: the test's own directory, so tests
  // neither share a cache nor leave one behind.
  if (const char* test_tmpdir = std::getenv("TEST_TMPDIR");
      test_tmpdir != nullptr && *test_tmpdir != '\0') {
    return absl::StrCat(test_tmpdir, "/icount-cache");
  }
  return absl::StrCat("/tmp/icount-cache-", getuid());
}

absl::StatusOr<std::string> MakeTemporaryDirectory(const std::string& prefix) {
  std::string pattern = absl::StrCat(TemporaryParentDirectory(), "/", prefix, "-XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot create a directory like ", pattern, ": ", std::strerror(errno)));
  }
  return pattern;
}

std::string UserPath(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  const char* invoked_from = std::getenv("BUILD_WORKING_DIRECTORY");
  std::string base;
  if (invoked_from != nullptr && *invoked_from != '\0') {
    base = invoked_from;
  } else {
    char cwd[4096];
    if (getcwd(cwd, sizeof(cwd)) == nullptr) return path;
    base = cwd;
  }
  std::string relative = path;
  while (relative.rfind("./", 0) == 0) relative.erase(0, 2);
  return absl::StrCat(base, base.back() == '/' ? "" : "/", relative);
}

std::string PathForDisplay(const std::string& path) {
  const std::string here = UserPath(".");  // "<where the user stands>/."
  const std::string prefix = here.substr(0, here.size() - 1);
  return path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0
             ? path.substr(prefix.size())
             : path;
}

absl::Status CheckOutputPath(const std::string& flag, const std::string& path) {
  if (path.empty()) return absl::OkStatus();
  if (IsDirectory(path)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, "=", path, ": is a directory; name the file to write"));
  }
  const size_t slash = path.rfind('/');
  const std::string directory = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  if (access(directory.c_str(), W_OK) != 0) {
    const int error = errno;
    return absl::InvalidArgumentError(absl::StrCat(
        "--", flag, "=", path, ": cannot write into ", directory, " (", std::strerror(error), "); ",
        error == ENOENT ? "create the directory or choose another" : "choose a writable directory"));
  }
  // access() answers for permissions only: root passes it where no file
  // can be made (/proc, /sys, an NFS export that squashes root). A file
  // made and removed again says for sure.
  std::string probe =
      absl::StrCat(directory == "." ? "./" : directory, ".icount-write-check-XXXXXX");
  const int fd = mkstemp(probe.data());
  if (fd < 0) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", path, ": cannot write into ",
                                                   directory, " (", std::strerror(errno),
                                                   "); choose a writable directory"));
  }
  close(fd);
  unlink(probe.c_str());
  return absl::OkStatus();
}

bool IsDirectory(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

absl::Status MakeDirectories(const std::string& path) {
  std::string prefix;
  for (absl::string_view part : absl::StrSplit(path, '/', absl::SkipEmpty())) {
    // A relative path's first directory is below the working directory.
    prefix = prefix.empty() && !absl::StartsWith(path, "/") ? std::string(part)
                                                            : absl::StrCat(prefix, "/", part);
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot create ", prefix, ": ", std::strerror(errno)));
    }
  }
  return absl::OkStatus();
}

void RemoveDirectoryTree(const std::string& path) {
  nftw(
      path.c_str(),
      [](const char* file, const struct stat*, int, struct FTW*) { return std::remove(file), 0; },
      16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

uint64_t BytesOnDisk(const std::string& directory) {
  // nftw's callback takes no context: the sum lives in a thread_local.
  static thread_local uint64_t total;
  total = 0;
  nftw(
      directory.c_str(),
      [](const char*, const struct stat* info, int, struct FTW*) {
        total += static_cast<uint64_t>(info->st_blocks) * 512;
        return 0;
      },
      32, FTW_PHYS | FTW_MOUNT);
  return total;
}

uint64_t FreeBytes(const std::string& path) {
  struct statvfs info;
  if (statvfs(path.c_str(), &info) != 0) return 0;
  return static_cast<uint64_t>(info.f_bavail) * info.f_frsize;
}

absl::StatusOr<FileLock> FileLock::Take(const std::string& path,
                                        const std::function<void()>& on_wait) {
  return TakeWith(path, LOCK_EX, on_wait);
}

absl::StatusOr<FileLock> FileLock::TakeShared(const std::string& path,
                                              const std::function<void()>& on_wait) {
  return TakeWith(path, LOCK_SH, on_wait);
}

void FileLock::KeepAcrossExec() {
  if (fd_ >= 0) fcntl(fd_, F_SETFD, fcntl(fd_, F_GETFD) & ~FD_CLOEXEC);
}

absl::StatusOr<FileLock> FileLock::TakeWith(const std::string& path, int operation,
                                            const std::function<void()>& on_wait) {
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  // flock(2) needs no write access: a lock file another user made (a root
  // made with sudo, then used as oneself) is locked read-only.
  if (fd < 0 && errno == EACCES) fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot open the lock file ", path, ": ", std::strerror(errno)));
  }
  if (flock(fd, operation | LOCK_NB) != 0) {
    if (on_wait) on_wait();
    int locked;
    do {
      locked = flock(fd, operation);
    } while (locked != 0 && errno == EINTR);
    if (locked != 0) {
      const int error = errno;
      close(fd);
      return absl::InternalError(absl::StrCat("cannot lock ", path, ": ", std::strerror(error)));
    }
  }
  return FileLock(fd);
}

FileLock::~FileLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace icount::base
