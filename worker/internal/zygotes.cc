#include "worker/internal/zygotes.h"

#include <malloc.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <valgrind/callgrind.h>
#include <valgrind/valgrind.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/phase_log.h"
#include "base/status.h"
#include "timer/callgrind_command.h"
#include "worker/failure.h"
#include "worker/framing.h"
#include "worker/internal/case_process.h"
#include "worker/internal/torchscript_rehearsal.h"
#include "worker/orders.h"

namespace icount::worker::internal {
namespace {

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

// What a zygote does once, before any case forks: the allocator's and, for
// `kind`, valgrind's state its cases start from, and the alarm that ends a
// case that runs out of time.
void PrepareForCases(ZygoteKind kind) {
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
}

// The TorchScript zygote's rehearsal (ZygoteKind::kTorchScriptRehearsed);
// false, with why in RehearsalErrorPath, when it failed.
bool RehearseBeforeFirstCase(const std::string& scratch) {
  bool rehearsal_failed = false;
  const base::PhaseMark before = base::PhaseNow();
  const absl::Status rehearsal =
      internal::RehearseTorchScript(internal::TorchScriptRehearsalModel());
  if (!rehearsal.ok()) {
    rehearsal_failed = true;
    (void)base::WriteFileAtomically(RehearsalErrorPath(scratch), std::string(rehearsal.message()));
  }
  // As at the zygote's start: no free chunks left over from the
  // rehearsal in the allocator's fast bins.
  malloc_trim(0);
  base::RecordPhase("zygote", "rehearse TorchScript (before its first case)", before);
  return !rehearsal_failed;
}

// Waits for the case process `child`, forked at `forked`, killing it once
// `timeout_seconds` (if any) have passed; how it ended.
ZygoteReply WaitForCase(pid_t child, double timeout_seconds, const base::PhaseMark& forked) {
  ZygoteReply reply{kExited, 0};
  if (timeout_seconds > 0) alarm(static_cast<unsigned>(std::ceil(timeout_seconds)));
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
  return reply;
}

// Forks a case process per request and reports how it ended. Its cases
// inherit the translations valgrind made of the worker's start-up unless
// `kind` is kTranslationsEmptied.
[[noreturn]] void ZygoteLoop(int requests_fd, int replies_fd, const std::string& scratch,
                             ZygoteKind kind) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  PrepareForCases(kind);
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
      rehearsal_failed = !RehearseBeforeFirstCase(scratch);
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
      reply = WaitForCase(child, request.timeout_seconds, forked);
    }
    if (!WriteAll(replies_fd, reinterpret_cast<const char*>(&reply), sizeof(reply))) _exit(0);
  }
}

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

// Closes the zygote's requests, so that it sees EOF and exits, and waits.
void EndZygote(const Zygote& zygote) {
  close(zygote.requests_fd);
  int status = 0;
  while (waitpid(zygote.pid, &status, 0) < 0 && errno == EINTR) {
  }
  close(zygote.replies_fd);
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

}  // namespace

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

void EndZygotes(const LanguageZygotes& zygotes) {
  EndZygote(zygotes.translations_emptied);
  if (zygotes.translations_kept.has_value()) EndZygote(*zygotes.translations_kept);
  EndZygote(zygotes.torchscript_rehearsed);
}

const Zygote& ZygoteChannel::For(const WorkOrderProto& order) const {
  const LanguageZygotes& language = IsPythonOrder(order) && python.has_value() ? *python : cpp;
  if (FromTorchScriptRehearsedZygote(order)) return language.torchscript_rehearsed;
  if (language.translations_kept.has_value() && FromTranslationsKeepingZygote(order)) {
    return *language.translations_kept;
  }
  return language.translations_emptied;
}

absl::StatusOr<WorkerResultProto> ZygoteChannel::Run(const WorkOrderProto& order,
                                                     int64_t sequence) const {
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
      ReadAll(zygote.replies_fd, reinterpret_cast<char*>(&reply), sizeof(reply)) != sizeof(reply)) {
    return absl::InternalError("worker: the zygote process is gone");
  }
  mark = base::RecordPhase("worker", "send the order, wait for the case", mark);
  const std::string case_file = CaseResultPath(scratch_directory, sequence);
  WorkerResultProto result;
  absl::StatusOr<std::string> bytes = base::ReadFileToString(case_file);
  std::remove(case_file.c_str());
  if (reply.kind == kRehearsalFailed) {
    absl::StatusOr<std::string> why = base::ReadFileToString(RehearsalErrorPath(scratch_directory));
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
    result = FailureResult(
        FAILURE_CRASH, absl::StrCat("the case exited with code ", reply.code, " without a result"));
  }
  RestoreLabels(order, result);
  result.set_id(order.id());
  result.set_seconds(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  base::RecordPhase("worker", "read the case's result", mark);
  return result;
}

}  // namespace icount::worker::internal
