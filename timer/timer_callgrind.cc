// Timer::CollectCallgrind: instruction counts with valgrind's callgrind.
#include <unistd.h>
#include <valgrind/valgrind.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/files.h"
#include "base/fnv.h"
#include "base/phase_log.h"
#include "base/program_place.h"
#include "base/runfiles.h"
#include "base/subprocess.h"
#include "timer/callgrind.pb.h"
#include "timer/callgrind_command.h"
#include "timer/callgrind_stats.h"
#include "timer/internal/call_tree_builder.h"
#include "timer/internal/callgrind_collect.h"
#include "timer/internal/callgrind_parser.h"
#include "timer/internal/cpp_snippet.h"
#include "timer/measurement_io.h"
#include "timer/timer.h"
#include "timer/valgrind_log.h"

namespace icount::timer {
namespace {

// Set in a re-executed binary: "<call index>:<spec fingerprint>:<directory>".
constexpr char kReplayEnv[] = "ICOUNT_CALLGRIND_REPLAY";

// The variables a re-executed binary keeps besides MeasurementEnvironment's:
// those that choose which of a test binary's tests run (gtest's and
// Bazel's), so that a filtered test binary replays the same tests up to the
// call. Not the files a test run writes at its end (XML_OUTPUT_FILE,
// TEST_PREMATURE_EXIT_FILE): the replay ends in the measured call.
constexpr const char* kReplayedTestSelection[] = {
    "GTEST_FILTER",      "TESTBRIDGE_TEST_ONLY",
    "GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS",
    "TEST_SHARD_INDEX",  "TEST_TOTAL_SHARDS",
    "GTEST_SHUFFLE",     "GTEST_RANDOM_SEED",
    "GTEST_REPEAT",      "GTEST_ALSO_RUN_DISABLED_TESTS",
};

// CollectCallgrind calls on C++-callable Timers so far in this process; a
// re-executed binary counts the same calls to find the one to measure.
std::atomic<int64_t> callable_collections{0};

struct ReplayTarget {
  int64_t index = 0;
  std::string fingerprint;  // SpecFingerprint of the call to measure
  std::string directory;
};

// What tells one call's statement from another's, for a re-executed binary
// to check that its call at the replayed index is the parent's.
std::string SpecFingerprint(const TaskSpec& spec) {
  base::Fnv1a64 hash;
  hash.Add(spec.stmt);
  hash.Add(spec.setup);
  for (const std::optional<std::string>* name : {&spec.label, &spec.sub_label, &spec.description}) {
    hash.Add(name->has_value() ? absl::StrCat("=", **name) : "none");
  }
  hash.Add(absl::StrCat(spec.num_threads, " ", static_cast<int>(spec.language)));
  return hash.Hex();
}

std::optional<ReplayTarget> ReplayTargetFromEnv() {
  const char* value = std::getenv(kReplayEnv);
  if (value == nullptr) return std::nullopt;
  std::vector<std::string> parts = absl::StrSplit(value, absl::MaxSplits(':', 2));
  ReplayTarget target;
  if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &target.index)) return std::nullopt;
  target.fingerprint = parts[1];
  target.directory = parts[2];
  return target;
}

// Under valgrind: whether it runs as CallgrindCommand starts a process,
// which the collection's client requests assume (instrumentation and
// collection off at start, dumps in $ICOUNT_CALLGRIND_OUT_DIR). Under
// another tool, or callgrind's defaults, they would count nothing or the
// wrong region.
absl::Status CheckStartedByCallgrindCommand() {
  if (const char* directory = std::getenv(kCallgrindOutDirEnv);
      directory != nullptr && *directory != '\0') {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "this process runs under valgrind, but not as icount starts one (", kCallgrindOutDirEnv,
      " is not set): run the program outside valgrind, and CollectCallgrind starts valgrind's "
      "callgrind for the measurement itself; a program that starts its own must use "
      "CallgrindCommand and CallgrindOutDirectoryEnv (timer/callgrind_command.h)"));
}

absl::Status CheckCallgrindOptions(const CallgrindOptions& options) {
  if (options.number < 1 || options.repeats < 1) {
    return absl::InvalidArgumentError(absl::StrCat("CollectCallgrind: number (", options.number,
                                                   ") and repeats (", options.repeats,
                                                   ") must be >= 1"));
  }
  if (options.measure_in_this_process && options.collect_baseline &&
      !options.baseline_measured_by_caller) {
    return absl::InvalidArgumentError(
        "CollectCallgrind: measure_in_this_process needs the baseline measured elsewhere "
        "(collect_baseline = false or baseline_measured_by_caller = true): a baseline is "
        "measured from the clean state this process would no longer have");
  }
  if (!(options.timeout_seconds >= 0) || std::isinf(options.timeout_seconds)) {
    return absl::InvalidArgumentError(absl::StrCat("CollectCallgrind: timeout_seconds (",
                                                   options.timeout_seconds,
                                                   ") must be a finite number >= 0 (0: no limit)"));
  }
  if (options.dump_tag.size() > 40 ||
      !std::all_of(options.dump_tag.begin(), options.dump_tag.end(), [](char c) {
        return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
               c == '-';
      })) {
    return absl::InvalidArgumentError(absl::StrCat(
        "CollectCallgrind: dump_tag \"", options.dump_tag,
        "\" names files: use up to 40 letters, digits, '.', '_' or '-'"));
  }
  return absl::OkStatus();
}

// Under valgrind: measures in this process's template (or in this
// process, options.measure_in_this_process) and returns the dumps.
absl::StatusOr<CallgrindDumpFiles> CollectHere(timer::internal::Kernel& kernel,
                                               const TaskSpec& spec,
                                               const CallgrindOptions& options) {
  const base::PhaseMark start = base::PhaseNow();
  std::shared_ptr<timer::internal::Kernel> baseline;
  if (options.collect_baseline || options.baseline_measured_by_caller) {
    // A callable's own, compiled with it; else the language's.
    baseline = kernel.EmptyStatement();
    if (baseline == nullptr) {
      absl::StatusOr<std::shared_ptr<timer::internal::Kernel>> made =
          timer::internal::MakeBaselineKernel(spec.language);
      if (!made.ok()) return made.status();
      baseline = *std::move(made);
    }
  }
  base::RecordPhase("case", "prepare the baseline's statement", start);
  const bool measure_baseline = options.collect_baseline && !options.baseline_measured_by_caller;
  return timer::internal::CollectInThisProcess(
      kernel, measure_baseline ? baseline.get() : nullptr, options.number, options.repeats,
      spec.num_threads, options.measure_in_this_process, &options.on_measured, options.dump_tag,
      options.warm_up_after_fork);
}

absl::StatusOr<std::string> ReadLink(const char* path) {
  char buffer[4096];
  const ssize_t n = readlink(path, buffer, sizeof(buffer) - 1);
  if (n < 0) return absl::InternalError(absl::StrCat("readlink ", path, " failed"));
  return std::string(buffer, static_cast<size_t>(n));
}

// The runner binary shipped with //timer, from this binary's runfiles.
absl::StatusOr<std::string> FindCallgrindRunner() {
  if (const char* path = std::getenv("ICOUNT_CALLGRIND_RUNNER"); path != nullptr && *path) {
    return std::string(path);
  }
  absl::StatusOr<std::string> runner = base::FindRunfile("icount/timer/callgrind_runner");
  if (!runner.ok()) {
    return absl::NotFoundError(
        absl::StrCat(runner.status().message(),
                     " (depend on @icount//timer, which carries the runner as data, or set "
                     "ICOUNT_CALLGRIND_RUNNER to its path)"));
  }
  return runner;
}

absl::StatusOr<std::vector<std::string>> OwnCommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args = absl::StrSplit(contents, '\0');
  if (!args.empty() && args.back().empty()) args.pop_back();
  absl::StatusOr<std::string> self = ReadLink("/proc/self/exe");
  if (!self.ok() || args.empty()) return absl::InternalError("cannot read this process's command");
  args[0] = *self;
  return args;
}

std::string Tail(const std::string& text, size_t max_bytes) {
  return text.size() <= max_bytes ? text : "..." + text.substr(text.size() - max_bytes);
}

// Under valgrind: measures here and parses the dumps, or, in the binary
// re-executed for call `call_index`, hands the dumps to the parent and exits.
absl::StatusOr<std::vector<CallgrindStats>> CollectAndParseHere(timer::internal::Kernel& kernel,
                                                                const TaskSpec& spec,
                                                                const CallgrindOptions& options,
                                                                bool code_in_this_binary,
                                                                int64_t call_index) {
  const std::optional<ReplayTarget> target =
      code_in_this_binary ? ReplayTargetFromEnv() : std::nullopt;
  if (target.has_value() && target->index == call_index &&
      target->fingerprint != SpecFingerprint(spec)) {
    // The program took another path to this call than its parent did:
    // measuring it would report another statement's counts as the
    // parent's. Say which statement it reached instead.
    const absl::Status written = timer::internal::WriteReplayMismatch(target->directory, spec.stmt);
    std::fflush(nullptr);
    _exit(written.ok() ? 0 : 1);
  }
  absl::StatusOr<CallgrindDumpFiles> dumps = CollectHere(kernel, spec, options);
  if (target.has_value() && target->index == call_index) {
    // The measurement this re-executed binary was started for: hand the
    // dumps to the parent and stop replaying the program.
    const absl::Status written = timer::internal::WriteChildResult(target->directory, dumps);
    std::fflush(nullptr);
    _exit(written.ok() ? 0 : 1);
  }
  if (!dumps.ok()) return dumps.status();
  const base::PhaseMark mark = base::PhaseNow();
  absl::StatusOr<std::vector<CallgrindStats>> stats =
      CallgrindStatsFromDumps(spec, options.number, *dumps, options.retain_out_file);
  base::RecordPhase("case", "parse the dumps", mark);
  return stats;
}

// The process to start under callgrind.
struct MeasuredCommand {
  std::vector<std::string> command;
  std::vector<std::string> env;
  // The runner of a string starts in the place's scratch directory: a
  // Python statement's sys.path holds the working directory, and its counts
  // followed its length (8,627.8 instructions a run from `bazel run`'s
  // runfiles directory, 8,633.8 from the checkout). A re-executed binary
  // keeps the working directory its program may read relative paths from.
  std::string working_directory;
};

// This binary again, with its own arguments, told to replay its program up
// to CollectCallgrind call `call_index` and measure that one.
absl::StatusOr<MeasuredCommand> ReExecutedBinaryCommand(base::ProgramPlace& place,
                                                        const TaskSpec& spec,
                                                        int64_t call_index) {
  absl::StatusOr<std::vector<std::string>> self = OwnCommandLine();
  if (!self.ok()) return self.status();
  MeasuredCommand measured;
  std::vector<std::string>& command = measured.command;
  command = *std::move(self);
  const std::string name = command[0].substr(command[0].rfind('/') + 1);  // npos + 1 == 0
  if (absl::StatusOr<std::string> start = place.Link(command[0], name); start.ok()) {
    command[0] = *start;
  }
  // The same pinned environment as a statement string's runner (and the
  // worker's): the replayed program must not depend on other variables
  // before the measured call (timer.h).
  measured.env = MeasurementEnvironment(spec.num_threads);
  for (const char* name : kReplayedTestSelection) {
    if (const char* value = std::getenv(name); value != nullptr) {
      measured.env.push_back(absl::StrCat(name, "=", value));
    }
  }
  measured.env.push_back(
      absl::StrCat(kReplayEnv, "=", call_index, ":", SpecFingerprint(spec), ":", place.scratch()));
  return measured;
}

// The runner shipped with //timer, given its request in `directory`.
absl::StatusOr<MeasuredCommand> RunnerCommand(base::ProgramPlace& place,
                                              const std::string& directory, const TaskSpec& spec,
                                              const CallgrindOptions& options) {
  absl::StatusOr<std::string> runner = FindCallgrindRunner();
  if (!runner.ok()) return runner.status();
  const bool measure_baseline = options.collect_baseline && !options.baseline_measured_by_caller;
  timer::CallgrindRequestProto request;
  *request.mutable_task_spec() = TaskSpecToProto(spec);
  request.set_number(options.number);
  request.set_repeats(options.repeats);
  request.set_collect_baseline(measure_baseline);
  request.set_warm_up_after_fork(options.warm_up_after_fork);
  if (absl::Status status = base::WriteFileAtomically(
          timer::internal::ChildRequestPath(directory), request.SerializeAsString());
      !status.ok()) {
    return status;
  }
  absl::StatusOr<std::string> start = place.Link(*runner, "callgrind_runner");
  MeasuredCommand measured;
  measured.command = {start.ok() ? *start : *runner, place.scratch()};
  measured.working_directory = place.scratch();
  measured.env = MeasurementEnvironment(spec.num_threads);
  return measured;
}

// What a re-executed binary's replay depends on, for messages: its
// environment `env` (ReExecutedBinaryCommand's), named variable by
// variable, so that the message says what the replay had.
std::string ReplayContract(const std::vector<std::string>& env) {
  std::vector<std::string> kept;
  for (const std::string& entry : env) {
    const std::string name = entry.substr(0, entry.find('='));
    if (name == kReplayEnv || name == kStackPadEnv) continue;
    // The pinned values say themselves; the others pass the caller's.
    kept.push_back(name == "PYTHONHASHSEED" || name == "LC_ALL" ? entry : name);
  }
  return absl::StrCat(
      "a re-executed binary replays its program with the same arguments, in the working "
      "directory it started in, with ASLR off and only these variables: ",
      absl::StrJoin(kept, ", "),
      " (of gtest's and Bazel's test selection, those set here); it must reach the same "
      "CollectCallgrind calls in the same order without the others");
}

// Reads what the process measured under callgrind (`program`) reported
// into `result`; an error where it did not run, reported nothing (its
// files then stay in `directory`, and *unreported is set), reached
// another statement than `spec`'s (call `call_index` of a re-executed
// binary, whose ReplayContract is `replay_contract`; empty for a runner),
// or reported the statement's error.
absl::Status ReadChildResult(const absl::StatusOr<base::CommandResult>& run,
                             const std::string& directory, const std::string& program,
                             const TaskSpec& spec, const std::string& replay_contract,
                             int64_t call_index, double timeout_seconds,
                             timer::CallgrindChildResultProto* result, bool* unreported) {
  absl::StatusOr<std::string> result_bytes =
      base::ReadFileToString(timer::internal::ChildResultPath(directory));
  if (!run.ok()) return run.status();
  if (run->timed_out || !result_bytes.ok() || !result->ParseFromString(*result_bytes)) {
    *unreported = true;
    const std::string log = ValgrindLogReport(ValgrindLogPath(directory));
    return absl::Status(
        run->timed_out ? absl::StatusCode::kDeadlineExceeded : absl::StatusCode::kAborted,
        absl::StrCat(
            "the process measured under callgrind (", program, ") ",
            run->timed_out
                ? absl::StrCat("had not reported counts when it was ",
                               base::DescribeExit(*run, timeout_seconds),
                               " (CallgrindOptions::timeout_seconds)")
                : absl::StrCat("ended with ", base::DescribeExit(*run), " before reporting counts"),
            replay_contract.empty() ? ""
                                    : absl::StrCat(" for CollectCallgrind call ", call_index,
                                                   " (\"", spec.stmt, "\"); ", replay_contract),
            "\n", log.empty() ? "(valgrind wrote no log)" : log, "\n--- its output ---\n",
            run->output.empty() ? "(it printed nothing)" : Tail(run->output, 4000),
            "\n(its files are kept in ", directory, ")"));
  }
  if (!result->replay_reached().empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "CollectCallgrind call ", call_index, " of this process measures \"", spec.stmt,
        "\", but in the binary re-executed to measure it call ", call_index, " is \"",
        result->replay_reached(), "\": the program took another path there; ", replay_contract));
  }
  if (!result->error().empty()) return absl::AbortedError(result->error());
  return absl::OkStatus();
}

// The dumps `result` names through the place's `scratch` path, in the
// place's `directory`.
CallgrindDumpFiles DumpsFromChildResult(const timer::CallgrindChildResultProto& result,
                                        const std::string& scratch,
                                        const std::string& directory) {
  CallgrindDumpFiles dumps;
  // The dumps by their real paths, which outlive the place.
  const auto real = [&](const std::string& path) {
    return absl::StartsWith(path, scratch) ? absl::StrCat(directory, path.substr(scratch.size()))
                                           : path;
  };
  for (const std::string& dump : result.stmt_dumps()) dumps.stmt_dumps.push_back(real(dump));
  if (!result.baseline_dump().empty()) dumps.baseline_dump = real(result.baseline_dump());
  return dumps;
}

}  // namespace

absl::StatusOr<CallgrindDumpFiles> Timer::CollectCallgrindDumps(
    const CallgrindOptions& options) const {
  if (absl::Status status = CheckCallgrindOptions(options); !status.ok()) return status;
  if (absl::Status status = CheckThreads(); !status.ok()) return status;
  if (!RUNNING_ON_VALGRIND) {
    return absl::FailedPreconditionError(
        "CollectCallgrindDumps measures in this process and needs it to run under valgrind's "
        "callgrind; outside valgrind, CollectCallgrind starts a process under it");
  }
  if (absl::Status status = CheckStartedByCallgrindCommand(); !status.ok()) return status;
  return CollectHere(*kernel_, spec_, options);
}

absl::StatusOr<std::vector<CallgrindStats>> Timer::CollectCallgrind(
    const CallgrindOptions& options) const {
  if (absl::Status status = CheckCallgrindOptions(options); !status.ok()) return status;
  if (absl::Status status = CheckThreads(); !status.ok()) return status;
  const int64_t call_index = code_in_this_binary_ ? ++callable_collections : 0;

  if (RUNNING_ON_VALGRIND) {
    if (absl::Status status = CheckStartedByCallgrindCommand(); !status.ok()) return status;
    return CollectAndParseHere(*kernel_, spec_, options, code_in_this_binary_, call_index);
  }

  absl::StatusOr<std::string> valgrind = FindValgrind();
  if (!valgrind.ok()) return valgrind.status();
  absl::StatusOr<std::string> directory = base::MakeTemporaryDirectory("icount-cg");
  if (!directory.ok()) return directory.status();

  // The measured process starts from a ProgramPlace and writes through its
  // `s`: the paths it holds have one length wherever this binary was built
  // and whatever TMPDIR is, and so do its counts.
  base::ProgramPlace place = base::ProgramPlace::Make(*directory);
  absl::StatusOr<MeasuredCommand> measured =
      code_in_this_binary_ ? ReExecutedBinaryCommand(place, spec_, call_index)
                           : RunnerCommand(place, *directory, spec_, options);
  if (!measured.ok()) return measured.status();
  const std::string replay_contract =
      code_in_this_binary_ ? ReplayContract(measured->env) : std::string();

  absl::StatusOr<base::CommandResult> run =
      timer::internal::RunUnderCallgrind(measured->command, std::move(measured->env),
                                         place.scratch(), options.cache_sim,
                                         measured->working_directory, options.timeout_seconds);
  timer::CallgrindChildResultProto result;
  bool unreported = false;  // its files are kept for the error to name
  const absl::Status status =
      ReadChildResult(run, *directory, measured->command[0], spec_, replay_contract, call_index,
                      options.timeout_seconds, &result, &unreported);
  absl::StatusOr<std::vector<CallgrindStats>> stats =
      status.ok() ? absl::InternalError("no dumps") : status;
  if (status.ok()) {
    stats = CallgrindStatsFromDumps(spec_, options.number,
                                    DumpsFromChildResult(result, place.scratch(), *directory),
                                    options.retain_out_file);
  }
  if (!unreported && (!options.retain_out_file || !stats.ok())) {
    base::RemoveDirectoryTree(*directory);
  }
  return stats;
}

}  // namespace icount::timer
