#include "timer/internal/callgrind_collect.h"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/files.h"
#include "base/phase_log.h"
#include "base/subprocess.h"
#include "timer/callgrind.pb.h"
#include "timer/callgrind_command.h"
#include "timer/internal/cpp_snippet.h"
#include "timer/internal/kernel.h"
#include "timer/internal/python_snippet.h"
#include "timer/measurement_io.h"

namespace icount::timer::internal {
namespace {

std::string ChildErrorPath(const std::string& directory) {
  return absl::StrCat(directory, "/icount-child-error.txt");
}

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A failed repeat and then its template each add why to the error file:
// entries end with a NUL (a message may hold newlines, a traceback's).
void AppendChildError(const std::string& path, const std::string& error) {
  std::ofstream(path, std::ios::app) << error << '\0';
}

// The error file's entries, "; "-joined, oldest first.
std::string ReadChildErrors(const std::string& path) {
  std::vector<std::string> entries =
      absl::StrSplit(ReadSmallFile(path), '\0', absl::SkipEmpty());
  return absl::StrJoin(entries, "; ");
}

// The measured process tree, all under callgrind:
//
//   caller ──fork──> template: setup, warm-up block (instrumentation starts
//                     │         before it, so measured blocks run translated
//                     │         code), then per repeat:
//                     └─fork──> child: one measured block, dump, exit
//
// The caller never runs the statement, so measuring leaves its state as it
// was (a worker can measure case after case, each from the same state).
// A caller that is itself a throwaway fork (the worker's case process)
// plays the template instead: one fork and one exit of a ~400 MB process
// under valgrind fewer per case, and the same counts, since the repeats
// are forked from the same state either way
// (BatchInvarianceTest.TemplateInTheCaseProcessChangesNoCount).
// The template does nothing between forks but wait, so every child starts
// from the identical state (allocator, caches, interpreter) and repeats give
// identical counts; blocks run one after another in one process drift by
// ~0.4-1.5% with the state earlier runs leave. Even the last block runs in
// a child, though the template could run it itself: a forked process has a
// single thread, so glibc and LibTorch take their single-threaded paths
// there, and the template's own block counted ~10 instructions a run fewer
// or more (malloc's locks; 0.3% with 2 LibTorch threads) than its children.
struct CollectingBlocks {
  int64_t number = 0;
  int repeats = 0;
  // For the phase log (base/phase_log.h): the names of this template and
  // its children, and the last mark.
  const char* process = "template";
  const char* child_process = "repeat";
  base::PhaseMark mark;
  // Names this collection's dumps: the trigger in their headers ("desc:
  // Trigger: Client Request: <tag>") and, once renamed, their files
  // (CallgrindDumpPath).
  char tag[64] = {0};
  // Where callgrind writes this process tree's dumps (CallgrindOutDirectory).
  const char* directory = "";
  bool warmed_up = false;
  bool in_child = false;
  // CallgrindOptions::warm_up_after_fork: each repeat's child runs the
  // whole statement, setup and warm-up included (RunWholeStatementPerRepeat);
  // the child is warming up until the warm-up block's End.
  bool warm_up_after_fork = false;
  bool child_warming_up = false;
  // Set when this process is the caller as well (template_is_caller).
  bool stop_instrumentation_after = false;
  // With stop_instrumentation_after: called when the repeats are done
  // (CallgrindOptions::on_measured).
  const CallgrindDumpsCallback* on_measured = nullptr;
  std::string error;

  static int64_t Next(void* self) {
    auto* blocks = static_cast<CollectingBlocks*>(self);
    if (!blocks->warmed_up) {
      blocks->warmed_up = true;
      blocks->mark = base::RecordPhase(blocks->process, "setup", blocks->mark);
      // Throws away every translation valgrind holds: the worker's zygote
      // empties the cache once, so that this costs a case only its own.
      CALLGRIND_START_INSTRUMENTATION;
      // Collected from here on, so that the child's first dump (Begin)
      // writes every call arc used since and so resets its call count:
      // CALLGRIND_ZERO_STATS zeroes costs but not call counts, and an arc
      // the warm-up used would count the warm-up's calls too (allocations
      // per run are counted from call counts).
      CALLGRIND_TOGGLE_COLLECT;
      // A whole-statement child's warm-up is its own (no dump of it).
      blocks->child_warming_up = blocks->in_child;
      return std::min<int64_t>(blocks->number, 10);
    }
    if (blocks->in_child) {
      // Only a whole-statement child asks again, once warm: its measured
      // block. (Every child exits in the measured block's End.)
      return blocks->warm_up_after_fork ? blocks->number : -1;
    }
    blocks->mark =
        base::RecordPhase(blocks->process, "warm-up (instrumented, 10 calls)", blocks->mark);
    for (int repeat = 0; repeat < blocks->repeats; ++repeat) {
      const base::PhaseMark before_fork = base::PhaseNow();
      const pid_t child = blocks->ForkRepeat();
      if (child == 0) return blocks->number;
      if (!blocks->AwaitRepeat(child, repeat, before_fork)) break;
    }
    CALLGRIND_TOGGLE_COLLECT;  // off again, as Next found it
    blocks->Measured();
    return -1;
  }

  // Forks a repeat's child: 0 in the child (marked so), its pid in this
  // process, -1 when fork fails.
  pid_t ForkRepeat() {
    std::fflush(nullptr);
    const pid_t child = fork();
    if (child == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the template
      in_child = true;
      mark = base::PhaseNow();
    }
    return child;
  }

  // Waits for repeat `repeat`'s child and claims its dump; false, with
  // `error` set, when the fork failed, the child failed or left no dump.
  bool AwaitRepeat(pid_t child, int repeat, base::PhaseMark before_fork) {
    const base::PhaseMark forked =
        base::RecordPhase(process, "fork a repeat (parent side)", before_fork);
    if (child < 0) {
      error = absl::StrCat("fork failed: ", std::strerror(errno));
      return false;
    }
    int status = 0;
    rusage usage;
    while (wait4(child, &status, 0, &usage) < 0 && errno == EINTR) {
    }
    base::RecordChildPhase(process, "repeat (whole life)", forked.wall, usage);
    if (WIFSIGNALED(status)) {
      error = absl::StrCat("the measured statement crashed: killed by signal ", WTERMSIG(status),
                           " (", strsignal(WTERMSIG(status)), ")");
      return false;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      error = "the measured statement failed in a measured block";
      return false;
    }
    const base::PhaseMark before_claim = base::PhaseNow();
    if (!ClaimDump(child, repeat)) return false;
    mark = base::RecordPhase(process, "claim the repeat's dump", before_claim);
    return true;
  }

  // Every repeat is measured (or one failed): hands the dumps to
  // on_measured and stops instrumentation, for a caller that is the
  // template too.
  void Measured() {
    if (stop_instrumentation_after) {
      // Before instrumentation stops: stopping throws every translation
      // away (~3 ms a case), wasted on a caller that just ends its process
      // here.
      if (on_measured != nullptr && *on_measured) {
        absl::StatusOr<CallgrindDumpFiles> dumps = Dumps(error);
        (*on_measured)(dumps);
      }
      // What this process does next (report, tear down) need not be
      // instrumented: instrumented, it cost a case more than throwing the
      // translations away does.
      const base::PhaseMark before_stop = base::PhaseNow();
      CALLGRIND_STOP_INSTRUMENTATION;
      mark = base::RecordPhase(process, "stop instrumentation", before_stop);
    }
  }

  // CallgrindOptions::warm_up_after_fork: forks each repeat's child before
  // the statement runs at all, and the child runs all of it (setup, the
  // harness's warm-up run, the warm-up block, then the measured block), so
  // that nothing the warm-up starts (autograd's threads) is older than the
  // fork. The children start from the same state: repeats stay identical.
  absl::Status RunWholeStatementPerRepeat(Kernel& kernel) {
    for (int repeat = 0; repeat < repeats; ++repeat) {
      const base::PhaseMark before_fork = base::PhaseNow();
      const pid_t child = ForkRepeat();
      if (child == 0) {
        const IcountBlockControl control{this, &CollectingBlocks::Next, &CollectingBlocks::Begin,
                                         &CollectingBlocks::End};
        const absl::Status status = kernel.Run(control);
        // Here only when the statement failed: the measured block exits.
        AppendChildError(ChildErrorPath(directory),
                         status.ok() ? error : std::string(status.message()));
        _exit(1);
      }
      if (!AwaitRepeat(child, repeat, before_fork)) break;
    }
    Measured();
    return absl::OkStatus();
  }

  // Renames the measured dump of the repeat child `child` (callgrind names
  // it "<directory>/callgrind.out.<pid>.2", FormatCallgrindProcessFile: the
  // second dump of that pid) to CallgrindDumpPath(directory, tag, repeat),
  // and removes the child's first dump (Begin's) and the empty final
  // profile its exit left. So the
  // caller finds the dumps by name, without listing the directory or
  // reading any file (13 ms a case under valgrind when it did). Runs
  // between forks: nothing here may allocate, or later repeats would
  // inherit a different heap.
  bool ClaimDump(pid_t child, int repeat) {
    RemoveCallgrindFinalProfile(static_cast<int>(child));
    char dump[4096];
    char claimed[4096];
    if (!FormatCallgrindProcessFile(dump, sizeof(dump), directory, static_cast<int>(child),
                                    /*dump=*/1)) {
      error = absl::StrCat("the callgrind output directory's path is too long: ", directory);
      return false;
    }
    unlink(dump);  // Begin's dump: everything before the measured block
    if (!FormatCallgrindProcessFile(dump, sizeof(dump), directory, static_cast<int>(child),
                                    /*dump=*/2) ||
        !FormatCallgrindDumpPath(claimed, sizeof(claimed), directory, tag, repeat)) {
      error = absl::StrCat("the callgrind output directory's path is too long: ", directory);
      return false;
    }
    if (std::rename(dump, claimed) != 0) {
      error =
          absl::StrCat("the measured child left no dump at ", dump, " (", std::strerror(errno),
                       "): is this process running under valgrind with --callgrind-out-file=<dir>/",
                       kCallgrindOutFilePrefix, "%p and ", kCallgrindOutDirEnv,
                       "=<dir>, as CallgrindCommand (timer/callgrind_command.h) starts it?");
      return false;
    }
    return true;
  }

  // Why this collection failed: what a failed child or template reported
  // (ChildErrorPath), then `own`.
  absl::Status Failure(const std::string& own) const {
    const std::string error_path = ChildErrorPath(directory);
    const std::string child = ReadChildErrors(error_path);
    const std::string message = child.empty() || own.empty() ? child + own : child + "; " + own;
    std::remove(error_path.c_str());
    return absl::AbortedError(message.empty() ? "the measuring process failed" : message);
  }

  // This collection's dumps, oldest first, or Failure(failure) when
  // `failure` is not empty.
  absl::StatusOr<CallgrindDumpFiles> Dumps(const std::string& failure) const {
    if (!failure.empty()) return Failure(failure);
    CallgrindDumpFiles dumps;
    for (int repeat = 0; repeat < repeats; ++repeat) {
      dumps.stmt_dumps.push_back(CallgrindDumpPath(directory, tag, repeat));
    }
    return dumps;
  }
  static void Begin(void* self) {
    auto* blocks = static_cast<CollectingBlocks*>(self);
    if (!blocks->in_child || blocks->child_warming_up) return;  // warm-up
    blocks->mark =
        base::RecordPhase(blocks->child_process, "from fork to the measured block", blocks->mark);
    // Zeroes costs and, for every arc it writes, call counts (collection
    // has been on since the warm-up, so that is every arc used since
    // instrumentation started); the file is thrown away in ClaimDump.
    CALLGRIND_DUMP_STATS_AT(blocks->tag);
  }
  static void End(void* self) {
    auto* blocks = static_cast<CollectingBlocks*>(self);
    if (blocks->child_warming_up) {
      blocks->child_warming_up = false;
      blocks->mark = base::RecordPhase(blocks->child_process, "setup and warm-up after the fork",
                                       blocks->mark);
      return;
    }
    if (!blocks->in_child) return;
    CALLGRIND_TOGGLE_COLLECT;
    blocks->mark = base::RecordPhase(blocks->child_process, "measured block", blocks->mark);
    CALLGRIND_DUMP_STATS_AT(blocks->tag);
    base::RecordPhase(blocks->child_process, "dump", blocks->mark);
    // The child's work is done; skip destructors and atexit handlers that
    // belong to the caller's state.
    _exit(0);
  }
};

// Names the processes of `blocks` in the phase log and tags its dumps.
void NameCollection(bool baseline, const std::string& dump_tag, CollectingBlocks* blocks) {
  // Nothing here may depend on what earlier collections left behind (like
  // the number of files in the directory): the measured children inherit
  // this process's heap.
  static int collection = 0;
  if (baseline) {
    blocks->process = "baseline template";
    blocks->child_process = "baseline repeat";
  }
  ++collection;
  if (dump_tag.empty()) {
    std::snprintf(blocks->tag, sizeof(blocks->tag), "icount-%d-%d", static_cast<int>(getpid()),
                  collection);
  } else {
    std::snprintf(blocks->tag, sizeof(blocks->tag), "%s%s", dump_tag.c_str(),
                  baseline ? "-baseline" : "");
  }
}

// The template's side of CollectBlocks: runs `kernel`, forking a child per
// repeat. Returns the dumps where the caller is the template
// (`template_is_caller`); a forked template, or a child whose statement
// failed, exits, writing any error to `error_path`.
absl::StatusOr<CallgrindDumpFiles> RunTemplate(Kernel& kernel, bool template_is_caller,
                                               const CallgrindDumpsCallback* on_measured,
                                               const std::string& error_path,
                                               CollectingBlocks* blocks) {
  if (template_is_caller) {
    blocks->process = "case";
    blocks->child_process = "case's repeat";
    blocks->stop_instrumentation_after = true;
    blocks->on_measured = on_measured;
  } else {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the caller
  }
  blocks->mark = base::PhaseNow();
  const IcountBlockControl control{blocks, &CollectingBlocks::Next, &CollectingBlocks::Begin,
                                   &CollectingBlocks::End};
  const absl::Status status = blocks->warm_up_after_fork
                                  ? blocks->RunWholeStatementPerRepeat(kernel)
                                  : kernel.Run(control);
  // Here in the template when all children are done, or in a child whose
  // statement failed mid-block (a child otherwise exits after its dump).
  std::string error = blocks->error;
  if (!status.ok()) error = std::string(status.message());
  if (template_is_caller && !blocks->in_child) {
    base::RecordPhase("case", "leave the statement (its setup's state freed)", blocks->mark);
    return blocks->Dumps(error);
  }
  if (!error.empty()) {
    AppendChildError(error_path, error);
    _exit(1);
  }
  _exit(0);
}

// The caller's side of CollectBlocks: waits for the template forked at
// `before_fork` and returns its children's dumps.
absl::StatusOr<CallgrindDumpFiles> AwaitTemplate(pid_t template_pid, bool baseline,
                                                 const base::PhaseMark& before_fork,
                                                 const CollectingBlocks& blocks) {
  base::PhaseMark mark = base::RecordPhase("case", "fork a template (parent side)", before_fork);
  int status = 0;
  rusage usage;
  while (wait4(template_pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  base::RecordChildPhase("case",
                         baseline ? "baseline template (whole life)" : "template (whole life)",
                         mark.wall, usage);
  RemoveCallgrindFinalProfile(static_cast<int>(template_pid));
  if (WIFSIGNALED(status)) {
    return absl::AbortedError(
        absl::StrCat("the statement's setup or warm-up crashed: killed by signal ",
                     WTERMSIG(status), " (", strsignal(WTERMSIG(status)), ")"));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return blocks.Failure("");
  return blocks.Dumps("");
}

// Runs `kernel` in a template process (see CollectingBlocks) and returns the
// dumps of its `repeats` measured children, oldest first. `baseline` names
// the processes in the phase log (base/phase_log.h). With
// `template_is_caller` this process is the template: no fork of its own,
// and `on_measured` (may be null) is called as soon as the repeats are done.
absl::StatusOr<CallgrindDumpFiles> CollectBlocks(Kernel& kernel, int64_t number, int repeats,
                                                 bool baseline, bool template_is_caller,
                                                 const CallgrindDumpsCallback* on_measured,
                                                 const std::string& dump_tag,
                                                 bool warm_up_after_fork) {
  CollectingBlocks blocks;
  blocks.number = number;
  blocks.repeats = repeats;
  blocks.warm_up_after_fork = warm_up_after_fork;
  NameCollection(baseline, dump_tag, &blocks);
  const std::string directory = CallgrindOutDirectory();
  blocks.directory = directory.c_str();
  const std::string error_path = ChildErrorPath(directory);
  std::remove(error_path.c_str());
  std::fflush(nullptr);
  const base::PhaseMark before_fork = base::PhaseNow();
  const pid_t template_pid = template_is_caller ? getpid() : fork();
  if (template_pid < 0) {
    return absl::InternalError(absl::StrCat("fork failed: ", std::strerror(errno)));
  }
  if (template_is_caller || template_pid == 0) {
    return RunTemplate(kernel, template_is_caller, on_measured, error_path, &blocks);
  }
  return AwaitTemplate(template_pid, baseline, before_fork, blocks);
}

// The C++ strings' baseline: an empty body inlined into the timed loop, as
// a C++ string's is (the snippet harness's always-inlined lambda), compiled
// with -O2 as the snippets and the suite's cases are, so that the loop's
// own instructions cancel and an empty statement counts 0. (A function
// pointer here would add an indirect call per run to the baseline alone,
// and every C++ count would read 2 instructions low.) A callable's
// baseline is its kernel's EmptyStatement, compiled beside it.
using EmptyCppStatement = CallableKernel<EmptyBodyFor<void>>;

}  // namespace

absl::StatusOr<CallgrindDumpFiles> CollectInThisProcess(Kernel& stmt, Kernel* baseline,
                                                        int64_t number, int repeats,
                                                        int num_threads, bool template_is_caller,
                                                        const CallgrindDumpsCallback* on_measured,
                                                        const std::string& dump_tag,
                                                        bool warm_up_after_fork) {
  if (!RUNNING_ON_VALGRIND) {
    return absl::FailedPreconditionError("CollectInThisProcess needs to run under valgrind");
  }
  if (template_is_caller && baseline != nullptr) {
    return absl::InvalidArgumentError(
        "a baseline is measured in a template forked from a clean caller: the caller cannot be "
        "the template as well");
  }
  const base::PhaseMark start = base::PhaseNow();
  ScopedTorchThreads threads(num_threads);
  base::RecordPhase("case", "set LibTorch's thread count", start);
  // Instrumentation starts in each template process; the caller runs
  // uninstrumented (fast) throughout, or, as the template itself, stops it
  // after the repeats.
  absl::StatusOr<CallgrindDumpFiles> dumps =
      CollectBlocks(stmt, number, repeats, /*baseline=*/false, template_is_caller, on_measured,
                    dump_tag, warm_up_after_fork);
  if (!dumps.ok() || baseline == nullptr) return dumps;
  absl::StatusOr<CallgrindDumpFiles> baseline_dumps =
      CollectBlocks(*baseline, number, 1, /*baseline=*/true, /*template_is_caller=*/false,
                    /*on_measured=*/nullptr, dump_tag, /*warm_up_after_fork=*/false);
  if (!baseline_dumps.ok()) return baseline_dumps.status();
  dumps->baseline_dump = baseline_dumps->stmt_dumps[0];
  return dumps;
}

absl::StatusOr<std::shared_ptr<Kernel>> MakeBaselineKernel(Language language) {
  if (language == Language::kCpp) return std::make_shared<EmptyCppStatement>(EmptyBodyFor<void>{});
  absl::StatusOr<std::shared_ptr<PythonSnippet>> pass = PythonSnippet::Compile("pass", "");
  if (!pass.ok()) return pass.status();
  class PythonPass final : public Kernel {
   public:
    explicit PythonPass(std::shared_ptr<PythonSnippet> snippet) : snippet_(std::move(snippet)) {}
    absl::Status Run(const IcountBlockControl& control) override { return snippet_->Run(control); }

   private:
    std::shared_ptr<PythonSnippet> snippet_;
  };
  return std::make_shared<PythonPass>(*std::move(pass));
}

absl::StatusOr<base::CommandResult> RunUnderCallgrind(const std::vector<std::string>& command,
                                                      std::vector<std::string> env,
                                                      const std::string& out_directory,
                                                      bool cache_sim,
                                                      const std::string& working_directory,
                                                      double timeout_seconds) {
  absl::StatusOr<std::vector<std::string>> argv =
      CallgrindCommand(command, out_directory, cache_sim);
  if (!argv.ok()) return argv.status();
  env.push_back(CallgrindOutDirectoryEnv(out_directory));
  PadEnvironmentForStackLayout(command, env);
  base::CommandOptions options;
  options.env = std::move(env);
  options.reproducible_layout = true;
  options.working_directory = working_directory;
  // A program killed while valgrind measures for it leaves no valgrind.
  options.die_with_parent = true;
  options.timeout_seconds = timeout_seconds;
  return base::RunCommand(*argv, options);
}

std::string ChildRequestPath(const std::string& directory) {
  return absl::StrCat(directory, "/request.pb");
}

std::string ChildResultPath(const std::string& directory) {
  return absl::StrCat(directory, "/result.pb");
}

absl::Status WriteChildResult(const std::string& directory,
                              const absl::StatusOr<CallgrindDumpFiles>& dumps) {
  timer::CallgrindChildResultProto result;
  if (dumps.ok()) {
    for (const std::string& dump : dumps->stmt_dumps) result.add_stmt_dumps(dump);
    result.set_baseline_dump(dumps->baseline_dump);
  } else {
    result.set_error(std::string(dumps.status().message()));
  }
  return base::WriteFileAtomically(ChildResultPath(directory), result.SerializeAsString());
}

absl::Status WriteReplayMismatch(const std::string& directory, const std::string& reached) {
  timer::CallgrindChildResultProto result;
  result.set_replay_reached(reached);
  return base::WriteFileAtomically(ChildResultPath(directory), result.SerializeAsString());
}

}  // namespace icount::timer::internal
