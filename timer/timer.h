#ifndef ICOUNT_TIMER_TIMER_H_
#define ICOUNT_TIMER_TIMER_H_

// icount's Timer: wall time of a C++ callable, a C++ statement string or a
// Python statement string, with torch.utils.benchmark.Timer's algorithms.
//
// A C++ lambda that captured its setup:
//
//   torch::Tensor x = torch::ones({4, 4});
//   icount::timer::TimerOptions options;
//   options.label = "add";
//   icount::timer::Timer timer =
//       icount::timer::Timer::ForCallable([&] { torch::add(x, x); }, options);
//   absl::StatusOr<icount::timer::Measurement> m = timer.BlockedAutorange();
//   if (m.ok()) std::cout << m->Summary() << "\n";
//
// A C++ string, compiled at run time against LibTorch's headers (cached on
// disk, so the second Timer with the same code does not compile again):
//
//   absl::StatusOr<icount::timer::Timer> timer = icount::timer::Timer::ForCpp(
//       /*stmt=*/"auto z = torch::add(x, y);",
//       /*setup=*/"auto x = torch::ones({4, 4}); auto y = torch::ones({4, 4});");
//
// A Python string, run by embedded CPython 3.11 with `torch` imported:
//
//   absl::StatusOr<icount::timer::Timer> timer = icount::timer::Timer::ForPython(
//       "torch.add(x, y)", "x = torch.ones(4, 4); y = torch.ones(4, 4)");
//
// Every method runs with LibTorch's thread count set to options.num_threads
// (default 1) and restores the previous count afterwards. A statement that
// throws (c10::Error, std::exception, a Python exception) gives an error
// Status with its message (and the Python traceback), never a crash.
//
// Statements run in the calling process, as any code you call: one that
// crashes (a null pointer, abort()), calls exit() or never returns takes the
// caller with it. To survive such statements, measure in a child process:
// base::RunInChild (base/subprocess.h) reports the signal, the exit or the
// timeout, as //tools:timeit does; the suite's worker runs every case in a
// process of its own. (Instruction counts, CollectCallgrind, always run in a
// child under valgrind; a crash there is an error Status.)
//
// Method names follow abseil style; they map one to one onto the
// reference's: timeit -> Timeit, blocked_autorange -> BlockedAutorange,
// adaptive_autorange -> AdaptiveAutorange.

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "timer/callgrind_dumps.h"
#include "timer/callgrind_stats.h"
#include "timer/internal/kernel.h"
#include "timer/measurement.h"
#include "timer/snippet_abi.h"
#include "timer/task_spec.h"

namespace icount::timer {

// A clock in seconds. Injectable so tests can drive the algorithms.
using Clock = std::function<double()>;
// The default clock: std::chrono::steady_clock (like time.perf_counter).
double SteadyClockSeconds();

// How Timer::BlockedAutorange picks its block size: the smallest power of
// ten of runs whose block takes at least `min_block_share` of min_run_time
// and whose timer overhead (an empty block's time) is at most
// `max_timer_overhead` of the block. The defaults are the reference's.
struct BlockRule {
  double max_timer_overhead = 1e-4;
  double min_block_share = 1e-3;
};

struct TimerOptions {
  std::optional<std::string> label;
  std::optional<std::string> sub_label;
  std::optional<std::string> description;
  std::optional<std::string> env;
  int num_threads = 1;
  Clock clock;  // empty: SteadyClockSeconds
};

// Options of Timer::CollectCallgrind (the reference's collect_callgrind
// arguments).
struct CallgrindOptions {
  // Runs of the statement per measured region.
  int64_t number = 100;
  // Measured regions, each dumped and returned separately.
  int repeats = 1;
  // Also measure the same loop around an empty statement, so CountsPerRun()
  // can subtract the loop's own instructions.
  bool collect_baseline = true;
  // For a caller that measures the baseline once itself (Timer::ForBaseline)
  // and attaches it to many statements' stats: no baseline is measured
  // here, but the process still prepares one as collect_baseline would, so
  // the heap the measured blocks inherit, and with it every count, stays
  // exactly as with collect_baseline (counts follow the allocator's state,
  // up to ~1% for a few bytes allocated or not).
  bool baseline_measured_by_caller = false;
  // Keep each repeat's callgrind out file (for KCachegrind) and report its
  // path in CallgrindStats::stmt_callgrind_out().
  bool retain_out_file = false;
  // Also simulate caches (timer/cache_model.h), for
  // CallgrindStats::EstimatedCyclesPerRun(); counting takes ~20% longer.
  bool cache_sim = false;
  // Under valgrind, for a caller that is a throwaway process (the suite's
  // worker forks one per case): run setup and warm-up in this process and
  // fork the measured repeats from it, instead of from a template process
  // forked for them. The counts are the same; a fork and an exit of a
  // ~400 MB process under valgrind are saved. This process is left holding
  // the statement's setup state (instrumentation stopped again), and a
  // crash in setup or warm-up kills it. Needs the baseline measured
  // elsewhere (collect_baseline = false, or baseline_measured_by_caller).
  bool measure_in_this_process = false;
  // With measure_in_this_process: called in this process as soon as the
  // repeats are done, with their dumps or why they failed, while the
  // statement and its setup's state are still alive and instrumentation is
  // still on. A caller with nothing left to do ends its process here and
  // skips tearing all that down (~30 ms a case under valgrind,
  // bench/case_phases.py) and stopping instrumentation (which throws every
  // translation away, ~3 ms). Everything it runs first is translated
  // instrumented, dearer than usual: a callback with real work to do (say,
  // writing a result file) stops instrumentation itself first. If it
  // returns, instrumentation stops and CollectCallgrindDumps returns the
  // same dumps as usual.
  //
  //   options.on_measured = [&](const absl::StatusOr<CallgrindDumpFiles>& dumps) {
  //     CALLGRIND_STOP_INSTRUMENTATION;  // <valgrind/callgrind.h>
  //     WriteMyResult(dumps);
  //     _exit(0);
  //   };
  CallgrindDumpsCallback on_measured;
  // Runs the warm-up in each measured repeat's process, after its fork,
  // rather than once before the repeats fork. For statements that run
  // autograd's backward: PyTorch 2.x refuses backward in a process forked
  // after the autograd engine started its threads ("Unable to handle
  // autograd's threading in combination with fork-based multiprocessing"),
  // and the warm-up starts them. Each repeat then measures the same block
  // after the same warm-up, its own; repeats stay identical.
  bool warm_up_after_fork = false;
  // Names the dumps CollectCallgrindDumps leaves, so that a process other
  // than the measuring one can find them without being told:
  // CallgrindDumpPath(CallgrindOutDirectory(), dump_tag, repeat)
  // (timer/callgrind_command.h); a baseline measured alongside is tagged
  // "<dump_tag>-baseline". Up to 40 of [A-Za-z0-9._-], unique among the
  // collections sharing the directory. Empty: "icount-<pid>-<n>".
  std::string dump_tag;
  // Outside valgrind: when above 0, the process measured under callgrind
  // (and what it started) is killed after this many seconds, and
  // CollectCallgrind is DeadlineExceeded, for a statement that may hang or
  // a re-executed binary that blocks before its call (say, on a lock the
  // caller holds). 0: no limit. Include valgrind's start of LibTorch, 5-30 s.
  double timeout_seconds = 0;
};

// Called after each measured block with its number of runs and its seconds.
using BlockCallback = std::function<void(int64_t number, double seconds)>;

class Timer {
 public:
  // Times `callable()`. `stmt` names it in results (tables show it when
  // there is no sub_label).
  template <typename F>
  static Timer ForCallable(F callable, TimerOptions options = {},
                           std::string stmt = "[C++ callable]") {
    TaskSpec spec = MakeTaskSpec(std::move(stmt), "", "", Language::kCpp, options);
    return Timer(std::make_shared<timer::internal::CallableKernel<F>>(std::move(callable)),
                 std::move(spec), std::move(options.clock), /*code_in_this_binary=*/true);
  }

  // Compiles `stmt` (with `setup` run before the timed loop and
  // `global_setup` at namespace scope, e.g. #includes) into a shared object.
  // <torch/script.h> is included for you; add <torch/torch.h> in
  // global_setup for torch::nn. A compile error is InvalidArgument with the
  // compiler's message located in "stmt", "setup" or "global_setup" lines.
  static absl::StatusOr<Timer> ForCpp(const std::string& stmt, const std::string& setup = "",
                                      const std::string& global_setup = "",
                                      TimerOptions options = {});

  // A C++ statement compiled into this binary ahead of time, with the
  // snippet ABI (timer/snippet_abi.h), e.g. a case of a suite
  // generated at build time. `spec` describes it (stmt, setup, labels).
  static Timer ForCompiledEntry(IcountSnippetEntry entry, TaskSpec spec);

  // The task_spec() of a Timer made by ForCpp or ForPython from `spec`'s
  // strings, language and options: stmt and setup normalized
  // (base::NormalizeSnippet: common indentation, trailing whitespace and
  // leading and trailing blank lines dropped, the form the suite's cases
  // have too), C++'s setup "pass" read as none, Python's global_setup
  // dropped. For a process
  // that reports on a Timer made elsewhere (the suite's worker for its case
  // processes):
  //
  //   Timer::StringTaskSpec(spec).stmt  // == Timer::ForPython(...)->task_spec().stmt
  static TaskSpec StringTaskSpec(TaskSpec spec);

  // Python `stmt` after `setup`, with `torch` in scope. A syntax error is
  // InvalidArgument with Python's message.
  static absl::StatusOr<Timer> ForPython(const std::string& stmt, const std::string& setup = "pass",
                                         TimerOptions options = {});

  // The empty statement CollectCallgrind subtracts from a string's counts
  // as its baseline (an empty C++ body inlined into the timed loop, as a
  // C++ string's is, or Python `pass`: an empty statement counts 0 a run),
  // to measure on its own. (A callable's baseline is an empty body of its
  // own, compiled beside the callable and with its flags, so that an empty
  // lambda counts 0 in a -O0 test as in a -O2 program.) Its count
  // depends on the language, number and thread count, not on the statement
  // it is subtracted from, so a program measuring many statements can
  // measure it once (collect_baseline = false here and there) and attach it
  // to each (the suite's worker does, worker/worker.cc):
  //
  //   absl::StatusOr<icount::timer::Timer> empty =
  //       icount::timer::Timer::ForBaseline(icount::timer::Language::kPython);
  //   icount::timer::CallgrindOptions options;
  //   options.collect_baseline = false;
  //   absl::StatusOr<std::vector<icount::timer::CallgrindStats>> loop =
  //       empty->CollectCallgrind(options);
  static absl::StatusOr<Timer> ForBaseline(Language language, TimerOptions options = {});

  // Runs the statement max(number / 100, 2) times to warm up, then `number`
  // times in one timed block.
  absl::StatusOr<Measurement> Timeit(int64_t number = 1000000);

  // Picks a block size (a power of ten, below 2^31) whose timer overhead is
  // negligible (BlockRule), then times blocks until min_run_time seconds
  // are spent. A looser rule gives more, smaller blocks in the same time:
  // the suite's worker (worker/internal/case_process.cc) takes 0.1% overhead, so a Python
  // case times tens of blocks in 0.05 s instead of 1-14.
  absl::StatusOr<Measurement> BlockedAutorange(double min_run_time = 0.2,
                                               const BlockCallback& callback = nullptr,
                                               const BlockRule& rule = {});

  // BlockedAutorange with a block size chosen elsewhere (e.g. by an earlier
  // measurement of the same statement, so two measurements compare like
  // with like): one untimed block of `number` runs to warm up, then
  // blocks of `number` runs until min_run_time seconds are spent.
  absl::StatusOr<Measurement> TimeBlocks(int64_t number, double min_run_time,
                                         const BlockCallback& callback = nullptr);

  // Like BlockedAutorange, but keeps timing (at least min_run_time, at most
  // max_run_time seconds) until IQR / median < threshold, after more than 3
  // blocks.
  absl::StatusOr<Measurement> AdaptiveAutorange(double threshold = 0.1, double min_run_time = 0.01,
                                                double max_run_time = 10.0,
                                                const BlockCallback& callback = nullptr);

  // Instruction counts of `number` runs, once per repeat, with valgrind's
  // callgrind. Outside valgrind this starts a child process under
  // `valgrind --tool=callgrind`, counting only the measured region: for C++
  // and Python strings the runner binary shipped with //timer; for a C++
  // callable this very binary, re-executed with the same arguments, which
  // replays the program up to this call and measures it (so the program
  // must be deterministic up to here). Either child runs pinned: ASLR off
  // and a clean environment (PATH, HOME, TMPDIR, PYTHONHASHSEED=0, LC_ALL=C,
  // OMP_NUM_THREADS, ICOUNT_CACHE_DIR; LD_LIBRARY_PATH, LD_PRELOAD,
  // PYTHONPATH and ICOUNT_CXX pass through; so do gtest's and Bazel's test
  // selection, GTEST_FILTER and TESTBRIDGE_TEST_ONLY among them, so that a
  // filtered test binary replays the tests it ran), so a re-executed program
  // must not need other variables to reach this call. The replay checks that
  // its call is this statement (stmt, setup, labels, threads) and is
  // FailedPrecondition naming the one it reached otherwise, never that
  // one's counts under this label. Inside valgrind it measures
  // in this process with client requests. The same binary and input give
  // the same counts, run after run. Binaries that link LibTorch through
  // //third_party/libtorch also run under valgrind on CPUs whose CPUID
  // hides RDTSCP (third_party/libtorch/README.md).
  //
  //   absl::StatusOr<std::vector<CallgrindStats>> stats = timer.CollectCallgrind();
  //   (*stats)[0].CountsPerRun();  // e.g. 9388.1 instructions per torch::add
  //
  // Errors: FailedPrecondition when valgrind is missing (wall time still
  // works); Aborted with the statement's error when it throws or crashes,
  // or, when the child under valgrind dies, with its exit, its output and
  // what valgrind's log says (e.g. an instruction valgrind cannot run, the
  // function and the library it is in).
  absl::StatusOr<std::vector<CallgrindStats>> CollectCallgrind(
      const CallgrindOptions& options = {}) const;

  // Under valgrind only: measures as CollectCallgrind does but returns the
  // dump files unparsed, for a process outside valgrind to read with
  // CallgrindStatsFromDumps (parsing under valgrind is 5-10x slower). The
  // suite's case processes do this and their runner parses:
  //
  //   // in the process under valgrind
  //   absl::StatusOr<icount::timer::CallgrindDumpFiles> dumps =
  //       timer.CollectCallgrindDumps(options);
  //   // in a native process (timer/callgrind_dumps.h)
  //   absl::StatusOr<std::vector<icount::timer::CallgrindStats>> stats =
  //       icount::timer::CallgrindStatsFromDumps(timer.task_spec(), options.number, *dumps,
  //                                       /*keep_files=*/false);
  absl::StatusOr<CallgrindDumpFiles> CollectCallgrindDumps(const CallgrindOptions& options) const;

  // One block of `number` runs (0 or more) after setup: seconds, at least
  // 1e-9 as in the reference. Does not set the thread count.
  absl::StatusOr<double> TimeBlock(int64_t number) const;

  const TaskSpec& task_spec() const { return spec_; }

  // The statement's block runner, for collectors other than the wall clock
  // (callgrind).
  const std::shared_ptr<timer::internal::Kernel>& kernel() const { return kernel_; }

 private:
  Timer(std::shared_ptr<timer::internal::Kernel> kernel, TaskSpec spec, Clock clock,
        bool code_in_this_binary);
  static TaskSpec MakeTaskSpec(std::string stmt, std::string setup, std::string global_setup,
                               Language language, const TimerOptions& options);
  // InvalidArgument unless the spec's num_threads is positive: ForCallable
  // and ForCompiledEntry return a Timer, not a Status, so their measuring
  // calls check it.
  absl::Status CheckThreads() const;
  absl::StatusOr<int64_t> EstimateBlockSize(double min_run_time, const BlockRule& rule) const;
  absl::StatusOr<Measurement> MeasurementLoop(
      int64_t number, double min_run_time, std::optional<double> max_run_time,
      const std::function<bool(const std::vector<double>&)>& can_stop,
      const BlockCallback& callback) const;

  std::shared_ptr<timer::internal::Kernel> kernel_;
  TaskSpec spec_;
  Clock clock_;
  // Whether the statement is code of this binary (a callable or a compiled
  // entry) rather than a string a runner can rebuild: decides how
  // CollectCallgrind reaches it from outside valgrind (re-executing this
  // binary rather than starting callgrind_runner).
  bool code_in_this_binary_;
};

// Sets LibTorch's thread count for a scope (see timer/internal/kernel.h).
using ScopedTorchThreads = timer::internal::ScopedTorchThreads;

// Starts the embedded CPython and imports torch now, once per process,
// rather than at the first Python statement: a process that forks per case
// (the worker's zygote) pays this before forking, so no case does.
absl::Status InitializeEmbeddedPython();

}  // namespace icount::timer

#endif  // ICOUNT_TIMER_TIMER_H_
