#include "cli/tool_flags.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/internal/program_name.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/files.h"
#include "base/flags.h"
#include "compare/version.h"
#include "expand/version.h"
#include "fuzzer/version.h"
#include "history/version.h"
#include "report/version.h"
#include "slurm/version.h"
#include "timer/version.h"
#include "worker/version.h"

namespace icount::cli {

// The tools' flags that name files and directories (ResolvePathFlags).
constexpr const char* kPathFlags[] = {
    "output", "destination", "baseline",  "markdown", "json",       "html",
    "history", "db",         "input",     "sides",    "libtorch",   "A_libtorch",
    "B_libtorch", "A_worker", "B_worker", "shared_dir", "root",     "A_root",
    "B_root"};

base::VersionList AllLibraryVersions() {
  return {{"timer", timer::kTimerVersion},    {"compare", compare::kCompareVersion},
          {"fuzzer", fuzzer::kFuzzerVersion}, {"expand", expand::kExpandVersion},
          {"worker", worker::kWorkerVersion}, {"history", history::kHistoryVersion},
          {"report", report::kReportVersion}, {"slurm", slurm::kSlurmVersion}};
}

std::string LibraryVersions() { return base::DescribeVersions(AllLibraryVersions()); }

std::map<std::string, std::string> LibraryVersionMap() {
  const base::VersionList versions = AllLibraryVersions();
  return {versions.begin(), versions.end()};
}

void ResolvePathFlags() {
  for (const char* name : kPathFlags) {
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr || !flag->IsOfType<std::string>()) continue;
    const std::string value = flag->CurrentValue();
    // A root is a Debian suite's name or a directory.
    const bool root = absl::EndsWith(name, "root");
    if (value.empty() || (root && !absl::StrContains(value, "/"))) continue;
    std::string error;
    if (!flag->ParseFrom(base::UserPath(value), &error)) {
      base::Fail(absl::StrCat("--", name, "=", value, ": ", error));
      std::exit(1);
    }
  }
}

namespace {

// The variables that name icount's cache, made absolute from where the user
// stands: the tool's workers start in directories of their own, and a
// relative cache would be another directory for each.
void ResolvePathVariables() {
  for (const char* name : {"ICOUNT_CACHE_DIR", "XDG_CACHE_HOME"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0' || *value == '/') continue;
    setenv(name, base::UserPath(value).c_str(), 1);
  }
}

// A write to a closed pipe (a worker that died, `tool | head`) fails with
// EPIPE, which the writer reports, instead of killing the tool and leaving
// its workers running. A handler rather than SIG_IGN, which programs the
// tool starts would inherit.
void OnBrokenPipe(int) {}

// At exit: what the tool printed reached standard output (not a full disk
// or a closed descriptor), or the tool fails saying so. A reader that left
// (`tool | head -1`) ends it quietly, with the status a shell gives a
// program killed by SIGPIPE.
void CheckStandardOutput() {
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return;
  const int error = errno;
  if (error == EPIPE) _exit(128 + SIGPIPE);
  // errno is the failed flush's; after an earlier failed write that the
  // flush did not repeat it may say nothing.
  std::fprintf(stderr, "%s: cannot write to standard output: %s\n",
               absl::flags_internal::ShortProgramInvocationName().c_str(),
               error == 0 ? "an earlier write failed" : std::strerror(error));
  _exit(1);
}

}  // namespace

std::vector<char*> ParseToolFlags(int argc, char** argv, const char* usage,
                                  std::vector<std::string> checking_icount) {
  struct sigaction broken_pipe = {};
  broken_pipe.sa_handler = OnBrokenPipe;
  sigaction(SIGPIPE, &broken_pipe, nullptr);
  std::atexit(CheckStandardOutput);
  base::HelpLayout layout;
  layout.checking_icount = std::move(checking_icount);
  std::vector<char*> positional =
      base::ParseFlags(argc, argv, usage, AllLibraryVersions(), layout);
  ResolvePathFlags();
  ResolvePathVariables();
  // And the shell commands a tool runs (a side's --A, --env) start where
  // the user stands too: `--A="source venv/bin/activate"` means the venv
  // beside them. Runfiles are found by the binary's own path, not the
  // working directory.
  if (const char* invoked_from = std::getenv("BUILD_WORKING_DIRECTORY");
      invoked_from != nullptr && *invoked_from != '\0' && chdir(invoked_from) != 0) {
    std::fprintf(stderr, "%s: cannot enter %s, where `bazel run` was started: %s\n",
                 positional.empty() ? "icount" : positional[0], invoked_from, std::strerror(errno));
  }
  return positional;
}

std::string ToolCommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (absl::string_view arg : absl::StrSplit(raw, '\0', absl::SkipEmpty())) {
    args.push_back(arg.find_first_of(" \t'\"") == absl::string_view::npos
                       ? std::string(arg)
                       : absl::StrCat("'", arg, "'"));
  }
  return absl::StrJoin(args, " ");
}

}  // namespace icount::cli
