// //tools:timeit: time a snippet from the shell, like `python -m timeit`.
//
//   bazel run //tools:timeit -- --language=python --setup='x = torch.ones(4, 4)'
//       --stmt='torch.add(x, x)' --callgrind
//   bazel run //tools:timeit -- --language=cpp --setup='auto x = torch::ones({4, 4});'
//       --stmt='auto y = torch::add(x, x);' --adaptive=0.05 --json=out.json
//
// Wall time with --autorange (default), --adaptive[=threshold] or
// --number=N; instruction counts with --callgrind. --json writes the results
// file //tools:compare reads. The statement runs in a child process: one
// that crashes, calls exit() or hangs (--timeout) is reported as such, with
// exit code 1, instead of taking timeit down with it.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/files.h"
#include "base/flags.h"
#include "base/machine.h"
#include "base/status.h"
#include "base/subprocess.h"
#include "cli/tool_flags.h"
#include "environment/pytorch_install.h"
#include "timer/callgrind_stats.h"
#include "timer/function_counts.h"
#include "timer/measurement_io.h"
#include "timer/node.h"
#include "timer/timer.h"
#include "tools/environment_suite.h"
#include "tools/function_rows.h"
#include "tools/suite.h"

ABSL_FLAG(std::string, stmt, "", "The statement to time (required).");
ABSL_FLAG(std::string, setup, "", "Code run once before timing.");
ABSL_FLAG(std::string, global_setup, "",
          "C++ only: code placed at namespace scope, e.g. #includes.");
ABSL_FLAG(std::string, language, "", "Language of --stmt: cpp or python (required).");
ABSL_FLAG(std::optional<int64_t>, number, std::nullopt,
          "Times exactly N runs (Timer.timeit) instead of autoranging.");
ABSL_FLAG(bool, autorange, false,
          "Uses blocked_autorange, the default when neither --number nor --adaptive is given.");
ABSL_FLAG(std::string, adaptive, "",
          "Uses adaptive_autorange, which stops once IQR/median falls below this threshold.");
ABSL_FLAG(double, min_run_time, 0.2, "Seconds of wall time for --autorange (the default mode).");
ABSL_FLAG(bool, callgrind, false, "Also counts instructions with valgrind's callgrind.");
ABSL_FLAG(int64_t, callgrind_number, 100, "Runs of the statement per callgrind repeat.");
ABSL_FLAG(int, repeats, 1, "Callgrind repeats.");
ABSL_FLAG(int, num_threads, 1, "LibTorch threads during the measurement.");
ABSL_FLAG(int, top, 15, "Number of functions shown with --callgrind.");
ABSL_FLAG(bool, cache_sim, false,
          "With --callgrind: also estimates cycles per run from a simulated cache of fixed "
          "geometry (32 KiB L1s, 8 MiB last level).");
ABSL_FLAG(std::string, json, "",
          "Writes the results file (JSON) here; refuses to overwrite a file that is not an "
          "icount results file.");
ABSL_FLAG(std::string, env, "",
          "Shell command that sets up the environment whose `import torch` is measured (first "
          "use builds timeit for it); default: Debian's LibTorch.");
ABSL_FLAG(std::string, libtorch, "",
          "LibTorch directory (include/, lib/, share/cmake/Torch) to measure against; C++ "
          "statements only.");
ABSL_FLAG(std::string, root, "", icount::tools::kRootHelp);
ABSL_FLAG(double, timeout, 600,
          "Seconds before a statement that does not finish is stopped and reported; 0: none.");

namespace icount::tools {
namespace {

// The timeit that finds a side's PyTorch (--env, --libtorch, --root) runs
// the timeit built for it, there, and tells it in this variable what its
// results file records of the side: the command line the user gave and the
// side's LibTorch settings (LibTorchSettings). A line "command<TAB>VALUE",
// then "KEY<TAB>VALUE" per setting, each VALUE C-escaped.
constexpr char kSideVariable[] = "ICOUNT_TIMEIT_SIDE";

// What a results file records of the side measured.
struct MeasuredSide {
  std::string command;
  std::map<std::string, std::string> settings;
};

std::string EncodeSide(const MeasuredSide& side) {
  std::string text = absl::StrCat("command\t", absl::CEscape(side.command));
  for (const auto& [key, value] : side.settings) {
    absl::StrAppend(&text, "\n", key, "\t", absl::CEscape(value));
  }
  return text;
}

// The side kSideVariable describes, which it unsets (the statement's
// processes need not see it); without it, this timeit's own command and
// Debian's LibTorch, which it is built against.
absl::StatusOr<MeasuredSide> TakeMeasuredSide() {
  const char* encoded = std::getenv(kSideVariable);
  if (encoded == nullptr) {
    return MeasuredSide{cli::ToolCommandLine(), LibTorchSettings(environment::SystemInstall(), "")};
  }
  MeasuredSide side;
  for (absl::string_view line : absl::StrSplit(encoded, '\n')) {
    std::pair<std::string, std::string> field = absl::StrSplit(line, absl::MaxSplits('\t', 1));
    std::string value;
    if (!absl::CUnescape(field.second, &value)) {
      return absl::InternalError(absl::StrCat(kSideVariable, " has a malformed line: ", line));
    }
    if (field.first == "command") {
      side.command = std::move(value);
    } else {
      side.settings[field.first] = std::move(value);
    }
  }
  unsetenv(kSideVariable);
  return side;
}

int Usage(absl::string_view message) {
  std::fprintf(stderr, "timeit: %.*s\nRun with --help for usage.\n",
               static_cast<int>(message.size()), message.data());
  return 1;
}

// "\n\n3 repeats: 588064, 588064, 588064 instructions (identical)": each
// repeat's count and whether they differ, which is what asking for repeats
// asks. Empty for one repeat.
std::string RepeatsLine(const std::vector<timer::CallgrindStats>& stats) {
  if (stats.size() < 2) return "";
  std::vector<int64_t> counts;
  for (const timer::CallgrindStats& repeat : stats) counts.push_back(repeat.Counts());
  const auto [low, high] = std::minmax_element(counts.begin(), counts.end());
  return absl::StrFormat(
      "\n\n%d repeats: %s instructions (%s)", counts.size(), absl::StrJoin(counts, ", "),
      *low == *high
          ? "identical"
          : absl::StrFormat("differ by up to %d, %.4f%%", *high - *low,
                            100.0 * static_cast<double>(*high - *low) / static_cast<double>(*low)));
}

// The `shown` functions that count most, the rest summed on a line of its
// own, and the total of every function (not only the rows shown), which is
// the region's count with noise removed.
std::string TopFunctions(const timer::FunctionCounts& exclusive, int shown) {
  return absl::StrCat(LargestFunctionRows(exclusive, static_cast<size_t>(shown), RestSum::kPlain),
                      "\n\nTotal: ", exclusive.Sum());
}

// Builds the Timer, measures, prints and writes the results; the body of
// the child process timeit runs the statement in. Returns the exit code.
int Measure(const std::string& language, bool number, bool adaptive, double threshold,
            const MeasuredSide& side) {
  timer::TimerOptions options;
  options.num_threads = absl::GetFlag(FLAGS_num_threads);
  absl::StatusOr<timer::Timer> timer =
      language == "cpp"
          ? timer::Timer::ForCpp(absl::GetFlag(FLAGS_stmt), absl::GetFlag(FLAGS_setup),
                                 absl::GetFlag(FLAGS_global_setup), options)
          : timer::Timer::ForPython(
                absl::GetFlag(FLAGS_stmt),
                absl::GetFlag(FLAGS_setup).empty() ? "pass" : absl::GetFlag(FLAGS_setup), options);
  if (!timer.ok()) {
    return base::Fail(timer.status());
  }
  timer::ResultsFile results;
  results.command = side.command;
  results.settings = side.settings;
  results.settings[kWallTimeDisturbancesSetting] = WallTimeDisturbancesSetting();
  if (absl::GetFlag(FLAGS_callgrind)) {
    AddCallgrindSettings(absl::GetFlag(FLAGS_cache_sim), results.settings);
  }
  results.start_time = NowRfc3339();
  results.machine_node = timer::ThisMachine();
  results.machine = timer::DescribeMachine(results.machine_node);
  absl::StatusOr<timer::Measurement> measurement =
      number     ? timer->Timeit(*absl::GetFlag(FLAGS_number))
      : adaptive ? timer->AdaptiveAutorange(threshold)
                 : timer->BlockedAutorange(absl::GetFlag(FLAGS_min_run_time));
  if (!measurement.ok()) {
    return base::Fail(measurement.status());
  }
  std::printf("%s\n", measurement->Summary().c_str());
  results.measurements.push_back(*measurement);
  if (absl::GetFlag(FLAGS_callgrind)) {
    timer::CallgrindOptions callgrind;
    callgrind.number = absl::GetFlag(FLAGS_callgrind_number);
    callgrind.repeats = absl::GetFlag(FLAGS_repeats);
    callgrind.cache_sim = absl::GetFlag(FLAGS_cache_sim);
    absl::StatusOr<std::vector<timer::CallgrindStats>> stats = timer->CollectCallgrind(callgrind);
    if (!stats.ok()) {
      return base::Fail(stats.status());
    }
    const timer::CallgrindStats& first = stats->front();
    std::printf("\n%s%s\n\nTop functions (exclusive, noise removed, all %lld runs%s):\n%s\n",
                first.Summary().c_str(), RepeatsLine(*stats).c_str(),
                static_cast<long long>(first.number_per_run()),
                stats->size() > 1 ? " of the first repeat" : "",
                TopFunctions(first.Stats().Denoise(), absl::GetFlag(FLAGS_top)).c_str());
    results.instruction_counts.push_back(timer::SummarizeInstructionCounts(*stats));
  }
  results.end_time = NowRfc3339();
  if (!absl::GetFlag(FLAGS_json).empty()) {
    if (absl::Status status = timer::WriteResultsFile(absl::GetFlag(FLAGS_json), results);
        !status.ok()) {
      return base::Fail(status);
    }
  }
  return 0;
}

// LibTorch starts a thread per count when the count is set (its intra-op
// pool), each with LibTorch's large thread-local storage to clear: tens of
// thousands take minutes before the first run, and far more threads than
// CPUs measure threads waiting for one. So timeit takes up to 4 threads a
// CPU, and at least 256 on any machine.
absl::Status CheckNumThreads(int num_threads) {
  ICOUNT_RETURN_IF_ERROR(base::CheckFlagAtLeast("num_threads", num_threads, 1));
  const int cpus = base::OnlineCpus();
  const int most = std::max(256, 4 * cpus);
  if (num_threads <= most) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "--num_threads=", num_threads, ": must be at most ", most,
      ", the larger of 256 and 4 threads per CPU (this machine has ", cpus,
      "): LibTorch starts a thread for each before the first run, which takes minutes at "
      "this size"));
}

// The numbers in range, before the statement runs.
absl::Status CheckNumberFlags() {
  if (std::optional<int64_t> number = absl::GetFlag(FLAGS_number); number.has_value()) {
    ICOUNT_RETURN_IF_ERROR(base::CheckFlagAtLeast("number", *number, 1));
  }
  ICOUNT_RETURN_IF_ERROR(
      base::CheckFlagPositive("min_run_time", absl::GetFlag(FLAGS_min_run_time)));
  ICOUNT_RETURN_IF_ERROR(CheckNumThreads(absl::GetFlag(FLAGS_num_threads)));
  ICOUNT_RETURN_IF_ERROR(base::CheckFlagAtLeast("timeout", absl::GetFlag(FLAGS_timeout), 0));
  if (!absl::GetFlag(FLAGS_callgrind)) return absl::OkStatus();
  ICOUNT_RETURN_IF_ERROR(
      base::CheckFlagAtLeast("callgrind_number", absl::GetFlag(FLAGS_callgrind_number), 1));
  ICOUNT_RETURN_IF_ERROR(base::CheckFlagAtLeast("repeats", absl::GetFlag(FLAGS_repeats), 1));
  return base::CheckFlagAtLeast("top", absl::GetFlag(FLAGS_top), 0);
}

// timeit measures in its own process, so for --env, --libtorch or --root
// it runs itself again: the timeit built against that PyTorch, started in
// the environment (inside the root), with the other flags as given.
int RunInEnvironment(const std::vector<char*>& args) {
  const std::string env = absl::GetFlag(FLAGS_env);
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (length <= 0) return base::Fail("timeit: cannot read /proc/self/exe");
  environment::EnvironmentSpec spec =
      EnvironmentFlagsSpec(env, absl::GetFlag(FLAGS_libtorch), absl::GetFlag(FLAGS_root));
  // In a root, timeit writes --json where the user asked and reads from
  // where they stand.
  char cwd[4096];
  if (getcwd(cwd, sizeof(cwd)) != nullptr) spec.root_binds.push_back(cwd);
  if (const std::string json = absl::GetFlag(FLAGS_json); !json.empty()) {
    const std::string directory = json.find('/') == std::string::npos
                                      ? std::string(".")
                                      : json.substr(0, json.rfind('/'));
    if (absl::StatusOr<std::string> real = base::RealPath(directory.empty() ? "/" : directory);
        real.ok()) {
      spec.root_binds.push_back(*real);
    }
  }
  absl::StatusOr<EnvironmentTool> binary =
      ToolForEnvironment(spec, std::string(self, static_cast<size_t>(length)), "tools", "timeit",
                         "timeit", absl::GetFlag(FLAGS_language) == "python");
  if (!binary.ok()) return base::Fail(binary.status());
  std::vector<std::string> argv = environment::EnvironmentPrefix(env, binary->launcher);
  argv.push_back(binary->path);
  for (size_t i = 1; i < args.size(); ++i) {
    const absl::string_view arg = args[i];
    if (arg == "--env" || arg == "--libtorch" || arg == "--root") {
      ++i;  // and its value
    } else if (!absl::StartsWith(arg, "--env=") && !absl::StartsWith(arg, "--libtorch=") &&
               !absl::StartsWith(arg, "--root=")) {
      argv.emplace_back(arg);
    }
  }
  // The other timeit finds its own runfiles (the callgrind runner built
  // with it) next to itself, not this one's.
  for (const char* name : {"RUNFILES_DIR", "RUNFILES_MANIFEST_FILE", "TEST_SRCDIR"}) {
    unsetenv(name);
  }
  // The timeit built in a root uses it until it exits.
  if (binary->root_in_use != nullptr) binary->root_in_use->KeepAcrossExec();
  setenv(kSideVariable, EncodeSide({cli::ToolCommandLine(), binary->settings}).c_str(), 1);
  std::vector<char*> exec_argv;
  for (std::string& arg : argv) exec_argv.push_back(arg.data());
  exec_argv.push_back(nullptr);
  execv(exec_argv[0], exec_argv.data());
  return base::Fail(absl::StrCat("cannot run ", argv[0], ": ", std::strerror(errno)));
}

// --json writable and, when it exists, a results file (before anything runs).
absl::Status CheckJsonFlag() {
  const std::string json = absl::GetFlag(FLAGS_json);
  if (json.empty()) return absl::OkStatus();
  ICOUNT_RETURN_IF_ERROR(base::CheckOutputPath("json", json));
  ICOUNT_RETURN_IF_ERROR(timer::CheckResultsDestination(json), base::WithContext(_, "--json"));
  return absl::OkStatus();
}

// Says how the child measuring the statement ended when Measure did not
// return: stopped at --timeout, crashed, or exited. Returns the exit code.
int FailUnfinished(const base::ChildOutcome& outcome) {
  const std::string what =
      outcome.timed_out ? absl::StrCat("did not finish within ", absl::GetFlag(FLAGS_timeout),
                                       " s (--timeout) and was stopped")
      : outcome.exit.signal != 0
          ? absl::StrCat("crashed (", base::DescribeExit(outcome.exit), ")")
          : absl::StrCat("ended the process (", base::DescribeExit(outcome.exit),
                         ") before timing finished");
  return base::Fail(absl::StrCat("the statement or its setup ", what,
                                 "\n  stmt: ", absl::GetFlag(FLAGS_stmt),
                                 absl::GetFlag(FLAGS_setup).empty()
                                     ? ""
                                     : absl::StrCat("\n  setup: ", absl::GetFlag(FLAGS_setup))));
}

int Main(int argc, char** argv) {
  // `--adaptive` alone means the reference's default threshold.
  std::vector<char*> args(argv, argv + argc);
  std::string adaptive_default = "--adaptive=0.1";
  for (char*& arg : args) {
    if (std::strcmp(arg, "--adaptive") == 0) arg = adaptive_default.data();
  }
  const std::vector<char*> positional =
      cli::ParseToolFlags(static_cast<int>(args.size()), args.data(),
                          "Times a C++ or Python snippet against LibTorch.\n\n"
                          "Usage: bazel run //tools:timeit -- --language=cpp|python --stmt=STMT "
                          "[--setup=S] [--number=N | --autorange | --adaptive[=T]] [--callgrind]");
  if (!absl::GetFlag(FLAGS_env).empty() || !absl::GetFlag(FLAGS_libtorch).empty() ||
      !absl::GetFlag(FLAGS_root).empty()) {
    return RunInEnvironment(args);
  }
  const std::string language = absl::GetFlag(FLAGS_language);
  if (language != "cpp" && language != "python") {
    return Usage(absl::StrCat("--language must be cpp or python, got \"", language, "\""));
  }
  if (absl::GetFlag(FLAGS_stmt).empty()) return Usage("--stmt is required");
  if (absl::Status s = base::CheckNoPositionalArguments(positional); !s.ok())
    return Usage(s.message());
  if (absl::Status s = CheckNumberFlags(); !s.ok()) return Usage(s.message());
  const bool number = absl::GetFlag(FLAGS_number).has_value();
  const bool adaptive = !absl::GetFlag(FLAGS_adaptive).empty();
  if (number + adaptive + absl::GetFlag(FLAGS_autorange) > 1) {
    return Usage("choose one of --number, --autorange and --adaptive");
  }
  double threshold = 0;
  if (adaptive &&
      (!absl::SimpleAtod(absl::GetFlag(FLAGS_adaptive), &threshold) || threshold <= 0)) {
    return Usage(absl::StrCat("--adaptive wants a positive threshold, got \"",
                              absl::GetFlag(FLAGS_adaptive), "\""));
  }
  if (language == "python" && !absl::GetFlag(FLAGS_global_setup).empty()) {
    return Usage("--global_setup is C++ only; put Python imports in --setup");
  }
  if (absl::Status unused = base::RefuseUnusedFlags(
          {"min_run_time"}, number || adaptive,
          "is the wall time of --autorange, which --number and --adaptive replace: drop one");
      !unused.ok()) {
    return Usage(unused.message());
  }
  if (absl::Status unused = base::RefuseUnusedFlags(
          {"callgrind_number", "repeats", "top", "cache_sim"}, !absl::GetFlag(FLAGS_callgrind),
          "applies to the instruction counts of --callgrind: add --callgrind, or drop it");
      !unused.ok()) {
    return Usage(unused.message());
  }
  if (absl::Status s = CheckJsonFlag(); !s.ok()) return base::Fail(s);
  absl::StatusOr<MeasuredSide> side = TakeMeasuredSide();
  if (!side.ok()) return base::Fail(side.status());
  absl::StatusOr<base::ChildOutcome> outcome =
      base::RunInChild([&] { return Measure(language, number, adaptive, threshold, *side); },
                       absl::GetFlag(FLAGS_timeout));
  if (!outcome.ok()) return base::Fail(outcome.status());
  if (outcome->returned) return outcome->exit.exit_code;
  return FailUnfinished(*outcome);
}

}  // namespace
}  // namespace icount::tools

int main(int argc, char** argv) { return icount::tools::Main(argc, argv); }
