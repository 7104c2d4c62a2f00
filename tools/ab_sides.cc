#include "tools/ab_sides.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <future>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/files.h"
#include "base/status.h"
#include "base/subprocess.h"
#include "base/text.h"
#include "environment/pytorch_install.h"
#include "timer/measurement_io.h"
#include "tools/executor.h"

namespace icount::tools {
namespace {

// Splits `cases` into those that run on LibTorch `available` and those
// that declare a newer min_libtorch_version.
void SplitByMinLibTorch(const std::vector<expand::SuiteCaseProto>& cases,
                        const expand::LibTorchVersion& available,
                        std::vector<expand::SuiteCaseProto>& runnable,
                        std::vector<expand::SuiteCaseProto>& too_new) {
  for (const expand::SuiteCaseProto& c : cases) {
    const expand::LibTorchVersionProto& min = c.min_libtorch();
    const bool newer = c.has_min_libtorch() &&
                       available < expand::LibTorchVersion{min.major(), min.minor(), min.patch()};
    (newer ? too_new : runnable).push_back(c);
  }
}

// The error of a side whose canary case failed.
absl::Status CanaryFailed(const Side& side, const expand::SuiteCaseProto& canary,
                          const worker::WorkerResultProto& result) {
  return absl::FailedPreconditionError(
      absl::StrCat("environment ", side.name, " (", side.command, ") is broken: the canary case (",
                   canary.list_line(), ") failed:\n", CaseFailureText(canary, result)));
}

// A trivial case that must work in the environment before anything long
// starts: counted once under valgrind when the run counts; timed briefly
// otherwise, since an A/B of wall time alone needs no valgrind.
absl::Status Canary(const Side& side, const expand::SuiteCaseProto& canary, bool counts,
                    bool cache_sim) {
  MeasureOptions measure;
  measure.wall_time = !counts;
  measure.instruction_counts = counts;
  measure.callgrind_number = 1;
  measure.min_run_time = 0.01;
  const std::vector<worker::WorkOrderProto> orders = MakeOrders(side.suite(), {canary}, measure);
  // A canary keeps nothing: its journal lives in a directory of its own
  // under $TMPDIR, gone when it ends.
  absl::StatusOr<std::string> directory = base::MakeTemporaryDirectory("icount-canary");
  if (!directory.ok()) return directory.status();
  worker::RunnerOptions options = SideOptions(side, 1, *directory + "/canary.journal", cache_sim);
  absl::StatusOr<worker::RunnerReport> report = worker::RunOrders(orders, options);
  base::RemoveDirectoryTree(*directory);
  if (!report.ok()) {
    // The canaries run side by side: say whose it was. Its journal, which
    // the runner's message offers, is gone: a canary keeps nothing.
    std::string why(report.status().message());
    const std::string journal_note =
        absl::StrCat("\nFinished results are kept in ", options.journal_path, ".");
    if (absl::EndsWith(why, journal_note)) why.resize(why.size() - journal_note.size());
    return absl::Status(report.status().code(),
                        absl::StrCat("environment ", side.name, " (", side.command,
                                     ") is broken: its canary could not run: ", why));
  }
  for (const worker::WorkerResultProto& result : report->results) {
    if (result.has_failure()) return CanaryFailed(side, canary, result);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status SideError(const Side& side, const absl::Status& status) {
  return base::WithContext(status, side.name);
}

namespace {

environment::EnvironmentSpec SideSpec(const SideSource& source, const Side& side) {
  return {side.name,   side.command,   source.libtorch_directory, source.libtorch_flag,
          source.root, source.root_flag};
}

}  // namespace

absl::Status CheckSide(const SideSource& source, const Side& side, bool no_cpp) {
  ICOUNT_RETURN_IF_ERROR(CheckEnvironmentSpec(SideSpec(source, side)));
  // A --B_worker side measures the worker given, whatever torch is there.
  return CheckCppLeftOut(SideSpec(source, side), no_cpp && source.worker.empty());
}

absl::Status SetUpSide(const Suite& own_suite, const SideSource& source, Side& side) {
  if (source.worker.empty()) {
    ICOUNT_ASSIGN_OR_RETURN(side.environment,
                            SuiteForEnvironment(SideSpec(source, side), own_suite, "ab_test"));
    return absl::OkStatus();
  }
  const std::string& worker = source.worker;
  if (access(worker.c_str(), X_OK) != 0) {
    return absl::NotFoundError(
        absl::StrCat("--", side.name, "_worker=", worker, " does not exist or is not executable"));
  }
  side.environment.install = environment::SystemInstall();
  side.environment.install.how_found = absl::StrCat("--", side.name, "_worker");
  side.environment.suite = own_suite;
  side.environment.suite.worker_path = worker;
  return absl::OkStatus();
}

absl::Status ProbeLibTorch(Side& side) {
  std::vector<std::string> argv =
      environment::EnvironmentPrefix(side.command, side.environment.launcher);
  argv.push_back(side.suite().worker_path);
  absl::StatusOr<worker::WorkerLibTorchAnswer> answer = worker::AskWorkerForLibTorch(argv);
  if (!answer.ok()) return answer.status();
  const std::optional<worker::LibTorchVersionReport>& report = answer->report;
  if (answer->result.exit_code != 0 || !report.has_value()) {
    return absl::FailedPreconditionError(
        absl::StrCat("environment ", side.name, " (", side.command,
                     ") is broken: its worker could not report a LibTorch version (",
                     base::DescribeExit(answer->result), "):\n", answer->result.output));
  }
  absl::StatusOr<expand::LibTorchVersion> version =
      expand::ParseLibTorchVersion(report->version, expand::VersionSuffix::kIgnored);
  if (!version.ok()) {
    const bool declared = report->source == "ICOUNT_LIBTORCH_VERSION";
    return absl::FailedPreconditionError(absl::StrCat(
        "environment ", side.name, " reports an unreadable LibTorch version (from ", report->source,
        "): ", version.status().message(),
        declared ? ""
                 : absl::StrCat("; declare the right one with `export ",
                                "ICOUNT_LIBTORCH_VERSION=<version>` in --", side.name)));
  }
  side.libtorch = *std::move(report);
  side.libtorch_version = *version;
  return absl::OkStatus();
}

void ReportStoppedRun(const absl::Status& status, const std::string& json_path,
                      const std::vector<const SideRun*>& runs) {
  std::fprintf(stderr, "ab_test: %s\n", std::string(status.message()).c_str());
  std::vector<std::string> journals;
  for (const SideRun* run : runs) {
    journals.insert(journals.end(), run->journals.begin(), run->journals.end());
  }
  if (!journals.empty()) {
    std::fprintf(stderr, "ab_test: finished results are kept in %s\n",
                 absl::StrJoin(journals, ", ").c_str());
  }
  if (status.code() == absl::StatusCode::kCancelled) {
    std::fprintf(stderr, "ab_test: %s\n",
                 json_path.empty() ? "pass --json=FILE to be able to --resume a run"
                                   : "run the same command with --resume to continue");
  }
}

worker::RunnerOptions SideOptions(const Side& side, int jobs, std::string journal_path,
                                  bool cache_sim) {
  worker::RunnerOptions options = EnvironmentRunnerOptions(side.environment, side.command);
  options.jobs = jobs;
  options.cache_sim = cache_sim;
  options.journal_path = std::move(journal_path);
  // An interrupted side names its own journal; ReportStoppedRun names every
  // side's and says how to continue.
  options.how_to_continue.clear();
  // A case that crashes in one environment (a preloaded library, another
  // LibTorch) will crash again.
  options.retries = 0;
  return options;
}

// The canary in every side, as many sides at once as there are CPUs (each
// canary is one worker on one CPU, and its result is not kept): the
// environments are checked in the time of one worker's start (~11 s under
// valgrind) instead of one after another. The first broken side, in the
// sides' order, is the error.
absl::Status CheckCanaries(const std::vector<const Side*>& sides,
                           const expand::SuiteCaseProto& canary, bool counts, bool cache_sim) {
  const size_t at_once = std::max<long>(1, sysconf(_SC_NPROCESSORS_ONLN));
  for (size_t first = 0; first < sides.size(); first += at_once) {
    const size_t end = std::min(sides.size(), first + at_once);
    std::vector<std::string> names;
    std::vector<std::future<absl::Status>> running;
    for (size_t k = first; k < end; ++k) {
      names.push_back(sides[k]->name);
      running.push_back(std::async(
          std::launch::async, [&, k] { return Canary(*sides[k], canary, counts, cache_sim); }));
    }
    std::fprintf(stderr, "ab_test: canary in %s%s...\n", absl::StrJoin(names, ", ").c_str(),
                 names.size() > 1 ? " at once" : "");
    absl::Status status;
    for (std::future<absl::Status>& side : running) status.Update(side.get());
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

std::string JournalPath(const std::string& base, const std::string& side, const std::string& part) {
  return absl::StrCat(base, ".", side, ".", part, ".journal");
}

absl::StatusOr<std::string> JournalBase(const std::string& json_path) {
  if (!json_path.empty()) return json_path;
  ICOUNT_ASSIGN_OR_RETURN(const std::string directory, base::MakeTemporaryDirectory("icount-ab"));
  return directory + "/ab";
}

std::string TimeRoundPart(size_t round) { return absl::StrCat("time-", round); }

void RemoveJournals(const std::vector<const SideRun*>& runs, const std::string& json_path,
                    const std::string& journal_base) {
  for (const SideRun* run : runs) {
    for (const std::string& journal : run->journals) base::RemoveDirectoryTree(journal);
  }
  if (json_path.empty()) base::RemoveDirectoryTree(journal_base.substr(0, journal_base.rfind('/')));
}

absl::Status RunInto(const std::vector<worker::WorkOrderProto>& orders,
                     const worker::RunnerOptions& options, SideRun& run, int round) {
  const std::vector<std::string> state =
      round < 0 ? RunStatePaths(orders, options) : std::vector<std::string>{options.journal_path};
  run.journals.insert(run.journals.end(), state.begin(), state.end());
  absl::StatusOr<worker::RunnerReport> report =
      round < 0 ? ExecuteOrders(orders, options) : worker::RunOrders(orders, options);
  if (!report.ok()) return report.status();
  if (report->resumed > 0) {
    std::fprintf(stderr, "ab_test: %d of %zu results resumed from %s\n", report->resumed,
                 orders.size(), state.front().c_str());
  }
  run.orders.insert(run.orders.end(), orders.begin(), orders.end());
  run.results.insert(run.results.end(), report->results.begin(), report->results.end());
  run.rounds.insert(run.rounds.end(), orders.size(), round);
  return absl::OkStatus();
}

SidesProgress::SidesProgress(std::vector<std::string> names, int orders_per_side)
    : names_(std::move(names)), sides_(names_.size()) {
  for (worker::RunnerProgress& side : sides_) side.total = orders_per_side;
}

std::function<void(const worker::RunnerProgress&)> SidesProgress::For(int side) {
  return [this, side](const worker::RunnerProgress& progress) {
    std::lock_guard<std::mutex> lock(mutex_);
    sides_[side] = progress;
    const bool finished = progress.done == progress.total;
    const auto now = std::chrono::steady_clock::now();
    if (!finished && now < next_report_) return;
    next_report_ = now + std::chrono::seconds(10);
    std::vector<std::string> parts;
    int failed = 0;
    for (size_t s = 0; s < sides_.size(); ++s) {
      parts.push_back(absl::StrCat(names_[s], " ", sides_[s].done, "/", sides_[s].total));
      failed += sides_[s].failed;
    }
    std::fprintf(stderr, "ab_test: %s: %s%s\n", progress.phase.c_str(),
                 absl::StrJoin(parts, ", ").c_str(),
                 failed > 0 ? absl::StrCat(" (", failed, " failed)").c_str() : "");
  };
}

// Gives every later wall-time order the block size A's first round picked
// for its case: a case whose time per block sits near a power-of-ten
// boundary would otherwise be timed in blocks 10x apart from round to
// round or side to side, and per-run times of different block sizes differ
// by more than noise (0.34 against 0.46 ns a run for `stride` in C++).
// Cases A's first round did not time keep picking their own.
void FixBlockSizes(const SideRun& a_run, std::vector<worker::WorkOrderProto>& time_orders) {
  std::map<std::string, int64_t> numbers;
  for (size_t i = 0; i < a_run.results.size(); ++i) {
    const worker::WorkerResultProto& result = a_run.results[i];
    if (a_run.rounds[i] != 0 || !result.has_output() || !result.output().has_wall_time()) continue;
    numbers[a_run.orders[i].case_key()] = result.output().wall_time().number_per_run();
  }
  for (worker::WorkOrderProto& order : time_orders) {
    if (auto found = numbers.find(order.case_key()); found != numbers.end()) {
      order.set_wall_time_number(found->second);
    }
  }
}

namespace {

// Puts the canary's count order first in `orders` (the runner hands orders
// out in the order given), adding one, counted once, when the canary is
// not among the cases run. Returns the added order's id, or "" when the
// canary was among them.
std::string CanaryFirst(const Side& side, const expand::SuiteCaseProto& canary,
                        const MeasureOptions& measure,
                        std::vector<worker::WorkOrderProto>& orders) {
  auto found = std::find_if(orders.begin(), orders.end(), [&](const worker::WorkOrderProto& o) {
    return o.case_key() == canary.key();
  });
  if (found != orders.end()) {
    std::rotate(orders.begin(), found, found + 1);
    return "";
  }
  MeasureOptions once = measure;
  once.wall_time = false;
  once.callgrind_number = 1;
  once.callgrind_repeats = 1;
  orders.insert(orders.begin(), MakeOrders(side.suite(), {canary}, once).front());
  return orders.front().id();
}

// Takes the order `id` and its result out of `run`.
void DropOrder(const std::string& id, SideRun& run) {
  for (size_t i = 0; i < run.orders.size(); ++i) {
    if (run.orders[i].id() != id) continue;
    run.orders.erase(run.orders.begin() + i);
    run.results.erase(run.results.begin() + i);
    run.rounds.erase(run.rounds.begin() + i);
    return;
  }
}

}  // namespace

absl::Status CountSidesAtOnce(const std::vector<const Side*>& sides,
                              std::vector<std::vector<worker::WorkOrderProto>> orders,
                              const std::optional<expand::SuiteCaseProto>& canary,
                              const MeasureOptions& measure,
                              const std::function<worker::RunnerOptions(size_t)>& side_options,
                              const std::vector<SideRun*>& runs) {
  const size_t n = sides.size();
  std::vector<std::string> added_canary(n);
  if (canary.has_value()) {
    for (size_t k = 0; k < n; ++k) {
      added_canary[k] = CanaryFirst(*sides[k], *canary, measure, orders[k]);
    }
  }
  // The first side to fail stops the others, whose results would be
  // compared with a side that has none (they stay in their journals for
  // --resume).
  std::atomic<bool> side_failed{false};
  // Each written by its side's thread only, read there or once all have
  // ended.
  std::vector<char> canary_finished(n, false), canary_failed(n, false);
  auto run_side = [&](size_t k) {
    worker::RunnerOptions options = side_options(k);
    options.stop_requested = [&] { return side_failed.load(); };
    if (canary.has_value()) {
      options.check_result = [&, k, canary_id = orders[k].front().id()](
                                 const worker::WorkOrderProto& order,
                                 const worker::WorkerResultProto& result) {
        if (order.id() != canary_id) return absl::OkStatus();
        canary_finished[k] = true;
        if (!result.has_failure()) return absl::OkStatus();
        canary_failed[k] = true;
        return CanaryFailed(*sides[k], *canary, result);
      };
    }
    if (!added_canary[k].empty() && options.on_progress) {
      // Progress counts the cases run; an added canary is not one of them
      // (the runner checks a result before it reports progress).
      options.on_progress =
          [&, k, report = std::move(options.on_progress)](worker::RunnerProgress progress) {
            --progress.total;
            if (canary_finished[k]) --progress.done;
            report(progress);
          };
    }
    absl::Status status = RunInto(orders[k], options, *runs[k]);
    if (!status.ok()) side_failed = true;
    if (!added_canary[k].empty()) DropOrder(added_canary[k], *runs[k]);
    return status;
  };
  std::vector<std::future<absl::Status>> others;
  for (size_t k = 1; k < n; ++k) others.push_back(std::async(std::launch::async, run_side, k));
  std::vector<absl::Status> statuses = {run_side(0)};
  for (std::future<absl::Status>& other : others) statuses.push_back(other.get());
  // A side's own error before another's Cancelled (stopped for it, or all
  // interrupted); in the sides' order.
  for (const bool cancelled : {false, true}) {
    for (size_t k = 0; k < n; ++k) {
      const absl::Status& status = statuses[k];
      if (status.ok() || (status.code() == absl::StatusCode::kCancelled) != cancelled) continue;
      return canary_failed[k] ? status : SideError(*sides[k], status);
    }
  }
  return absl::OkStatus();
}

namespace {

// A side's runner options for its journal of `part` ("counts", a round).
worker::RunnerOptions BothSidesRunnerOptions(const Side& side, const std::string& part, int jobs,
                                             const BothSidesOptions& run_options) {
  worker::RunnerOptions o = SideOptions(
      side, jobs, JournalPath(run_options.journal_base, side.name, part), run_options.cache_sim);
  o.resume = run_options.resume;
  return o;
}

// Instruction counts of A and B at once, half the CPUs each, with one
// progress line for both.
absl::Status CountBothSides(const Side& a, const Side& b,
                            std::vector<std::vector<worker::WorkOrderProto>> count_orders,
                            const MeasureOptions& measure, const BothSidesOptions& run_options,
                            SideRun& a_run, SideRun& b_run) {
  const int jobs = std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)) / 2);
  std::fprintf(stderr, "ab_test: instruction counts of %s in A and B at once%s...\n",
               base::CountOf(count_orders[0].size(), "case").c_str(),
               run_options.canary.has_value() ? ", the canary first" : "");
  SidesProgress progress({"A", "B"}, static_cast<int>(count_orders[0].size()));
  const std::vector<const Side*> sides = {&a, &b};
  return CountSidesAtOnce(sides, std::move(count_orders), run_options.canary, measure,
                          [&](size_t k) {
                            worker::RunnerOptions o =
                                BothSidesRunnerOptions(*sides[k], "counts", jobs, run_options);
                            o.on_progress = progress.For(static_cast<int>(k));
                            return o;
                          },
                          {&a_run, &b_run});
}

// Paired rounds: every round times every case on both sides, one side
// after the other (A B, then B A, ...), each on the whole machine with
// the runner's pinning. Timing A and B at once, each side on a core of
// its own, was tried and measured worse on a 2-core VM: whole
// measurements ran up to 2x slow beside the other side's processes
// (docs/wall_time.md).
absl::Status TimeBothSides(const Side& a, const Side& b,
                           std::array<std::vector<worker::WorkOrderProto>, 2>& time_orders,
                           const BothSidesOptions& run_options, SideRun& a_run, SideRun& b_run) {
  const int rounds = run_options.time_rounds;
  if (rounds > 0 && !time_orders[0].empty()) {
    for (const std::string& disturbance : WallTimeDisturbances()) {
      std::fprintf(stderr, "ab_test: warning: %s\n", disturbance.c_str());
    }
  }
  for (int round = 0; round < rounds && !time_orders[0].empty(); ++round) {
    const Side* first = round % 2 == 0 ? &a : &b;
    for (const Side* side : {first, first == &a ? &b : &a}) {
      const int k = side == &a ? 0 : 1;
      std::fprintf(stderr, "ab_test: wall time, round %d of %d, %s: %s...\n", round + 1, rounds,
                   side->name.c_str(), base::CountOf(time_orders[k].size(), "case").c_str());
      const absl::Status status = RunInto(
          time_orders[k], BothSidesRunnerOptions(*side, TimeRoundPart(round), 0, run_options),
          side == &a ? a_run : b_run, round);
      if (!status.ok()) return SideError(*side, status);
      if (round == 0 && side == &a) {
        for (std::vector<worker::WorkOrderProto>& orders : time_orders) {
          FixBlockSizes(a_run, orders);
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunBothSides(const Side& a, const Side& b,
                          const std::vector<expand::SuiteCaseProto>& cases,
                          const MeasureOptions& measure, const BothSidesOptions& run_options,
                          SideRun& a_run, SideRun& b_run) {
  // Each side's orders name its own suite's TorchScript artifacts.
  std::array<std::vector<worker::WorkOrderProto>, 2> count_orders, time_orders;
  for (const Side* side : {&a, &b}) {
    const int k = side == &a ? 0 : 1;
    for (const worker::WorkOrderProto& order : MakeOrders(side->suite(), cases, measure)) {
      (order.callgrind() ? count_orders[k] : time_orders[k]).push_back(order);
    }
  }
  if (!count_orders[0].empty()) {
    ICOUNT_RETURN_IF_ERROR(CountBothSides(a, b, {count_orders[0], count_orders[1]}, measure,
                                          run_options, a_run, b_run));
  }
  return TimeBothSides(a, b, time_orders, run_options, a_run, b_run);
}

std::string SideTag(size_t k) { return absl::StrCat("S", k + 1); }

absl::StatusOr<bool> PythonCases(const std::vector<Side*>& sides, bool no_python, bool no_cpp) {
  for (const Side* side : sides) {
    if (side->environment.python_cases()) continue;
    if (no_cpp) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--no_cpp leaves the Python cases only, and ", side->name, " has none: ",
          side->environment.install.python_problem, "; drop --no_cpp to compare the C++ cases"));
    }
    std::fprintf(stderr, "ab_test: %s: %s: Python cases are skipped on every side\n",
                 side->name.c_str(), side->environment.install.python_problem.c_str());
    return false;
  }
  return !no_python;
}

absl::StatusOr<std::vector<expand::SuiteCaseProto>> CasesToRun(
    const std::vector<expand::SuiteCaseProto>& selected, const std::vector<const Side*>& sides,
    bool backtesting, std::vector<expand::SuiteCaseProto>& skipped) {
  const Side& older = **std::min_element(
      sides.begin(), sides.end(),
      [](const Side* a, const Side* b) { return a->libtorch_version < b->libtorch_version; });
  std::vector<expand::SuiteCaseProto> runnable, too_new;
  SplitByMinLibTorch(selected, older.libtorch_version, runnable, too_new);
  if (too_new.empty()) return selected;
  const std::string why =
      absl::StrCat(too_new.size(), " of ", base::CountOf(selected.size(), "case"), " ",
                   too_new.size() == 1 ? "needs" : "need", " a newer LibTorch than ", older.name,
                   "'s ", older.libtorch.version);
  if (!backtesting) {
    std::fprintf(stderr,
                 "ab_test: warning: %s (e.g. %s needs %s); they will likely fail there. "
                 "--backtesting skips them.\n",
                 why.c_str(), too_new[0].list_line().c_str(),
                 too_new[0].min_libtorch_version().c_str());
    return selected;
  }
  std::fprintf(stderr, "ab_test: --backtesting: %s; skipped:\n", why.c_str());
  for (const expand::SuiteCaseProto& c : too_new) {
    std::fprintf(stderr, "  %s (needs %s)\n", c.list_line().c_str(),
                 c.min_libtorch_version().c_str());
  }
  if (runnable.empty()) return absl::InvalidArgumentError("--backtesting leaves no case to run");
  skipped = std::move(too_new);
  return runnable;
}

absl::StatusOr<expand::SuiteCaseProto> ChooseCanary(const Suite& suite, bool python,
                                                    const std::vector<const Side*>& sides) {
  const timer::LanguageProto language = python ? timer::PYTHON : timer::CPP;
  auto compiled_everywhere = [&](const expand::SuiteCaseProto& c) {
    return std::none_of(sides.begin(), sides.end(), [&](const Side* side) {
      return side->environment.uncompiled_cases.count(c.compiled_case()) > 0;
    });
  };
  for (const expand::SuiteCaseProto& c : suite.manifest.cases()) {
    if (c.task_spec().language() == language && !c.has_min_libtorch() &&
        compiled_everywhere(c)) {
      return c;
    }
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "the suite has no ", python ? "Python" : "C++",
      " case without a min_libtorch_version that compiles against every side to be the canary"));
}

std::map<std::string, compare::PairedRounds> PairRounds(const SideRun& a_run,
                                                        const SideRun& b_run) {
  auto per_round = [](const SideRun& run) {
    std::map<std::string, std::map<int, double>> times;  // case -> round -> median
    for (size_t i = 0; i < run.orders.size(); ++i) {
      const worker::WorkerResultProto& result = run.results[i];
      if (run.rounds[i] < 0 || !result.has_output() || !result.output().has_wall_time()) continue;
      absl::StatusOr<timer::Measurement> m =
          timer::MeasurementFromProto(result.output().wall_time());
      times[run.orders[i].case_key()][run.rounds[i]] =
          m.ok() && !m->raw_times().empty() ? m->Median() : std::nan("");
    }
    return times;
  };
  const auto a_times = per_round(a_run);
  const auto b_times = per_round(b_run);
  std::map<std::string, compare::PairedRounds> paired;
  for (const auto& [key, a_rounds] : a_times) {
    auto b_rounds = b_times.find(key);
    if (b_rounds == b_times.end()) continue;
    compare::PairedRounds& rounds = paired[key];
    for (const auto& [round, a_median] : a_rounds) {
      auto b_median = b_rounds->second.find(round);
      if (b_median == b_rounds->second.end()) continue;
      rounds.a.push_back(a_median);
      rounds.b.push_back(b_median->second);
    }
  }
  return paired;
}

std::map<std::string, compare::TimeComparison> CompareTimes(
    const std::vector<expand::SuiteCaseProto>& cases, const SideRun& a_run, const SideRun& b_run) {
  const std::map<std::string, compare::PairedRounds> paired = PairRounds(a_run, b_run);
  std::vector<std::string> keys;
  std::vector<compare::PairedRounds> rounds;
  for (const expand::SuiteCaseProto& c : cases) {
    auto found = paired.find(c.key());
    if (found == paired.end()) continue;
    keys.push_back(c.key());
    rounds.push_back(found->second);
  }
  const std::vector<compare::TimeComparison> verdicts = compare::CompareWallTimes(rounds);
  std::map<std::string, compare::TimeComparison> by_key;
  for (size_t i = 0; i < keys.size(); ++i) by_key[keys[i]] = verdicts[i];
  return by_key;
}

}  // namespace icount::tools
