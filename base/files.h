#ifndef ICOUNT_BASE_FILES_H_
#define ICOUNT_BASE_FILES_H_

// Files the way icount writes them: results are never left half-written.
//
//   if (absl::Status s = WriteFileAtomically("out.json", json); !s.ok()) ...
//   absl::StatusOr<std::string> text = ReadFileToString("out.json");
//   AppendLineDurably("out.json.journal", line);  // one line per finished result
//
// Errors name the path and the system's reason.

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace icount::base {

// The whole file. NotFound when it cannot be opened, DataLoss on a read
// error.
absl::StatusOr<std::string> ReadFileToString(const std::string& path);

// Writes `contents` to a temporary file beside `path`, flushes it to disk and
// renames it over `path`: readers see the old file or the new one, never a
// part of it, even after a crash or power loss.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents);

// Appends `line` and a newline in one write, then fsyncs, so that a crash
// leaves only whole lines (a journal's contract).
absl::Status AppendLineDurably(const std::string& path, absl::string_view line);

// A fresh private directory named PREFIX-XXXXXX under the first of
// $TEST_TMPDIR (inside `bazel test`, so a test's runs leave nothing outside
// its own directory), $TMPDIR and /tmp that is set. The caller removes it.
//
//   absl::StatusOr<std::string> dir = MakeTemporaryDirectory("icount-run");
//   // e.g. "/tmp/icount-run-a81Xq2", or ".../_tmp/<hash>/icount-run-a81Xq2"
absl::StatusOr<std::string> MakeTemporaryDirectory(const std::string& prefix);

// `path` with every symbolic link, "." and ".." resolved (realpath(3)), or
// NotFound naming the path and why.
absl::StatusOr<std::string> RealPath(const std::string& path);

// The directory MakeTemporaryDirectory creates its directories in.
std::string TemporaryParentDirectory();

// Where icount keeps what it builds for later runs (compiled snippets,
// workers built for another LibTorch): $ICOUNT_CACHE_DIR, else
// $XDG_CACHE_HOME/icount, else $HOME/.cache/icount, else (inside `bazel
// test`, where HOME is unset) $TEST_TMPDIR/icount-cache, else
// /tmp/icount-cache-<uid>. Not created here.
std::string CacheDirectory();

// Whether `path` is a directory (or a symbolic link to one).
bool IsDirectory(const std::string& path);

// Creates `path` and any missing parents (mode 0755), as `mkdir -p`;
// PermissionDenied naming the directory it could not create and why.
absl::Status MakeDirectories(const std::string& path);

// Removes `path` and everything below it on its file system (never what
// is mounted inside it), ignoring errors.
void RemoveDirectoryTree(const std::string& path);

// The bytes `directory` and everything below it take on disk (allocated
// blocks, as `du`), not crossing into file systems mounted inside it; 0
// when it does not exist.
uint64_t BytesOnDisk(const std::string& directory);

// The bytes an unprivileged process may still write to the file system
// holding `path` (statvfs' f_bavail); 0 when `path` does not exist.
uint64_t FreeBytes(const std::string& path);

// A flock(2) on a file, held while the object lives: exclusive for work
// that processes take turns at (making a root, building in one), shared
// for using what that work changes (a root, while a run measures in it):
//
//   ICOUNT_ASSIGN_OR_RETURN(
//       base::FileLock lock,
//       base::FileLock::Take(dir + "/build.lock", [] { Say("waiting for another build"); }));
//
// The file is created when missing and left in place (removing a lock file
// another process has open would let a third lock a new one beside it).
class FileLock {
 public:
  // Takes the lock, calling on_wait (when given) once first if another
  // process holds it and then waiting for it.
  static absl::StatusOr<FileLock> Take(const std::string& path,
                                       const std::function<void()>& on_wait = nullptr);
  // Takes the lock shared: with other shared holders at once, but not
  // while an exclusive holder (Take) has it, nor it while this is held.
  static absl::StatusOr<FileLock> TakeShared(const std::string& path,
                                             const std::function<void()>& on_wait = nullptr);
  // Lets a program this process execs hold the lock on (the descriptor is
  // no longer closed on exec): for a tool that becomes another.
  void KeepAcrossExec();
  FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  FileLock& operator=(FileLock&&) = delete;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  static absl::StatusOr<FileLock> TakeWith(const std::string& path, int operation,
                                           const std::function<void()>& on_wait);
  int fd_;
};

// A path the user gave, made absolute against the directory they stand in:
// the one `bazel run` was started from (BUILD_WORKING_DIRECTORY, as Bazel
// runs the program from its runfiles), else the working directory. An
// absolute or empty path is returned as it is.
//
//   // `./bazelw run //tools:ci -- --destination=rel.json` from /home/me:
//   UserPath("rel.json");  // "/home/me/rel.json"
std::string UserPath(const std::string& path);

// UserPath's inverse, for titles: `path` relative to where the user stands
// when it lies below it ("/home/me/work/run.json" -> "run.json"), else
// `path` itself.
std::string PathForDisplay(const std::string& path);

// Checks, before any work, that --`flag`=`path` names a file that can be
// written: not a directory, in a directory that exists and where a file
// can be made (one is made and removed: permissions alone pass root in
// /proc or on an NFS export that squashes root).
// The error names the flag and says what to do:
//   "--output=/tmp/no/run.json: cannot write into /tmp/no/ (No such file or
//    directory); create the directory or choose another"
// An empty path (the flag not given) is fine.
absl::Status CheckOutputPath(const std::string& flag, const std::string& path);

}  // namespace icount::base

#endif  // ICOUNT_BASE_FILES_H_
