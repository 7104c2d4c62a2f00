#include "base/files.h"

#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::base {
namespace {

std::string TestDirectory() {
  absl::StatusOr<std::string> directory = MakeTemporaryDirectory("files_test");
  EXPECT_TRUE(directory.ok()) << directory.status();
  return *directory;
}

TEST(FilesTest, WriteAtomicallyThenReadBack) {
  const std::string directory = TestDirectory();
  const std::string path = directory + "/a.json";
  ASSERT_TRUE(WriteFileAtomically(path, "first").ok());
  ASSERT_TRUE(WriteFileAtomically(path, std::string("sec\0ond", 7)).ok());
  absl::StatusOr<std::string> text = ReadFileToString(path);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, std::string("sec\0ond", 7));
  RemoveDirectoryTree(directory);
  struct stat info;
  EXPECT_NE(stat(directory.c_str(), &info), 0) << "the tree was not removed";
}

TEST(FilesTest, AppendLineDurablyAddsWholeLines) {
  const std::string directory = TestDirectory();
  const std::string path = directory + "/journal";
  ASSERT_TRUE(AppendLineDurably(path, "one").ok());
  ASSERT_TRUE(AppendLineDurably(path, "two").ok());
  EXPECT_EQ(*ReadFileToString(path), "one\ntwo\n");
  RemoveDirectoryTree(directory);
}

// A file-size limit stops an append in one of two ways: a write that starts
// below the limit is cut short (and cut back off), one that starts at it fails
// outright with EFBIG. Either way the error names the file and the file keeps
// only whole lines.
TEST(FilesTest, AppendLineDurablyPastAFileSizeLimitKeepsWholeLines) {
  const std::string directory = TestDirectory();
  const std::string path = directory + "/journal";
  struct rlimit saved;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  // As tools' flags do: a write past the limit then fails instead of killing.
  void (*previous)(int) = std::signal(SIGXFSZ, SIG_IGN);
  const struct rlimit limit = {16, saved.rlim_max};
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limit), 0);
  const absl::Status cut_short = AppendLineDurably(path, "0123456789");  // 11 bytes
  const absl::Status over = AppendLineDurably(path, "0123456789");       // 5 fit
  const absl::Status filled = AppendLineDurably(path, "abcd");           // 16 in all
  const absl::Status at_limit = AppendLineDurably(path, "x");
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &saved), 0);
  std::signal(SIGXFSZ, previous);

  EXPECT_TRUE(cut_short.ok()) << cut_short;
  EXPECT_EQ(over.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(over.message(), path +
                                ": write failed: only 5 of 11 bytes written (a full disk or a "
                                "file-size limit?)");
  EXPECT_TRUE(filled.ok()) << filled;
  EXPECT_EQ(at_limit.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(at_limit.message(), path + ": write failed: File too large");
  EXPECT_EQ(*ReadFileToString(path), "0123456789\nabcd\n");
  RemoveDirectoryTree(directory);
}

TEST(FilesTest, RealPathResolvesLinksOrSaysWhy) {
  const std::string dir = std::getenv("TEST_TMPDIR");
  ASSERT_TRUE(WriteFileAtomically(dir + "/target", "x").ok());
  ASSERT_EQ(symlink((dir + "/target").c_str(), (dir + "/link").c_str()), 0);
  absl::StatusOr<std::string> real = RealPath(dir + "/./link");
  ASSERT_TRUE(real.ok()) << real.status();
  EXPECT_EQ(*real, *RealPath(dir) + "/target");
  absl::StatusOr<std::string> missing = RealPath(dir + "/missing");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), dir + "/missing: No such file or directory");
}

TEST(FilesTest, ErrorsNameThePath) {
  absl::StatusOr<std::string> missing = ReadFileToString("/nonexistent/x.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("/nonexistent/x.json: cannot open"), std::string::npos);
  absl::Status unwritable = WriteFileAtomically("/nonexistent/x.json", "x");
  EXPECT_NE(unwritable.message().find("/nonexistent/x.json: cannot write"), std::string::npos)
      << unwritable;
}

TEST(FilesTest, ADirectoryIsNotReadAsAnEmptyFile) {
  const std::string directory = std::getenv("TEST_TMPDIR");
  absl::StatusOr<std::string> read = ReadFileToString(directory);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().message(), directory + ": is a directory, not a file");
}

// Inside `bazel test` a test's runs leave nothing outside its own directory;
// elsewhere TMPDIR, then /tmp.
TEST(FilesTest, TemporaryDirectoriesPreferTestTmpdirThenTmpdir) {
  const std::string test_tmpdir = std::getenv("TEST_TMPDIR");
  const std::string other = test_tmpdir + "/other";
  ASSERT_EQ(mkdir(other.c_str(), 0700), 0);
  setenv("TMPDIR", other.c_str(), 1);
  EXPECT_EQ(TemporaryParentDirectory(), test_tmpdir);
  absl::StatusOr<std::string> directory = MakeTemporaryDirectory("files_test");
  ASSERT_TRUE(directory.ok()) << directory.status();
  EXPECT_EQ(directory->rfind(test_tmpdir + "/files_test-", 0), 0u) << *directory;

  unsetenv("TEST_TMPDIR");
  EXPECT_EQ(TemporaryParentDirectory(), other);
  unsetenv("TMPDIR");
  EXPECT_EQ(TemporaryParentDirectory(), "/tmp");
  setenv("TEST_TMPDIR", test_tmpdir.c_str(), 1);
  RemoveDirectoryTree(*directory);
}

}  // namespace
TEST(FilesTest, UserPathsAreTakenFromWhereBazelRunWasStarted) {
  ASSERT_EQ(setenv("BUILD_WORKING_DIRECTORY", "/home/me/work", 1), 0);
  EXPECT_EQ(UserPath("rel.json"), "/home/me/work/rel.json");
  EXPECT_EQ(UserPath("./out/rel.json"), "/home/me/work/out/rel.json");
  EXPECT_EQ(UserPath("/abs/run.json"), "/abs/run.json");
  EXPECT_EQ(UserPath(""), "");
  ASSERT_EQ(unsetenv("BUILD_WORKING_DIRECTORY"), 0);
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
  EXPECT_EQ(UserPath("rel.json"), std::string(cwd) + "/rel.json");
}

TEST(FilesTest, AnOutputInAMissingDirectoryOrADirectoryIsRefusedNamingTheFlag) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/outputs";
  ASSERT_TRUE(MakeDirectories(dir).ok());
  EXPECT_TRUE(CheckOutputPath("output", dir + "/run.json").ok());
  EXPECT_TRUE(CheckOutputPath("output", "").ok());
  const absl::Status missing = CheckOutputPath("json", dir + "/no/such/t.json");
  EXPECT_EQ(missing.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(missing.message(), "--json=" + dir + "/no/such/t.json: cannot write into " + dir +
                                   "/no/such/ (No such file or directory); create the directory "
                                   "or choose another");
  const absl::Status directory = CheckOutputPath("destination", dir);
  EXPECT_EQ(directory.message(), "--destination=" + dir + ": is a directory; name the file to write");
}

// A directory whose permissions let root write but where no file can be
// made is refused too.
TEST(FilesTest, AnOutputWhereNoFileCanBeMadeIsRefused) {
  const absl::Status proc = CheckOutputPath("output", "/proc/run.json");
  EXPECT_EQ(proc.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(proc.message()),
              ::testing::StartsWith("--output=/proc/run.json: cannot write into /proc/ ("));
  EXPECT_THAT(std::string(proc.message()), ::testing::EndsWith("); choose a writable directory"));
  // The check leaves nothing behind in a directory where it can write.
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/probed";
  ASSERT_TRUE(MakeDirectories(dir).ok());
  ASSERT_TRUE(CheckOutputPath("output", dir + "/run.json").ok());
  DIR* listing = opendir(dir.c_str());
  ASSERT_NE(listing, nullptr);
  std::vector<std::string> entries;
  while (const dirent* entry = readdir(listing)) {
    if (std::string(entry->d_name) != "." && std::string(entry->d_name) != "..") {
      entries.push_back(entry->d_name);
    }
  }
  closedir(listing);
  EXPECT_THAT(entries, ::testing::IsEmpty());
}

// A relative path is made below the working directory, not below "/".
TEST(FilesTest, RelativeDirectoriesAreMadeBelowTheWorkingDirectory) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/relative";
  ASSERT_TRUE(MakeDirectories(dir).ok());
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
  ASSERT_EQ(chdir(dir.c_str()), 0);
  const absl::Status made = MakeDirectories("made/below");
  ASSERT_EQ(chdir(cwd), 0);
  ASSERT_TRUE(made.ok()) << made;
  EXPECT_TRUE(IsDirectory(dir + "/made/below"));
  EXPECT_FALSE(IsDirectory("/made"));
}

TEST(FilesTest, BytesOnDiskCountsWhatAFileTreeTakes) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/sized";
  ASSERT_TRUE(MakeDirectories(dir + "/below").ok());
  ASSERT_TRUE(WriteFileAtomically(dir + "/below/data", std::string(200000, 'x')).ok());
  EXPECT_GE(BytesOnDisk(dir), 200000u);
  EXPECT_LT(BytesOnDisk(dir), 400000u);
  EXPECT_EQ(BytesOnDisk(dir + "/missing"), 0u);
  EXPECT_GT(FreeBytes(dir), 0u);
  EXPECT_EQ(FreeBytes(dir + "/missing"), 0u);
}

TEST(FilesTest, ASecondFileLockWaitsForTheFirstAndSaysSo) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/turns.lock";
  int go[2], events[2];
  ASSERT_EQ(pipe(go), 0);
  ASSERT_EQ(pipe(events), 0);
  // Forked before the parent locks: a child that inherited the parent's
  // descriptor would share its lock.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    char byte;
    if (read(go[0], &byte, 1) != 1) _exit(1);
    absl::StatusOr<FileLock> mine = FileLock::Take(path, [&] { (void)!write(events[1], "w", 1); });
    (void)!write(events[1], mine.ok() ? "l" : "e", 1);
    _exit(0);
  }
  absl::StatusOr<FileLock> held = FileLock::Take(path);
  ASSERT_TRUE(held.ok()) << held.status();
  ASSERT_EQ(write(go[1], "g", 1), 1);
  char event = 0;
  ASSERT_EQ(read(events[0], &event, 1), 1);
  EXPECT_EQ(event, 'w') << "the child took a lock that was held";
  { FileLock released = std::move(*held); }  // lets the child go on
  ASSERT_EQ(read(events[0], &event, 1), 1);
  EXPECT_EQ(event, 'l');
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  for (int fd : {go[0], go[1], events[0], events[1]}) close(fd);
  EXPECT_TRUE(FileLock::Take(path).ok()) << "free again once both are gone";
}

// Takes the lock at `path` (shared or not) on a thread of its own. Waits()
// says whether the take had to wait (its first event), `taken` whether it
// got the lock in the end. flock(2) locks belong to open files, so two
// takes of one process contend like two processes'.
struct TakeOnThread {
  TakeOnThread(const std::string& path, bool shared) {
    thread = std::thread([this, path, shared] {
      bool waited = false;
      std::function<void()> on_wait = [&] {
        waited = true;
        first_event.set_value(true);
      };
      absl::StatusOr<FileLock> lock =
          shared ? FileLock::TakeShared(path, on_wait) : FileLock::Take(path, on_wait);
      if (!waited) first_event.set_value(false);
      done.set_value(lock.ok());
    });
  }
  ~TakeOnThread() { thread.join(); }
  bool Waits() { return waits.get(); }
  std::promise<bool> first_event;
  std::promise<bool> done;
  std::future<bool> waits = first_event.get_future();
  std::future<bool> taken = done.get_future();
  std::thread thread;
};

TEST(FilesTest, SharedFileLocksHoldTogetherAndTakeTurnsWithTheExclusiveOne) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/shared.lock";
  bool waited = false;
  absl::StatusOr<FileLock> first = FileLock::TakeShared(path);
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<FileLock> second = FileLock::TakeShared(path, [&] { waited = true; });
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_FALSE(waited) << "a shared lock waited for another shared one";
  {
    TakeOnThread exclusive(path, /*shared=*/false);
    EXPECT_TRUE(exclusive.Waits()) << "an exclusive lock was taken beside shared ones";
    { FileLock gone = std::move(*first); }
    { FileLock gone = std::move(*second); }
    EXPECT_TRUE(exclusive.taken.get());
  }
  absl::StatusOr<FileLock> held = FileLock::Take(path);
  ASSERT_TRUE(held.ok()) << held.status();
  TakeOnThread shared(path, /*shared=*/true);
  EXPECT_TRUE(shared.Waits()) << "a shared lock was taken beside an exclusive one";
  { FileLock gone = std::move(*held); }
  EXPECT_TRUE(shared.taken.get());
}

TEST(FilesTest, AFileLockKeptAcrossExecIsHeldByTheProgramExeced) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/exec.lock";
  absl::StatusOr<FileLock> held = FileLock::TakeShared(path);
  ASSERT_TRUE(held.ok()) << held.status();
  held->KeepAcrossExec();
  int input[2], output[2];
  ASSERT_EQ(pipe(input), 0);
  ASSERT_EQ(pipe(output), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // a program that says it runs, then lives until its input closes
    dup2(input[0], 0);
    dup2(output[1], 1);
    for (int fd : {input[0], input[1], output[0], output[1]}) close(fd);
    execl("/bin/sh", "sh", "-c", "echo running; read line", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(input[0]);
  close(output[1]);
  char said = 0;
  ASSERT_EQ(read(output[0], &said, 1), 1);  // past exec: what it closes is closed
  close(output[0]);
  { FileLock gone = std::move(*held); }  // this process's descriptor closes
  {
    TakeOnThread exclusive(path, /*shared=*/false);
    EXPECT_TRUE(exclusive.Waits()) << "the program execed did not hold the lock";
    close(input[1]);
    EXPECT_TRUE(exclusive.taken.get());
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
}

TEST(FilesTest, ALockFileAnotherUserMadeIsLockedReadOnly) {
  // A root made with sudo and used as oneself: the lock file is another
  // user's, read-only to this one. As root (whom modes do not stop), the
  // child becomes nobody; so the test runs unsandboxed (BUILD.bazel).
  char directory[] = "/tmp/files_test_lock_XXXXXX";
  ASSERT_NE(mkdtemp(directory), nullptr);
  const std::string path = std::string(directory) + "/root.lock";
  { ASSERT_TRUE(FileLock::Take(path).ok()); }
  ASSERT_EQ(chmod(path.c_str(), 0444), 0);
  ASSERT_EQ(chmod(directory, 0555), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (geteuid() == 0 && setuid(65534) != 0) _exit(2);  // nobody
    if (access(path.c_str(), W_OK) == 0) _exit(3);       // not another user's file
    const bool shared = FileLock::TakeShared(path).ok();
    const bool exclusive = FileLock::Take(path).ok();
    _exit(shared && exclusive ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_NE(WEXITSTATUS(status), 2) << "cannot become another user (setuid) here";
  EXPECT_NE(WEXITSTATUS(status), 3) << "the lock file is writable by the other user";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the lock file was not locked read-only";
  chmod(directory, 0755);
  unlink(path.c_str());
  rmdir(directory);
}

}  // namespace icount::base
