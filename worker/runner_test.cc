// The runner and the worker binary together: failures are isolated and
// reported, results are durable and resumable, and instruction counts do
// not depend on what else a worker ran.
#include "worker/runner.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <future>
#include <iterator>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/runfiles_testutil.h"
#include "base/text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "timer/callgrind.pb.h"
#include "timer/measurement_io.h"

namespace icount::worker {
namespace {

using ::testing::HasSubstr;

std::string WorkerPath() {
  return base::TestRunfile("icount/worker/worker");
}

std::string TempPath(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
}

// What workers' command lines hold: the runner starts each as
// /tmp/icount-path-XXXXXX/worker, whatever TMPDIR is.
constexpr char kWorkerCommandMark[] = "/tmp/icount-path-";

WorkOrderProto PythonOrder(const std::string& id, const std::string& stmt,
                           const std::string& setup = "pass") {
  WorkOrderProto order;
  order.set_id(id);
  order.mutable_task_spec()->set_stmt(stmt);
  order.mutable_task_spec()->set_setup(setup);
  order.mutable_task_spec()->set_label(id);
  order.mutable_task_spec()->set_language(timer::PYTHON);
  order.set_wall_time(true);
  order.set_min_run_time(0.02);
  return order;
}

// A case that takes 30 s, once it has created `started` (its setup runs
// before the statement): the file is the event a test waits on to signal
// into it rather than between cases.
WorkOrderProto SlowOrder(const std::string& id, const std::string& started) {
  return PythonOrder(id, "import time; time.sleep(30)",
                     absl::StrCat("open(", base::PythonRawLiteral(started), ", 'w').close()"));
}

// Returns once `path` exists.
void WaitForFile(const std::string& path) {
  while (access(path.c_str(), F_OK) != 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

RunnerOptions Options(const std::string& journal) {
  RunnerOptions options;
  options.worker_path = WorkerPath();
  options.journal_path = TempPath(journal);
  options.retries = 1;
  return options;
}

TEST(RunnerTest, FailuresAreIsolatedAndReported) {
  std::vector<WorkOrderProto> orders = {
      PythonOrder("ok", "torch.add(x, x)", "x = torch.ones(4, 4)"),
      PythonOrder("segfault", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"),
      PythonOrder("hang", "while True: pass"),
      PythonOrder("raises", "raise ValueError('bad case')"),
      PythonOrder("ok too", "torch.mul(x, x)", "x = torch.ones(4, 4)"),
  };
  orders[2].set_timeout_seconds(2);
  std::vector<RunnerProgress> progress;
  RunnerOptions options = Options("failures.journal");
  options.on_progress = [&](const RunnerProgress& p) { progress.push_back(p); };
  absl::StatusOr<RunnerReport> report = RunOrders(orders, options);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->results.size(), 5u);
  const auto& r = report->results;
  EXPECT_TRUE(r[0].has_output());
  EXPECT_GT(r[0].output().wall_time().raw_times_size(), 0);
  EXPECT_EQ(r[1].failure().kind(), FAILURE_CRASH);
  EXPECT_THAT(r[1].failure().reason(), HasSubstr("signal 11"));
  EXPECT_EQ(r[2].failure().kind(), FAILURE_TIMEOUT);
  EXPECT_EQ(r[3].failure().kind(), FAILURE_MEASURE);
  EXPECT_THAT(r[3].failure().reason(), HasSubstr("ValueError: bad case"));
  EXPECT_TRUE(r[4].has_output());
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress.back().done, 5);
  EXPECT_EQ(progress.back().failed, 3);
  // Everything finished is in the journal.
  absl::StatusOr<std::vector<WorkerResultProto>> journal = ReadJournal(options.journal_path);
  ASSERT_TRUE(journal.ok()) << journal.status();
  EXPECT_EQ(journal->size(), 5u);
}

// A C++ case its side's worker was built without (it does not compile
// against that LibTorch) fails with the compiler's error and never reaches
// a worker (which would say it has no such case); the rest runs.
TEST(RunnerTest, ACaseThatDidNotCompileFailsWithItsErrorAndTheRestRuns) {
  WorkOrderProto uncompiled = PythonOrder("uncompiled", "");
  uncompiled.mutable_task_spec()->set_language(timer::CPP);
  uncompiled.set_compiled_case("InferenceMode/View|Eager|Forward|C++|1");
  const std::vector<WorkOrderProto> orders = {uncompiled, PythonOrder("runs", "pass")};
  RunnerOptions options = Options("uncompiled.journal");
  options.uncompiled_cases[uncompiled.compiled_case()] =
      "standard.cc (InferenceMode / View, C++ Eager Forward):341:25: error: no matching function";
  std::vector<RunnerProgress> progress;
  options.on_progress = [&](const RunnerProgress& p) { progress.push_back(p); };
  absl::StatusOr<RunnerReport> report = RunOrders(orders, options);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->results.size(), 2u);
  EXPECT_EQ(report->results[0].id(), "uncompiled");
  EXPECT_EQ(report->results[0].failure().kind(), FAILURE_COMPILE);
  EXPECT_EQ(report->results[0].failure().reason(),
            "does not compile against this side's LibTorch: standard.cc (InferenceMode / View, "
            "C++ Eager Forward):341:25: error: no matching function");
  EXPECT_TRUE(report->results[1].has_output());
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress.back().done, 2);
  EXPECT_EQ(progress.back().failed, 1);
  EXPECT_EQ(ReadJournal(options.journal_path).value().size(), 2u);
}

// A statement that ends its case process is a failure that says so, under
// valgrind too, where a measured case process ends itself with an exit code
// of its own (86) and the worker makes its result: a statement that exits
// with that code left no dumps.
TEST(RunnerTest, AStatementThatEndsItsProcessIsAFailureWhateverTheExitCode) {
  std::vector<WorkOrderProto> orders = {
      PythonOrder("exits 0", "pass", "import os; os._exit(0)"),
      PythonOrder("exits 86", "pass", "import os; os._exit(86)"),
      PythonOrder("counted", "torch.add(x, x)", "x = torch.ones(4, 4)"),
  };
  for (WorkOrderProto& order : orders) {
    order.set_wall_time(false);
    order.set_callgrind(true);
    order.set_callgrind_number(10);
  }
  RunnerOptions options = Options("exits.journal");
  options.retries = 0;
  absl::StatusOr<RunnerReport> report = RunOrders(orders, options);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->results.size(), 3u);
  const auto& r = report->results;
  EXPECT_EQ(r[0].failure().kind(), FAILURE_CRASH);
  EXPECT_THAT(r[0].failure().reason(), HasSubstr("exited with code 0 without a result"));
  EXPECT_EQ(r[1].failure().kind(), FAILURE_CRASH);
  EXPECT_THAT(r[1].failure().reason(), HasSubstr("left no dump at"));
  EXPECT_THAT(r[1].failure().reason(), HasSubstr("end the process?"));
  ASSERT_TRUE(r[2].has_output()) << r[2].failure().reason();
  ASSERT_EQ(r[2].output().callgrind_size(), 1);
  EXPECT_GT(r[2].output().callgrind(0).number_per_run(), 0);
}

// A worker killed in the middle of a case (the OOM killer, a user's kill):
// the case is retried on a new worker and, killed again, reported; the
// other orders are measured.
TEST(RunnerTest, AWorkerKilledMidCaseIsReportedAndTheRunGoesOn) {
  // The case's parent is the zygote, whose parent is the worker.
  const std::string kill_worker =
      "import os, signal\n"
      "zygote = os.getppid()\n"
      "worker = int(open('/proc/%d/stat' % zygote).read().split(')')[1].split()[1])\n"
      "os.kill(worker, signal.SIGKILL)\n"
      "import time; time.sleep(60)";
  std::vector<WorkOrderProto> orders = {
      PythonOrder("before", "torch.add(x, x)", "x = torch.ones(4, 4)"),
      PythonOrder("kills its worker", "pass", kill_worker),
      PythonOrder("after", "torch.mul(x, x)", "x = torch.ones(4, 4)"),
  };
  RunnerOptions options = Options("killed-worker.journal");
  options.jobs = 1;
  absl::StatusOr<RunnerReport> report = RunOrders(orders, options);
  ASSERT_TRUE(report.ok()) << report.status();
  const auto& r = report->results;
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(r[0].has_output());
  EXPECT_EQ(r[1].failure().kind(), FAILURE_WORKER);
  EXPECT_THAT(r[1].failure().reason(), HasSubstr("the worker process died"));
  EXPECT_TRUE(r[2].has_output()) << r[2].failure().reason();
}

TEST(RunnerTest, ResumeSkipsFinishedOrdersAndRefusesOtherJournals) {
  std::vector<WorkOrderProto> orders = {PythonOrder("a", "torch.add(x, x)", "x = torch.ones(2)"),
                                        PythonOrder("b", "torch.mul(x, x)", "x = torch.ones(2)")};
  RunnerOptions options = Options("resume.journal");
  ASSERT_TRUE(RunOrders(orders, options).ok());
  // A second run without --resume must not clobber the journal.
  EXPECT_EQ(RunOrders(orders, options).status().code(), absl::StatusCode::kAlreadyExists);
  options.resume = true;
  absl::StatusOr<RunnerReport> resumed = RunOrders(orders, options);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ(resumed->resumed, 2);
  EXPECT_TRUE(resumed->results[1].has_output());
  // Different orders: the journal is not theirs, and it is left as it was.
  const std::string journal = *base::ReadFileToString(options.journal_path);
  orders.push_back(PythonOrder("c", "pass"));
  absl::StatusOr<RunnerReport> other = RunOrders(orders, options);
  EXPECT_EQ(other.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(other.status().message()),
              HasSubstr("was written for other work orders or another environment"));
  EXPECT_EQ(*base::ReadFileToString(options.journal_path), journal);
  // The same orders after another side's command: measured elsewhere.
  orders.pop_back();
  options.command_prefix = {"/bin/sh", "-c", "export SIDE=b && exec \"$@\"", "side"};
  EXPECT_EQ(RunOrders(orders, options).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(*base::ReadFileToString(options.journal_path), journal);
}

TEST(RunnerTest, CorruptJournalIsAnErrorAndLeftUntouched) {
  const std::string path = TempPath("corrupt.journal");
  const std::string contents = "{\"icount_journal\":2,\"orders_checksum\":\"00\"}\n{not json\n";
  ASSERT_TRUE(base::WriteFileAtomically(path, contents).ok());
  RunnerOptions options = Options("corrupt.journal");
  options.resume = true;
  absl::StatusOr<RunnerReport> report = RunOrders({PythonOrder("a", "pass")}, options);
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("corrupt.journal:2"));
  EXPECT_EQ(*base::ReadFileToString(path), contents);
}

// A process's command line (`what` "cmdline") or environment ("environ"),
// or "" once it has gone. Read with read(2): libstdc++'s stream iterators
// throw when the process exits mid-read.
std::string ProcFileOf(const std::string& pid, const char* what = "cmdline") {
  const int fd = open(("/proc/" + pid + "/" + what).c_str(), O_RDONLY);
  if (fd < 0) return "";
  std::string cmdline;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fd, buffer, sizeof(buffer))) > 0) cmdline.append(buffer, static_cast<size_t>(n));
  close(fd);
  return cmdline;
}

// This test's workers, and the valgrind and case processes around them:
// their command line names a worker, and their environment this test's
// TEST_TMPDIR (TMPDIR, or the cache directory under it, which the runner
// passes on), which other tests' workers lack.
std::vector<std::string> ThisTestsWorkers() {
  const std::string test_tmpdir = std::getenv("TEST_TMPDIR");
  std::vector<std::string> found;
  DIR* proc = opendir("/proc");
  while (dirent* entry = proc ? readdir(proc) : nullptr) {
    if (ProcFileOf(entry->d_name).find(kWorkerCommandMark) == std::string::npos) continue;
    if (ProcFileOf(entry->d_name, "environ").find(test_tmpdir) != std::string::npos) {
      found.push_back(entry->d_name);
    }
  }
  if (proc) closedir(proc);
  return found;
}

// The entries of `directory` whose names start with `prefix`.
std::vector<std::string> EntriesStartingWith(const std::string& directory,
                                             const std::string& prefix) {
  std::vector<std::string> found;
  DIR* listed = opendir(directory.c_str());
  while (dirent* entry = listed ? readdir(listed) : nullptr) {
    if (std::string(entry->d_name).rfind(prefix, 0) == 0) found.push_back(entry->d_name);
  }
  if (listed) closedir(listed);
  return found;
}

// After a run stopped early: the journal holds the one result `id`, and no
// worker, zygote or case process survives.
void ExpectStoppedKeeping(const std::string& journal_path, const std::string& id) {
  absl::StatusOr<std::vector<WorkerResultProto>> journal = ReadJournal(journal_path);
  ASSERT_TRUE(journal.ok()) << journal.status();
  ASSERT_EQ(journal->size(), 1u);
  EXPECT_EQ((*journal)[0].id(), id);
  EXPECT_THAT(ThisTestsWorkers(), ::testing::IsEmpty());
}

TEST(RunnerTest, InterruptKeepsFinishedResultsAndLeavesNoWorkers) {
  const std::string started = TempPath("interrupted.slow0.started");
  std::vector<WorkOrderProto> orders = {PythonOrder("fast", "pass")};
  for (int i = 0; i < 3; ++i) {
    orders.push_back(SlowOrder("slow " + std::to_string(i), started));
  }
  RunnerOptions options = Options("interrupted.journal");
  options.jobs = 1;
  // Once "fast" is journaled: into the first slow case, not between cases.
  std::thread interrupter;
  options.on_progress = [&](const RunnerProgress& progress) {
    if (progress.done == 1 && !interrupter.joinable()) {
      interrupter = std::thread([&] {
        WaitForFile(started);
        kill(getpid(), SIGINT);
      });
    }
  };
  absl::StatusOr<RunnerReport> report = RunOrders(orders, options);
  if (interrupter.joinable()) interrupter.join();
  ASSERT_EQ(report.status().code(), absl::StatusCode::kCancelled) << report.status();
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("--resume"));
  ExpectStoppedKeeping(options.journal_path, "fast");
}

// ab_test runs two RunOrders at once. One that ends early must not take the
// interrupt handling away from the other; an interrupt stops every run.
TEST(RunnerTest, InterruptReachesConcurrentRunsAfterOneHasEnded) {
  // The short run starts first and ends first: its handler must not be the
  // one left in place (or taken away) when it ends.
  std::promise<void> short_started;
  bool short_signalled = false;
  RunnerOptions short_options = Options("short.journal");
  short_options.on_progress = [&](const RunnerProgress&) {
    if (!short_signalled) {
      short_signalled = true;
      short_started.set_value();
    }
  };
  absl::StatusOr<RunnerReport> short_run;
  std::promise<void> short_ended;
  std::thread short_thread([&] {
    short_run = RunOrders({PythonOrder("short", "import time; time.sleep(2)")}, short_options);
    short_ended.set_value();
  });
  short_started.get_future().wait();

  const std::string other_started = TempPath("other.slow.started");
  const std::string long_started = TempPath("long.slow.started");
  absl::StatusOr<RunnerReport> other_run;
  std::thread other_thread([&] {
    RunnerOptions options = Options("other.journal");
    options.jobs = 1;
    other_run = RunOrders({SlowOrder("other slow", other_started)}, options);
  });
  RunnerOptions options = Options("long.journal");
  options.jobs = 1;
  // Once the short run has ended and "first" is journaled: into both slow
  // cases.
  std::thread interrupter;
  options.on_progress = [&](const RunnerProgress& progress) {
    if (progress.done == 1 && !interrupter.joinable()) {
      interrupter = std::thread([&, short_ended = short_ended.get_future()] {
        short_ended.wait();
        WaitForFile(other_started);
        WaitForFile(long_started);
        kill(getpid(), SIGINT);
      });
    }
  };
  absl::StatusOr<RunnerReport> long_run =
      RunOrders({PythonOrder("first", "pass"), SlowOrder("slow", long_started)}, options);
  // Every thread is joined whatever happened, so that a failed run is
  // reported by the expectations below instead of ending the test binary.
  if (interrupter.joinable()) interrupter.join();
  short_thread.join();
  other_thread.join();
  ASSERT_TRUE(short_run.ok()) << short_run.status();
  EXPECT_EQ(long_run.status().code(), absl::StatusCode::kCancelled) << long_run.status();
  EXPECT_EQ(other_run.status().code(), absl::StatusCode::kCancelled) << other_run.status();
  EXPECT_THAT(ThisTestsWorkers(), ::testing::IsEmpty());
}

// check_result sees each finished result; the first order's failure, which
// it rejects, stops the run before the slow ones are done: the rejection's
// message says where the finished results are kept, and they are there.
TEST(RunnerTest, ARejectedResultStopsTheRunAndKeepsWhatFinished) {
  std::vector<WorkOrderProto> orders = {PythonOrder("canary", "raise ValueError('no torch')")};
  for (int i = 0; i < 2; ++i) {
    orders.push_back(PythonOrder("slow " + std::to_string(i), "import time; time.sleep(60)"));
  }
  RunnerOptions options = Options("rejected.journal");
  options.jobs = 1;
  std::vector<std::string> checked;
  options.check_result = [&](const WorkOrderProto& order, const WorkerResultProto& result) {
    checked.push_back(order.id());
    if (!result.has_failure()) return absl::OkStatus();
    return absl::FailedPreconditionError(
        absl::StrCat(order.id(), " failed: ", result.failure().reason()));
  };
  absl::StatusOr<RunnerReport> report = RunOrders(orders, options);
  ASSERT_EQ(report.status().code(), absl::StatusCode::kFailedPrecondition) << report.status();
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("canary failed: "));
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("ValueError: no torch"));
  EXPECT_THAT(std::string(report.status().message()),
              HasSubstr(absl::StrCat("Finished results are kept in ", options.journal_path)));
  EXPECT_THAT(checked, ::testing::ElementsAre("canary"));
  ExpectStoppedKeeping(options.journal_path, "canary");
}

// stop_requested stops a run as an interrupt does, without a signal: the
// finished result is kept, no worker is left, and the run is Cancelled.
TEST(RunnerTest, AStopRequestStopsTheRunAndKeepsWhatFinished) {
  std::vector<WorkOrderProto> orders = {PythonOrder("fast", "pass"),
                                        PythonOrder("slow", "import time; time.sleep(60)")};
  RunnerOptions options = Options("stopped.journal");
  options.jobs = 1;
  std::atomic<bool> stop{false};
  options.on_progress = [&](const RunnerProgress& progress) {
    if (progress.done == 1) stop = true;
  };
  options.stop_requested = [&] { return stop.load(); };
  absl::StatusOr<RunnerReport> report = RunOrders(orders, options);
  ASSERT_EQ(report.status().code(), absl::StatusCode::kCancelled) << report.status();
  EXPECT_THAT(std::string(report.status().message()),
              HasSubstr(absl::StrCat("1 of 2 orders finished and kept in ", options.journal_path)));
  ExpectStoppedKeeping(options.journal_path, "fast");
}

// Two count orders and two wall-time orders. The first count order waits
// (up to 2 minutes, then the test fails) until `release` exists, so the
// counts phase cannot end before the test has seen what it looks for.
std::vector<WorkOrderProto> CountsThenWallTime(const std::string& release) {
  std::vector<WorkOrderProto> orders;
  for (const auto& [id, stmt] :
       {std::pair<std::string, std::string>{"counted until released",
                                            absl::StrCat("deadline = time.monotonic() + 120\n"
                                                         "while not os.path.exists('",
                                                         release,
                                                         "') and time.monotonic() < deadline:\n"
                                                         "    time.sleep(0.01)")},
        {"counted", "pass"}}) {
    WorkOrderProto order = PythonOrder(id, stmt, "import os, time");
    order.set_wall_time(false);
    order.set_callgrind(true);
    order.set_callgrind_number(1);  // a warm-up call and a measured one
    orders.push_back(order);
  }
  orders.push_back(PythonOrder("timed", "pass"));
  orders.push_back(PythonOrder("timed too", "pass"));
  return orders;
}

// This test's wall-time workers that are running (the runner names their
// scratch directories "wall-<worker>-<n>").
std::vector<std::string> WallTimeWorkers() {
  std::vector<std::string> found;
  for (const std::string& pid : ThisTestsWorkers()) {
    if (ProcFileOf(pid).find("/wall-") != std::string::npos) found.push_back(pid);
  }
  return found;
}

// Runs `then` once, from a thread of its own, as soon as a wall-time worker
// of this test is running; stops looking when destroyed.
class OnWallTimeWorker {
 public:
  explicit OnWallTimeWorker(std::function<void()> then)
      : thread_([this, then = std::move(then)] {
          while (!stop_) {
            if (!WallTimeWorkers().empty()) {
              seen_ = true;
              then();
              return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
          }
        }) {}
  ~OnWallTimeWorker() {
    stop_ = true;
    thread_.join();
  }
  bool seen() const { return seen_; }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<bool> seen_{false};
  std::thread thread_;
};

// Once every count order is handed out, a valgrind worker left with nothing
// to do makes way for a wall-time worker, which starts while the last
// count runs instead of after it; the results are as usual. The last count
// runs until the test has seen that worker, so the order of events is
// certain, not a race of two sleeps.
TEST(RunnerTest, WallTimeWorkersStartWhileTheLastCountsRun) {
  RunnerOptions options = Options("tail.journal");
  options.jobs = 2;
  const std::string release = TempPath("tail.release");
  absl::StatusOr<RunnerReport> report;
  {
    OnWallTimeWorker watcher([&] { std::ofstream(release) << "go\n"; });
    report = RunOrders(CountsThenWallTime(release), options);
    EXPECT_TRUE(watcher.seen()) << "no wall-time worker started while a count was running";
  }
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->results.size(), 4u);
  for (const WorkerResultProto& result : report->results) {
    EXPECT_FALSE(result.has_failure()) << result.id() << ": " << result.failure().reason();
  }
  EXPECT_EQ(report->results[0].output().callgrind_size(), 1);
  EXPECT_EQ(report->results[1].output().callgrind_size(), 1);
  EXPECT_GT(report->results[2].output().wall_time().raw_times_size(), 0);
  EXPECT_GT(report->results[3].output().wall_time().raw_times_size(), 0);
  EXPECT_THAT(ThisTestsWorkers(), ::testing::IsEmpty());
}

// An interrupt while wall-time workers start in the counts' tail stops
// them too (the last count is never released), and the valgrind worker
// killed mid-count leaves nothing in TMPDIR (the runner hands its TMPDIR
// to the workers; valgrind's gdbserver FIFOs would outlive a SIGKILL).
TEST(RunnerTest, InterruptInTheCountsTailLeavesNoWorkers) {
  RunnerOptions options = Options("tail-interrupted.journal");
  options.jobs = 2;
  const std::string tmpdir = TempPath("tail-interrupted-tmpdir");
  ASSERT_EQ(mkdir(tmpdir.c_str(), 0700), 0);
  const char* previous_tmpdir = std::getenv("TMPDIR");
  const std::string restore = previous_tmpdir == nullptr ? "" : previous_tmpdir;
  setenv("TMPDIR", tmpdir.c_str(), 1);
  absl::StatusOr<RunnerReport> report;
  bool interrupted = false;
  {
    OnWallTimeWorker watcher([] { kill(getpid(), SIGINT); });
    report = RunOrders(CountsThenWallTime(TempPath("never.release")), options);
    interrupted = watcher.seen();
  }
  if (previous_tmpdir == nullptr) {
    unsetenv("TMPDIR");
  } else {
    setenv("TMPDIR", restore.c_str(), 1);
  }
  ASSERT_TRUE(interrupted);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kCancelled) << report.status();
  EXPECT_THAT(ThisTestsWorkers(), ::testing::IsEmpty());
  EXPECT_THAT(EntriesStartingWith(tmpdir, "vgdb-pipe"), ::testing::IsEmpty());
}

// Workers start as /tmp/icount-path-XXXXXX/worker, whatever the binary's
// path and TMPDIR: a process's heap holds its argv[0] and its executable's
// path, so counts followed their lengths.
TEST(RunnerTest, TheWorkerStartsAtAPathOfFixedLength) {
  const std::string directory = TempPath("a/directory/deeper/than/the/scratch/one");
  ASSERT_EQ(system(("mkdir -p " + directory).c_str()), 0);
  const std::string recorder = directory + "/worker_recording_its_name";
  const std::string recorded = TempPath("argv0");
  {
    std::ofstream script(recorder);
    script << "#!/bin/sh\necho \"$0\" > " << recorded << "\nexit 1\n";
  }
  ASSERT_EQ(chmod(recorder.c_str(), 0755), 0);
  RunnerOptions options = Options("argv0.journal");
  options.worker_path = recorder;
  options.retries = 0;
  (void)RunOrders({PythonOrder("x", "pass")}, options);  // the "worker" fails; fine
  std::ifstream in(recorded);
  std::string argv0;
  std::getline(in, argv0);
  EXPECT_THAT(argv0, ::testing::MatchesRegex(std::string(kWorkerCommandMark) + "[A-Za-z0-9]{6}/worker"));
}

TEST(RunnerTest, InvalidOrders) {
  WorkOrderProto both = PythonOrder("x", "pass");
  both.set_callgrind(true);
  EXPECT_EQ(RunOrders({both}, Options("invalid.journal")).status().code(),
            absl::StatusCode::kInvalidArgument);
  RunnerOptions missing = Options("missing.journal");
  missing.worker_path = "/nonexistent/worker";
  EXPECT_EQ(RunOrders({PythonOrder("x", "pass")}, missing).status().code(),
            absl::StatusCode::kNotFound);
}

// A machine where valgrind cannot run the worker at all (e.g. a CPU whose
// CPUID hides RDTSCP and a worker without the replacement): a stand-in
// valgrind first on PATH writes such a log and dies of SIGILL. The phase
// stops at once with valgrind's diagnosis instead of respawning workers
// for every order.
TEST(RunnerTest, AWorkerThatCannotStartUnderValgrindStopsThePhaseWithTheReason) {
  const std::string bin = TempPath("standin-bin");
  ASSERT_EQ(system(("mkdir -p " + bin).c_str()), 0);
  const std::string starts = TempPath("standin-starts");
  const std::string log_source =
      base::TestRunfile("icount/timer/testdata/valgrind_rdtscp.log");
  std::ofstream(bin + "/valgrind") << "#!/bin/sh\n"
                                   << "echo started >> " << starts << "\n"
                                   << "for a in \"$@\"; do case \"$a\" in --log-file=*) cp "
                                   << log_source << " \"${a#--log-file=}\";; esac; done\n"
                                   << "kill -ILL $$\n";
  ASSERT_EQ(system(("chmod +x " + bin + "/valgrind").c_str()), 0);
  const std::string path = std::getenv("PATH");
  setenv("PATH", (bin + ":" + path).c_str(), 1);

  std::vector<WorkOrderProto> orders;
  for (int i = 0; i < 6; ++i) {
    WorkOrderProto order = PythonOrder("case " + std::to_string(i), "pass");
    order.set_wall_time(false);
    order.set_callgrind(true);
    orders.push_back(order);
  }
  RunnerOptions options = Options("cannot-count.journal");
  options.jobs = 2;
  absl::StatusOr<RunnerReport> report = RunOrders(orders, options);
  setenv("PATH", path.c_str(), 1);

  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kFailedPrecondition);
  const std::string message(report.status().message());
  EXPECT_THAT(message, HasSubstr("instruction counts cannot be collected: the worker under "
                                 "valgrind died before measuring anything (killed by signal 4"));
  EXPECT_THAT(message, HasSubstr("valgrind cannot run the instruction RDTSCP"));
  EXPECT_THAT(message, HasSubstr("in hwy::platform::TimerResolution() "
                                 "(/usr/lib/x86_64-linux-gnu/libhwy.so.1.0.3)"));
  EXPECT_THAT(message, HasSubstr("--- valgrind's log"));
  EXPECT_THAT(message, HasSubstr("Finished results are kept in " + options.journal_path));
  EXPECT_THAT(message, ::testing::Not(HasSubstr("(no output)")));
  // Each of the two workers started once; none was respawned per order.
  std::ifstream in(starts);
  const std::string started((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_LE(std::count(started.begin(), started.end(), '\n'), 2) << started;
}

}  // namespace
}  // namespace icount::worker
