#include "worker/worker.h"

#include <malloc.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <valgrind/callgrind.h>
#include <valgrind/valgrind.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/machine.h"
#include "base/phase_log.h"
#include "base/status.h"
#include "base/text.h"
#include "timer/callgrind_command.h"
#include "timer/callgrind_stats.h"
#include "timer/measurement_io.h"
#include "timer/snippet_abi.h"
#include "timer/timer.h"
#include "worker/case_dumps.h"
#include "worker/compiled_cases.h"
#include "worker/failure.h"
#include "worker/framing.h"
#include "worker/internal/torchscript_rehearsal.h"
#include "worker/loaded_libtorch.h"
#include "worker/orders.h"

namespace icount::worker {
namespace {

// How the suite's wall-time blocks are sized (Timer::BlockedAutorange):
// timer overhead up to 0.1% of a block, not the reference's 0.01%, and
// blocks of at least 1% of min_run_time. A Python block's overhead is
// ~1 us, so the reference's rule makes 10-50 ms blocks and 0.05 s holds
// 1-14 of them: too few for a median, a spread or ab_test's per-round
// medians. Here Python blocks are ~1-10 ms and C++ ones 0.5-5 ms, 10-100
// in 0.05 s. The overhead is a constant share of each block, below the
// two figures the tables show and the same on both sides of an A/B.
constexpr timer::BlockRule kSuiteBlockRule = {/*max_timer_overhead=*/1e-3,
                                              /*min_block_share=*/1e-2};

// ---- framing ---------------------------------------------------------------

// ---- the zygote ------------------------------------------------------------

// Zygote <- worker: an order, as bytes the case process parses itself. The
// zygote reads into static storage and touches no heap between forks, so
// every case starts from the same state.
struct ZygoteRequest {
  uint32_t size;
  double timeout_seconds;
  int64_t sequence;  // the worker's number for the case (CaseDumpTag)
};
// Zygote -> worker: how the case process ended.
struct ZygoteReply {
  int32_t kind;  // kExited, kSignalled, kTimedOut or kRehearsalFailed
  int32_t code;  // exit code or signal
};
constexpr int32_t kExited = 0;
constexpr int32_t kSignalled = 1;
constexpr int32_t kTimedOut = 2;
// The TorchScript zygote's rehearsal failed, so it forks no case; why is in
// RehearsalErrorPath.
constexpr int32_t kRehearsalFailed = 3;

// What a zygote does before its cases fork (ForkZygote). The zygotes of
// one language fork from the same state of the worker (ForkZygotes).
enum class ZygoteKind {
  // Throws away valgrind's translations of the worker's start-up: C++
  // cases (and Python's in worker 0.8's tree, --template_per_case).
  kTranslationsEmptied,
  // Keeps them: Python cases (compiling a snippet needs Python's compiler).
  kTranslationsKept,
  // Keeps them and, before its first case, loads and runs the TorchScript
  // rehearsal model (worker/internal/torchscript_rehearsal.h): the
  // TorchScript cases of orders that ask for it (torchscript_rehearsal).
  kTorchScriptRehearsed,
};

std::string RehearsalErrorPath(const std::string& scratch) {
  return absl::StrCat(scratch, "/torchscript-rehearsal-error.txt");
}

constexpr size_t kMaxOrderBytes = 8 << 20;
char zygote_order[kMaxOrderBytes];

void IgnoreAlarm(int) {}

absl::StatusOr<timer::Timer> MakeTimer(const WorkOrderProto& order);

// The order's runs per measured block (100 unless it says).
int64_t CallgrindNumber(const WorkOrderProto& order) {
  return order.callgrind_number() > 0 ? order.callgrind_number() : 100;
}

// The order's measured blocks (1 unless it says).
int CallgrindRepeats(const WorkOrderProto& order) {
  return order.callgrind_repeats() > 0 ? order.callgrind_repeats() : 1;
}

// Whether a count order's case process plays the template itself: it ends
// with the order, so it may, unless it must stay clean for a baseline of
// its own (or main --template_per_case asks for worker 0.8's tree).
bool MeasuresInItsProcess(const WorkOrderProto& order) {
  return !order.template_per_case() && (order.measure_baseline() || order.baseline_from_worker());
}

// Whether the case process of a count order ends as soon as its repeats are
// done, leaving its dumps where the worker finds them (CaseDumpTag) and no
// result file: the worker makes the result (MeasuredCaseResult). Building,
// serialising and writing it in the case process cost ~35 ms a case under
// valgrind (all its code translated afresh after instrumentation stops).
bool EndsOnceMeasured(const WorkOrderProto& order) {
  return order.callgrind() && order.return_dumps() && MeasuresInItsProcess(order);
}

// The exit code of a case process that ended so.
constexpr int kCaseMeasuredExitCode = 86;

// The dump tag (CallgrindOptions::dump_tag) of the case process with this
// sequence number: unique in the worker's dump directory, and short enough
// ("case-<n>") to stay in std::string's inline buffer, so that the heap
// the measured blocks inherit does not depend on the case's position.
std::string CaseDumpTag(int64_t sequence) { return absl::StrCat("case-", sequence); }

// Where a case process writes its result for the worker.
std::string CaseResultPath(const std::string& scratch, int64_t sequence) {
  return absl::StrCat(scratch, "/case-", sequence, ".pb");
}

// The case process's own view of how it ends (RunCase, RunOrder).
class CaseProcess {
 public:
  CaseProcess(const std::string& scratch, int64_t sequence)
      : scratch_(scratch), sequence_(sequence), dump_tag_(CaseDumpTag(sequence)) {}

  // The phases before the order runs are done (base/phase_log.h).
  void StartOrder(base::PhaseMark mark) { mark_ = mark; }

  // Ends the process with `result`, written where the worker reads it.
  [[noreturn]] void Finish(const WorkerResultProto& result) const {
    const base::PhaseMark ran = base::RecordPhase("case", "run the order", mark_);
    const absl::Status written =
        base::WriteFileAtomically(CaseResultPath(scratch_, sequence_), result.SerializeAsString());
    base::RecordPhase("case", "write the result", ran);
    std::fflush(nullptr);
    _exit(written.ok() ? 0 : 3);
  }

  // Ends the process once its dumps are where the worker finds them
  // (EndsOnceMeasured).
  [[noreturn]] void FinishMeasured() const {
    base::RecordPhase("case", "run the order", mark_);
    std::fflush(nullptr);
    _exit(kCaseMeasuredExitCode);
  }

  const std::string& dump_tag() const { return dump_tag_; }

 private:
  const std::string& scratch_;
  int64_t sequence_;
  std::string dump_tag_;
  base::PhaseMark mark_;
};

WorkerResultProto RunOrder(const WorkOrderProto& order, const CaseProcess& process);

// Runs the case described by zygote_order[0, size) and exits.
[[noreturn]] void RunCase(size_t size, const std::string& scratch, int64_t sequence) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  CaseProcess process(scratch, sequence);
  process.StartOrder(base::PhaseNow());
  WorkOrderProto order;
  if (!order.ParseFromArray(zygote_order, static_cast<int>(size))) {
    process.Finish(FailureResult(FAILURE_WORKER, "the case process received a corrupt order"));
  }
  if (!order.canary() && !order.measure_baseline() && order.compiled_case().empty() &&
      order.task_spec().language() == timer::CPP) {
    // Compile a C++ string into the snippet cache in a throwaway child
    // first: whether the compiler had to run must not change this
    // process's heap, which the measured processes inherit.
    const base::PhaseMark before = base::PhaseNow();
    const pid_t compiler = fork();
    if (compiler == 0) {
      (void)MakeTimer(order);
      _exit(0);
    }
    int status = 0;
    while (compiler > 0 && waitpid(compiler, &status, 0) < 0 && errno == EINTR) {
    }
    process.StartOrder(base::RecordPhase("case", "compile the C++ string (in a child)", before));
  }
  process.Finish(RunOrder(order, process));
}

// Forks a case process per request and reports how it ended. Its cases
// inherit the translations valgrind made of the worker's start-up unless
// `kind` is kTranslationsEmptied.
[[noreturn]] void ZygoteLoop(int requests_fd, int replies_fd, const std::string& scratch,
                             ZygoteKind kind) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // Consolidate the allocator's free chunks and return the top of the heap
  // once, before any case forks: its fast bins then hold nothing left over
  // from start-up, whose allocations depend on the worker binary.
  malloc_trim(0);
  if (kind == ZygoteKind::kTranslationsEmptied) {
    // Starting or stopping instrumentation throws away every translation
    // valgrind holds, as each case does when its warm-up starts it. With
    // all of LibTorch's and Python's start-up translated that cost a C++
    // case ~30 ms and ~3,500 page faults (copies of the translation
    // table's pages) on a 2-core VM, more than reusing them saves it.
    // Throwing them away once here leaves each case only what it
    // translated itself. (A Python case gains more from reusing them:
    // compiling its snippet needs the Python compiler, translated while
    // `import torch` ran; see RunWorker.)
    CALLGRIND_START_INSTRUMENTATION;
    CALLGRIND_STOP_INSTRUMENTATION;
  }
  struct sigaction alarm_action;
  std::memset(&alarm_action, 0, sizeof(alarm_action));
  alarm_action.sa_handler = IgnoreAlarm;  // interrupts waitpid (no SA_RESTART)
  sigaction(SIGALRM, &alarm_action, nullptr);
  bool rehearsed = false;
  bool rehearsal_failed = false;
  for (;;) {
    ZygoteRequest request;
    if (ReadAll(requests_fd, reinterpret_cast<char*>(&request), sizeof(request)) !=
            sizeof(request) ||
        request.size > kMaxOrderBytes ||
        ReadAll(requests_fd, zygote_order, request.size) != request.size) {
      _exit(0);  // the worker closed the stream
    }
    if (kind == ZygoteKind::kTorchScriptRehearsed && !rehearsed) {
      // Once, before the first case, whatever it is: every case of this
      // zygote then forks from the same state. (Lazily, so that a run
      // without TorchScript cases never pays for it.)
      rehearsed = true;
      const base::PhaseMark before = base::PhaseNow();
      const absl::Status rehearsal =
          internal::RehearseTorchScript(internal::TorchScriptRehearsalModel());
      if (!rehearsal.ok()) {
        rehearsal_failed = true;
        (void)base::WriteFileAtomically(RehearsalErrorPath(scratch),
                                        std::string(rehearsal.message()));
      }
      // As at the zygote's start: no free chunks left over from the
      // rehearsal in the allocator's fast bins.
      malloc_trim(0);
      base::RecordPhase("zygote", "rehearse TorchScript (before its first case)", before);
    }
    if (rehearsal_failed) {
      const ZygoteReply reply{kRehearsalFailed, 0};
      if (!WriteAll(replies_fd, reinterpret_cast<const char*>(&reply), sizeof(reply))) _exit(0);
      continue;
    }
    const base::PhaseMark before_fork = base::PhaseNow();
    const pid_t child = fork();
    if (child == 0) {
      close(requests_fd);
      close(replies_fd);
      RunCase(request.size, scratch, request.sequence);
    }
    const base::PhaseMark forked =
        base::RecordPhase("zygote", "fork the case (parent side)", before_fork);
    ZygoteReply reply{kExited, 0};
    if (child < 0) {
      reply = {kExited, 125};
    } else {
      if (request.timeout_seconds > 0)
        alarm(static_cast<unsigned>(std::ceil(request.timeout_seconds)));
      int status = 0;
      rusage usage;
      while (wait4(child, &status, 0, &usage) < 0 && errno == EINTR) {
        // The alarm fired: the case ran out of time. Its descendants die
        // with it (PR_SET_PDEATHSIG).
        kill(child, SIGKILL);
        reply.kind = kTimedOut;
      }
      alarm(0);
      base::RecordChildPhase("zygote", "case process (whole life)", forked.wall, usage);
      if (RUNNING_ON_VALGRIND) timer::RemoveCallgrindFinalProfile(child);
      if (reply.kind != kTimedOut) {
        reply = WIFSIGNALED(status) ? ZygoteReply{kSignalled, WTERMSIG(status)}
                                    : ZygoteReply{kExited, WEXITSTATUS(status)};
      }
    }
    if (!WriteAll(replies_fd, reinterpret_cast<const char*>(&reply), sizeof(reply))) _exit(0);
  }
}

absl::StatusOr<timer::Timer> MakeTimer(const WorkOrderProto& order) {
  timer::TaskSpec spec = timer::TaskSpecFromProto(order.task_spec());
  if (order.measure_baseline()) {
    timer::TimerOptions options;
    options.num_threads = spec.num_threads;
    return timer::Timer::ForBaseline(spec.language, std::move(options));
  }
  timer::TimerOptions options;
  options.label = spec.label;
  options.sub_label = spec.sub_label;
  options.description = spec.description;
  options.env = spec.env;
  options.num_threads = spec.num_threads;
  if (order.canary()) return timer::Timer::ForCallable([] {}, std::move(options), spec.stmt);
  if (!order.compiled_case().empty()) {
    IcountSnippetEntry entry = FindCompiledCase(order.compiled_case());
    if (entry == nullptr) {
      return absl::NotFoundError(absl::StrCat("this worker has no compiled case \"",
                                              order.compiled_case(), "\" (", NumCompiledCases(),
                                              " are compiled in): rebuild the suite"));
    }
    return timer::Timer::ForCompiledEntry(entry, std::move(spec));
  }
  if (spec.language == timer::Language::kCpp) {
    std::string setup = spec.setup;
    if (!order.torchscript_artifact().empty()) {
      setup = absl::StrCat(timer::ArtifactPathDefinition(
                               /*cpp=*/true, base::CppStringLiteral(order.torchscript_artifact())),
                           setup);
    }
    return timer::Timer::ForCpp(spec.stmt, setup, spec.global_setup, options);
  }
  std::string setup = spec.setup;
  if (!order.torchscript_artifact().empty()) {
    setup = absl::StrCat(timer::ArtifactPathDefinition(
                             /*cpp=*/false, base::PythonRawLiteral(order.torchscript_artifact())),
                         setup);
  }
  return timer::Timer::ForPython(spec.stmt, setup, options);
}

// The task spec MakeTimer(order)'s Timer reports (but for the setup, which
// results take from the order as given).
timer::TaskSpec MeasuredTaskSpec(const WorkOrderProto& order) {
  timer::TaskSpec spec = timer::TaskSpecFromProto(order.task_spec());
  if (!order.compiled_case().empty()) {
    spec.language = timer::Language::kCpp;  // Timer::ForCompiledEntry
    return spec;
  }
  return timer::Timer::StringTaskSpec(std::move(spec));
}

// The display fields of a task spec (and of the flat MeasurementProto).
template <typename Message>
void CopyLabels(const timer::TaskSpecProto& from, Message& to) {
  if (from.has_label())
    to.set_label(from.label());
  else
    to.clear_label();
  if (from.has_sub_label())
    to.set_sub_label(from.sub_label());
  else
    to.clear_sub_label();
  if (from.has_description())
    to.set_description(from.description());
  else
    to.clear_description();
  if (from.has_env())
    to.set_env(from.env());
  else
    to.clear_env();
}

// What a case process sees of an order: what to measure, not what the case
// is called. Its heap before the measured region then holds no id, key or
// label, so renaming a case does not change its count
// (BatchInvarianceTest.NamesDoNotChangeCounts: up to 0.4% otherwise).
WorkOrderProto MeasuredPart(const WorkOrderProto& order) {
  WorkOrderProto measured = order;
  measured.clear_id();
  measured.clear_case_key();
  CopyLabels(timer::TaskSpecProto(), *measured.mutable_task_spec());
  return measured;
}

// Puts the order's labels back on what its case process reported.
void RestoreLabels(const WorkOrderProto& order, WorkerResultProto& result) {
  if (!result.has_output()) return;
  WorkerOutputProto& output = *result.mutable_output();
  if (output.has_wall_time()) CopyLabels(order.task_spec(), *output.mutable_wall_time());
  for (timer::CallgrindStatsProto& stats : *output.mutable_callgrind()) {
    CopyLabels(order.task_spec(), *stats.mutable_task_spec());
  }
  if (output.has_callgrind_dumps()) {
    CopyLabels(order.task_spec(), *output.mutable_callgrind_dumps()->mutable_task_spec());
  }
}

// A count order's result as dumps for the runner to parse (ParseCaseDumps):
// what was measured (`spec`, with the order's own setup) and the runs per
// repeat.
WorkerResultProto DumpsResult(const WorkOrderProto& order, const timer::TaskSpec& spec,
                              const timer::CallgrindDumpFiles& dumps) {
  WorkerResultProto result;
  CallgrindDumpsProto& proto = *result.mutable_output()->mutable_callgrind_dumps();
  CallgrindDumpsToProto(dumps, proto);
  *proto.mutable_task_spec() = timer::TaskSpecToProto(spec);
  proto.mutable_task_spec()->set_setup(order.task_spec().setup());
  proto.set_number_per_run(CallgrindNumber(order));
  return result;
}

// The result of a case process that ended once measured (EndsOnceMeasured):
// what RunOrder would have reported, made here from the order. A statement
// that ended the process with that exit code itself left no dumps: a
// failure that says so.
WorkerResultProto MeasuredCaseResult(const WorkOrderProto& order, int64_t sequence) {
  timer::CallgrindDumpFiles dumps;
  const std::string directory = timer::CallgrindOutDirectory();
  for (int repeat = 0; repeat < CallgrindRepeats(order); ++repeat) {
    dumps.stmt_dumps.push_back(timer::CallgrindDumpPath(directory, CaseDumpTag(sequence), repeat));
    if (access(dumps.stmt_dumps.back().c_str(), F_OK) != 0) {
      return FailureResult(
          FAILURE_CRASH,
          absl::StrCat("the case exited with code ", kCaseMeasuredExitCode,
                       " (a measured case's) but left no dump at ", dumps.stmt_dumps.back(),
                       ": does its statement or setup end the process?"));
    }
  }
  return DumpsResult(order, MeasuredTaskSpec(order), dumps);
}

// A zygote process (ZygoteLoop) as the worker sees it.
struct Zygote {
  pid_t pid = -1;
  int requests_fd = -1;
  int replies_fd = -1;
};

// Forks a zygote; the child never returns. `worker_fds`: the worker's own
// descriptors (its order stream, other zygotes' pipes), which the zygote
// closes so that each zygote sees EOF when the worker closes its requests;
// the new zygote's pipes are added to them. Allocates nothing between the
// forks of one language (ForkZygotes reserves `worker_fds`): its zygotes
// fork from the same heap.
absl::StatusOr<Zygote> ForkZygote(const std::string& scratch, ZygoteKind kind,
                                  std::vector<int>& worker_fds) {
  int requests[2];
  int replies[2];
  if (pipe(requests) != 0 || pipe(replies) != 0) {
    return absl::InternalError(absl::StrCat("worker: pipe: ", std::strerror(errno)));
  }
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError(absl::StrCat("worker: fork: ", std::strerror(errno)));
  if (pid == 0) {
    close(requests[1]);
    close(replies[0]);
    for (int fd : worker_fds) {
      if (fd >= 0) close(fd);
    }
    ZygoteLoop(requests[0], replies[1], scratch, kind);
  }
  close(requests[0]);
  close(replies[1]);
  worker_fds.push_back(requests[1]);
  worker_fds.push_back(replies[0]);
  return Zygote{pid, requests[1], replies[0]};
}

// The zygotes that serve one language's cases, forked one after the other
// from the same state of the worker: C++ cases' before the worker starts
// Python, Python cases' after `import torch`.
struct LanguageZygotes {
  Zygote translations_emptied;
  std::optional<Zygote> translations_kept;  // Python's only
  Zygote torchscript_rehearsed;
};

absl::StatusOr<LanguageZygotes> ForkZygotes(const std::string& scratch, bool python,
                                            std::vector<int>& worker_fds) {
  worker_fds.reserve(worker_fds.size() + 6);
  LanguageZygotes zygotes;
  ICOUNT_ASSIGN_OR_RETURN(zygotes.translations_emptied,
                          ForkZygote(scratch, ZygoteKind::kTranslationsEmptied, worker_fds));
  if (python) {
    ICOUNT_ASSIGN_OR_RETURN(zygotes.translations_kept,
                            ForkZygote(scratch, ZygoteKind::kTranslationsKept, worker_fds));
  }
  ICOUNT_ASSIGN_OR_RETURN(zygotes.torchscript_rehearsed,
                          ForkZygote(scratch, ZygoteKind::kTorchScriptRehearsed, worker_fds));
  return zygotes;
}

// Closes the zygote's requests, so that it sees EOF and exits, and waits.
void EndZygote(const Zygote& zygote) {
  close(zygote.requests_fd);
  int status = 0;
  while (waitpid(zygote.pid, &status, 0) < 0 && errno == EINTR) {
  }
  close(zygote.replies_fd);
}

void EndZygotes(const LanguageZygotes& zygotes) {
  EndZygote(zygotes.translations_emptied);
  if (zygotes.translations_kept.has_value()) EndZygote(*zygotes.translations_kept);
  EndZygote(zygotes.torchscript_rehearsed);
}

// Whether an order's case process comes from the zygote that keeps the
// start-up's translations: Python's cases (natively, for wall time, there
// are no translations and both zygotes are alike), unless measured in
// worker 0.8's tree (main --template_per_case, which therefore also checks
// that the zygote changes no count: bench/process_tree_counts.sh).
bool FromTranslationsKeepingZygote(const WorkOrderProto& order) {
  return IsPythonOrder(order) && !order.template_per_case();
}

// Whether an order's case process comes from the zygote that rehearsed
// TorchScript (ZygoteKind::kTorchScriptRehearsed): a TorchScript case
// whose order asks for it, counted or timed.
bool FromTorchScriptRehearsedZygote(const WorkOrderProto& order) {
  return order.torchscript_rehearsal() && !order.torchscript_artifact().empty();
}

// The worker's side of its zygotes: sends the measured part of one order
// to the zygote for it, waits for its case process to end and turns what
// it left into a result.
struct ZygoteChannel {
  LanguageZygotes cpp;
  std::optional<LanguageZygotes> python;  // when the worker imports torch
  std::string scratch_directory;

  // Without Python's zygotes a Python case forks from C++'s and starts
  // Python itself (or fails where the LibTorch has no torch package).
  const Zygote& For(const WorkOrderProto& order) const {
    const LanguageZygotes& language = IsPythonOrder(order) && python.has_value() ? *python : cpp;
    if (FromTorchScriptRehearsedZygote(order)) return language.torchscript_rehearsed;
    if (language.translations_kept.has_value() && FromTranslationsKeepingZygote(order)) {
      return *language.translations_kept;
    }
    return language.translations_emptied;
  }

  // An error only when the zygote itself is gone.
  absl::StatusOr<WorkerResultProto> Run(const WorkOrderProto& order, int64_t sequence) const {
    const auto start = std::chrono::steady_clock::now();
    base::PhaseMark mark = base::PhaseNow();
    const Zygote& zygote = For(order);
    const std::string order_bytes = MeasuredPart(order).SerializeAsString();
    ZygoteRequest request{static_cast<uint32_t>(order_bytes.size()), order.timeout_seconds(),
                          sequence};
    ZygoteReply reply{kExited, 0};
    if (order_bytes.size() > kMaxOrderBytes ||
        !WriteAll(zygote.requests_fd, reinterpret_cast<const char*>(&request), sizeof(request)) ||
        !WriteAll(zygote.requests_fd, order_bytes.data(), order_bytes.size()) ||
        ReadAll(zygote.replies_fd, reinterpret_cast<char*>(&reply), sizeof(reply)) !=
            sizeof(reply)) {
      return absl::InternalError("worker: the zygote process is gone");
    }
    mark = base::RecordPhase("worker", "send the order, wait for the case", mark);
    const std::string case_file = CaseResultPath(scratch_directory, sequence);
    WorkerResultProto result;
    absl::StatusOr<std::string> bytes = base::ReadFileToString(case_file);
    std::remove(case_file.c_str());
    if (reply.kind == kRehearsalFailed) {
      absl::StatusOr<std::string> why =
          base::ReadFileToString(RehearsalErrorPath(scratch_directory));
      result = FailureResult(FAILURE_SETUP, why.ok() ? *why : "the TorchScript rehearsal failed");
    } else if (reply.kind == kTimedOut) {
      result = FailureResult(FAILURE_TIMEOUT,
                             absl::StrCat("timed out after ", order.timeout_seconds(), " s"));
    } else if (reply.kind == kSignalled) {
      result = FailureResult(FAILURE_CRASH, absl::StrCat("the case crashed: signal ", reply.code,
                                                         " (", strsignal(reply.code), ")"));
    } else if (reply.code == kCaseMeasuredExitCode && EndsOnceMeasured(order)) {
      result = MeasuredCaseResult(order, sequence);
    } else if (!bytes.ok() || !result.ParseFromString(*bytes)) {
      result = FailureResult(FAILURE_CRASH, absl::StrCat("the case exited with code ", reply.code,
                                                         " without a result"));
    }
    RestoreLabels(order, result);
    result.set_id(order.id());
    result.set_seconds(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    base::RecordPhase("worker", "read the case's result", mark);
    return result;
  }
};

// Instruction counts subtract a baseline, the same loop around an empty
// statement, whose count depends on the language, the number of runs and
// the thread count but not on the statement: the worker measures it once
// per such key, in a case process of its own forked from the zygote like
// any case, and attaches it to each order's counts. Measured per case
// instead (a second template and repeat in every case process), it cost a
// fifth of a case's time.
class SharedBaselines {
 public:
  explicit SharedBaselines(const ZygoteChannel& channel) : channel_(channel) {}

  // Runs `order` in a case process, with the baseline it needs (measured
  // first if this is the first order with its key). An error only when the
  // zygote is gone.
  absl::StatusOr<WorkerResultProto> Run(const WorkOrderProto& order, int64_t& sequence) {
    if (!order.callgrind() || order.canary() || order.baseline_per_case()) {
      return channel_.Run(order, sequence++);
    }
    const Key key{order.task_spec().language(), CallgrindNumber(order),
                  order.task_spec().has_num_threads() ? order.task_spec().num_threads() : 1,
                  order.template_per_case()};
    auto found = baselines_.find(key);
    if (found == baselines_.end()) {
      WorkOrderProto baseline_order;
      baseline_order.mutable_task_spec()->set_language(order.task_spec().language());
      baseline_order.mutable_task_spec()->set_num_threads(std::get<2>(key));
      baseline_order.set_callgrind(true);
      baseline_order.set_callgrind_number(std::get<1>(key));
      baseline_order.set_measure_baseline(true);
      baseline_order.set_template_per_case(std::get<3>(key));
      baseline_order.set_timeout_seconds(order.timeout_seconds());
      const base::PhaseMark start = base::PhaseNow();
      absl::StatusOr<WorkerResultProto> measured = channel_.Run(baseline_order, sequence++);
      // Marks the case before it as the baseline's (bench/case_phases.py).
      base::RecordPhase("worker", "measure a shared baseline", start);
      if (!measured.ok()) return measured.status();
      found = baselines_.emplace(key, *std::move(measured)).first;
    }
    const WorkerResultProto& baseline = found->second;
    if (!baseline.has_output() || baseline.output().callgrind_size() != 1) {
      WorkerResultProto failed =
          baseline.has_failure()
              ? FailureResult(
                    baseline.failure().kind(),
                    absl::StrCat("measuring the baseline (an empty statement, ", std::get<1>(key),
                                 " runs) failed: ", baseline.failure().reason()))
              : FailureResult(FAILURE_WORKER, "the baseline's case gave no counts");
      failed.set_id(order.id());
      return failed;
    }
    WorkOrderProto without_baseline = order;
    without_baseline.set_baseline_from_worker(true);
    absl::StatusOr<WorkerResultProto> result = channel_.Run(without_baseline, sequence++);
    if (!result.ok() || !result->has_output()) return result;
    const timer::CallgrindStatsProto& empty = baseline.output().callgrind(0);
    WorkerOutputProto& output = *result->mutable_output();
    if (output.has_callgrind_dumps()) {
      // Attached by whoever parses the dumps (ParseCaseDumps).
      *output.mutable_callgrind_dumps()->mutable_shared_baseline() = empty;
    }
    for (timer::CallgrindStatsProto& stats : *output.mutable_callgrind()) {
      AttachBaseline(empty, stats);
    }
    return result;
  }

 private:
  // Language, number, threads, and whether measured in a template (so
  // that main --template_per_case checks the baselines' counts too).
  using Key = std::tuple<int, int64_t, int, bool>;
  const ZygoteChannel& channel_;
  std::map<Key, WorkerResultProto> baselines_;
};

// Counted under valgrind, timed natively: whatever this worker is for.
WorkOrderProto CanaryOrder() {
  WorkOrderProto order;
  order.set_id(kCanaryOrderId);
  order.set_canary(true);
  order.mutable_task_spec()->set_label("icount canary");
  order.mutable_task_spec()->set_stmt("[an empty C++ statement]");
  order.mutable_task_spec()->set_language(timer::CPP);
  if (RUNNING_ON_VALGRIND) {
    order.set_callgrind(true);
    order.set_callgrind_number(10);
  } else {
    order.set_wall_time(true);
    order.set_min_run_time(0.001);
  }
  order.set_timeout_seconds(120);
  return order;
}

// Runs one order in this case process; a count order that EndsOnceMeasured
// ends the process from inside the measurement.
WorkerResultProto RunOrder(const WorkOrderProto& order, const CaseProcess& process) {
  const base::PhaseMark start = base::PhaseNow();
  SetCurrentArtifactPath(order.torchscript_artifact());
  absl::StatusOr<timer::Timer> timer = MakeTimer(order);
  base::RecordPhase("case", "make the timer (compile a Python snippet, find a C++ one)", start);
  if (!timer.ok()) return FailureResult(FAILURE_SETUP, std::string(timer.status().message()));
  // Results report the order's own setup, not the artifact line added above.
  const std::string original_setup = order.task_spec().setup();
  WorkerResultProto result;
  WorkerOutputProto* output = result.mutable_output();
  if (order.wall_time()) {
    if (RUNNING_ON_VALGRIND) {
      return FailureResult(FAILURE_WORKER,
                           "wall time is never taken under valgrind: use a native worker");
    }
    const double min_run_time = order.min_run_time() > 0 ? order.min_run_time() : 0.2;
    absl::StatusOr<timer::Measurement> measurement =
        order.wall_time_number() > 0
            ? timer->TimeBlocks(order.wall_time_number(), min_run_time)
            : timer->BlockedAutorange(min_run_time, nullptr, kSuiteBlockRule);
    if (!measurement.ok())
      return FailureResult(FAILURE_MEASURE, std::string(measurement.status().message()));
    *output->mutable_wall_time() = timer::MeasurementToProto(*measurement);
    output->mutable_wall_time()->set_setup(original_setup);
  }
  if (order.callgrind()) {
    if (!RUNNING_ON_VALGRIND) {
      return FailureResult(
          FAILURE_WORKER,
          "instruction counts need a worker started under valgrind (the runner does "
          "this); this one runs natively");
    }
    timer::CallgrindOptions options;
    options.number = CallgrindNumber(order);
    options.repeats = CallgrindRepeats(order);
    options.collect_baseline = !order.measure_baseline();
    options.baseline_measured_by_caller = order.baseline_from_worker();
    options.measure_in_this_process = MeasuresInItsProcess(order);
    options.warm_up_after_fork = order.warm_up_after_fork();
    if (order.return_dumps()) {
      const auto dumps_result = [&](const absl::StatusOr<timer::CallgrindDumpFiles>& dumps) {
        if (!dumps.ok())
          return FailureResult(FAILURE_MEASURE, std::string(dumps.status().message()));
        return DumpsResult(order, timer->task_spec(), *dumps);
      };
      if (EndsOnceMeasured(order)) {
        // The case process ends as soon as its repeats are done: its
        // setup's state and the timer are never torn down, and on success
        // the worker makes the result from the order (MeasuredCaseResult).
        // The tag is short, so copying it allocates nothing.
        options.dump_tag = process.dump_tag();
        options.on_measured =
            [&process, &dumps_result](const absl::StatusOr<timer::CallgrindDumpFiles>& dumps) {
              if (dumps.ok()) process.FinishMeasured();
              process.Finish(dumps_result(dumps));
            };
      }
      return dumps_result(timer->CollectCallgrindDumps(options));
    }
    absl::StatusOr<std::vector<timer::CallgrindStats>> stats = timer->CollectCallgrind(options);
    if (!stats.ok()) return FailureResult(FAILURE_MEASURE, std::string(stats.status().message()));
    if (order.canary() && (stats->empty() || stats->front().Counts() <= 0)) {
      return FailureResult(
          FAILURE_MEASURE,
          "callgrind counted no instructions in the canary's measured region: the "
          "worker runs under valgrind, but not under callgrind with client requests "
          "working");
    }
    for (const timer::CallgrindStats& s : *stats) {
      timer::CallgrindStatsProto* proto = output->add_callgrind();
      *proto = timer::CallgrindStatsToProto(s);
      proto->mutable_task_spec()->set_setup(original_setup);
    }
  }
  return result;
}

}  // namespace

absl::Status RunWorker(const WorkerOptions& options) {
  if (options.scratch_directory.empty() ||
      (mkdir(options.scratch_directory.c_str(), 0700) != 0 && errno != EEXIST)) {
    return absl::FailedPreconditionError(
        absl::StrCat("worker: cannot use scratch directory \"", options.scratch_directory, "\""));
  }
  base::PhaseMark mark =
      base::RecordPhaseSinceStart("worker", "start: valgrind, loading LibTorch, static init");
  // Pay LibTorch's and Python's one-time costs here, before the zygotes,
  // so that no case pays them.
  { timer::ScopedTorchThreads threads(1); }
  mark = base::RecordPhase("worker", "initialise LibTorch's threads", mark);
  // Zygotes from the same state, one after the other: Python's counted
  // cases reuse what `import torch` translated (compiling a snippet needs
  // the Python compiler: 91 ms -> 13 ms a case); C++ cases are cheaper
  // without inheriting translations they would throw away. Either way a
  // case's counts are the same (valgrind's translations are not the
  // program's state; bench/process_tree_counts.sh). A third serves
  // rehearsed TorchScript cases, whose counts do depend on its rehearsal.
  // C++ cases' zygotes fork before the worker starts Python: their counts
  // do not depend on whether, or from where, it imports torch (what that
  // import allocates moves where later allocations land, and so malloc's
  // counts, between two sides' torch packages), and a worker whose orders
  // are all C++ (the runner's choice) never pays for the import.
  std::vector<int> worker_fds = {options.orders_fd};
  absl::StatusOr<LanguageZygotes> cpp =
      ForkZygotes(options.scratch_directory, /*python=*/false, worker_fds);
  if (!cpp.ok()) return cpp.status();
  mark = base::RecordPhase("worker", "fork the C++ zygotes (parent side)", mark);
  std::optional<LanguageZygotes> python;
  if (options.python) {
    if (absl::Status status = timer::InitializeEmbeddedPython(); !status.ok()) {
      EndZygotes(*cpp);
      return status;
    }
    mark = base::RecordPhase("worker", "initialise Python (import torch)", mark);
    absl::StatusOr<LanguageZygotes> forked =
        ForkZygotes(options.scratch_directory, /*python=*/true, worker_fds);
    if (!forked.ok()) return forked.status();
    python = *forked;
    base::RecordPhase("worker", "fork the Python zygotes (parent side)", mark);
  }
  const ZygoteChannel zygotes{*cpp, python, options.scratch_directory};
  // Asked here, in the worker, after the zygote has forked: nothing a case
  // inherits changes (at::show_config() allocates).
  timer::NodeProto node;
  node.set_host(base::HostName());
  node.set_cpu_model(base::CpuModel());
  node.set_cpuid(base::CpuId());
  node.set_cpus(base::OnlineCpus());
  node.set_aten_cpu_capability(AtenCpuCapability());
  SharedBaselines shared_baselines(zygotes);
  absl::Status status;
  int64_t sequence = 0;
  if (options.canary) {
    const WorkOrderProto canary = CanaryOrder();
    absl::StatusOr<WorkerResultProto> result = zygotes.Run(canary, sequence++);
    if (!result.ok()) {
      status = result.status();
    } else {
      *result->mutable_node() = node;
      status = WriteFrame(options.results_fd, result->SerializeAsString());
    }
  }
  while (status.ok()) {
    absl::StatusOr<std::optional<std::string>> frame = ReadFrame(options.orders_fd);
    if (!frame.ok()) {
      status =
          absl::DataLossError(absl::StrCat("worker: order stream: ", frame.status().message()));
      break;
    }
    if (!frame->has_value()) break;  // end of orders
    WorkOrderProto order;
    if (!order.ParseFromString(**frame)) {
      status = absl::DataLossError("worker: corrupt order in the stream");
      break;
    }
    absl::StatusOr<WorkerResultProto> result = shared_baselines.Run(order, sequence);
    if (!result.ok()) {
      status = result.status();
      break;
    }
    *result->mutable_node() = node;
    status = WriteFrame(options.results_fd, result->SerializeAsString());
  }
  EndZygotes(zygotes.cpp);
  if (zygotes.python.has_value()) EndZygotes(*zygotes.python);
  return status;
}

}  // namespace icount::worker
