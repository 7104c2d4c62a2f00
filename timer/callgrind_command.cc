#include "timer/callgrind_command.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "base/files.h"
#include "base/subprocess.h"
#include "timer/cache_model.h"

namespace icount::timer {

absl::StatusOr<std::string> FindValgrindIn(absl::string_view search_path) {
  for (absl::string_view directory : absl::StrSplit(search_path, ':')) {
    const std::string candidate = absl::StrCat(directory.empty() ? "." : directory, "/valgrind");
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "valgrind is not installed (not found in ", search_path,
      "), so instruction counts cannot be collected (wall time still works): install Debian's "
      "`valgrind` package (./bazelw does)"));
}

absl::StatusOr<std::string> FindValgrind() {
  const char* path = std::getenv("PATH");
  return FindValgrindIn(path == nullptr ? "/usr/bin:/bin" : absl::StrCat(path, ":/usr/bin"));
}

std::vector<std::string> CallgrindToolOptions(bool cache_sim) {
  std::vector<std::string> options = {
      "--tool=callgrind",
      "--instr-atstart=no",
      "--collect-atstart=no",
      "--dump-line=yes",
      // Translations live in sectors that valgrind fills and then recycles
      // oldest first. A worker translates all of LibTorch's and Python's
      // start-up once (run once, never needed again), and a case only its
      // own code. With the default 32 sectors that start-up kept ~5 of
      // them mapped in every forked process, whose page tables each fork
      // copies and each exit tears down; with 2, a case's processes cost
      // ~10% less (bench/case_phases.py), start-up does not slow down,
      // and counts are the same (translations do not change what runs).
      "--num-transtab-sectors=2",
      // No gdbserver: with it (valgrind's default) every process makes
      // FIFOs in TMPDIR that only a clean exit removes, so each worker
      // killed by a deadline or a signal left three behind in /tmp.
      "--vgdb=no",
  };
  if (cache_sim) {
    for (std::string& option : CacheSimulationOptions()) options.push_back(std::move(option));
  }
  return options;
}

absl::StatusOr<std::string> ValgrindVersion() {
  absl::StatusOr<std::string> valgrind = FindValgrind();
  if (!valgrind.ok()) return valgrind.status();
  absl::StatusOr<base::CommandResult> ran = base::RunCommand({*valgrind, "--version"});
  if (!ran.ok()) return ran.status();
  const std::string version(absl::StripAsciiWhitespace(ran->output));
  if (ran->exit_code != 0 || version.empty()) {
    return absl::InternalError(absl::StrCat(*valgrind, " --version failed: ", ran->output));
  }
  return version;
}

const absl::StatusOr<std::string>& ValgrindVersionOnce() {
  static const absl::StatusOr<std::string>* const version =
      new absl::StatusOr<std::string>(ValgrindVersion());
  return *version;
}

absl::StatusOr<std::vector<std::string>> CallgrindCommand(const std::vector<std::string>& command,
                                                          const std::string& out_directory,
                                                          bool cache_sim) {
  absl::StatusOr<std::string> valgrind = FindValgrind();
  if (!valgrind.ok()) return valgrind.status();
  std::vector<std::string> argv = {*valgrind};
  for (std::string& option : CallgrindToolOptions(cache_sim)) argv.push_back(std::move(option));
  // %p: a process that forks gets one set of dumps per pid.
  argv.push_back(
      absl::StrCat("--callgrind-out-file=", out_directory, "/", kCallgrindOutFilePrefix, "%p"));
  argv.push_back(absl::StrCat("--log-file=", ValgrindLogPath(out_directory)));
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

std::vector<std::string> MeasurementEnvironment(int num_threads) {
  std::vector<std::string> env = {
      "PATH=/usr/local/bin:/usr/bin:/bin",
      "PYTHONHASHSEED=0",
      "LC_ALL=C",
      absl::StrCat("OMP_NUM_THREADS=", num_threads),
      absl::StrCat("ICOUNT_CACHE_DIR=", base::CacheDirectory()),
  };
  // TMPDIR always, "/tmp" (the default) when unset: a Slurm task sets it,
  // a shell seldom does, and Python's counts follow the environment's
  // strings (PadEnvironmentForStackLayout).
  const char* tmpdir = std::getenv("TMPDIR");
  env.push_back(absl::StrCat("TMPDIR=", tmpdir != nullptr && *tmpdir ? tmpdir : "/tmp"));
  for (const char* name :
       {"HOME", "LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH", "ICOUNT_CXX", "ICOUNT_PHASE_LOG"}) {
    if (const char* value = std::getenv(name); value != nullptr) {
      env.push_back(absl::StrCat(name, "=", value));
    }
  }
  return env;
}

void PadEnvironmentForStackLayout(const std::vector<std::string>& client_argv,
                                  std::vector<std::string>& env) {
  constexpr size_t kPage = 4096;
  constexpr size_t kPointer = sizeof(char*);
  const std::string pad = absl::StrCat(kStackPadEnv, "=");
  // Strings with their NULs; argv[0] twice (the client's argv[0] and
  // AT_EXECFN); a pointer per argv and env entry plus their NULL ends; then
  // the pad entry itself: its name, NUL and pointer.
  size_t bytes = 0;
  for (const std::string& arg : client_argv) bytes += arg.size() + 1 + kPointer;
  if (!client_argv.empty()) bytes += client_argv[0].size() + 1;
  for (const std::string& entry : env) bytes += entry.size() + 1 + kPointer;
  bytes += 2 * kPointer + pad.size() + 1 + kPointer;
  env.push_back(absl::StrCat(pad, std::string((kPage - bytes % kPage) % kPage, 'x')));
}

std::string ValgrindLogPath(const std::string& out_directory) {
  return absl::StrCat(out_directory, "/valgrind.log");
}

std::string CallgrindOutDirectoryEnv(const std::string& out_directory) {
  return absl::StrCat(kCallgrindOutDirEnv, "=", out_directory);
}

std::string CallgrindOutDirectory() {
  const char* dir = std::getenv(kCallgrindOutDirEnv);
  if (dir != nullptr && *dir != '\0') return dir;
  char cwd[4096];
  return getcwd(cwd, sizeof(cwd)) != nullptr ? std::string(cwd) : ".";
}

bool FormatCallgrindDumpPath(char* path, size_t size, const char* directory, const char* tag,
                             int repeat) {
  const int n =
      std::snprintf(path, size, "%s/%s%s.%d", directory, kCallgrindOutFilePrefix, tag, repeat);
  return n > 0 && static_cast<size_t>(n) < size;
}

std::string CallgrindDumpPath(const std::string& directory, const std::string& tag, int repeat) {
  std::string path(directory.size() + tag.size() + 64, '\0');
  FormatCallgrindDumpPath(path.data(), path.size(), directory.c_str(), tag.c_str(), repeat);
  path.resize(std::strlen(path.c_str()));
  return path;
}

bool FormatCallgrindProcessFile(char* path, size_t size, const char* directory, int pid, int dump) {
  const int n =
      dump > 0
          ? std::snprintf(path, size, "%s/%s%d.%d", directory, kCallgrindOutFilePrefix, pid, dump)
          : std::snprintf(path, size, "%s/%s%d", directory, kCallgrindOutFilePrefix, pid);
  return n > 0 && static_cast<size_t>(n) < size;
}

void RemoveCallgrindFinalProfile(int pid) {
  const char* directory = std::getenv(kCallgrindOutDirEnv);
  if (directory == nullptr || *directory == '\0') directory = ".";
  char path[4096];
  if (FormatCallgrindProcessFile(path, sizeof(path), directory, pid, /*dump=*/0)) unlink(path);
}

}  // namespace icount::timer
