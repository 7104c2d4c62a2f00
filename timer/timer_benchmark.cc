// Benchmarks of //timer itself:
//   1. the per-run overhead of timing an empty C++ callable, in ns (wall
//      time) and in instructions (callgrind), and, for contrast, the same
//      loop calling through std::function (what a type-erased Timer would
//      pay per run);
//   2. end-to-end instruction-count collection for torch::add / torch.add on
//      4x4 tensors, number=100, repeats=5, each in a fresh child process.
//
//   ./bazelw run -c opt //timer:timer_benchmark            # everything
//   ./bazelw run -c opt //timer:timer_benchmark -- --quick  # overhead only
//
// docs/figures.md quotes its output.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "timer/timer.h"

namespace icount::timer {
namespace {

double Seconds(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Prints the instructions per run of timing an empty callable; false on an
// error.
bool PrintEmptyCallableInstructions() {
  constexpr int64_t kNumber = 100000;
  Timer empty = Timer::ForCallable([] {}, {}, "[empty]");
  CallgrindOptions options;
  options.number = kNumber;
  options.collect_baseline = false;
  absl::StatusOr<std::vector<CallgrindStats>> stats = empty.CollectCallgrind(options);
  if (!stats.ok()) {
    std::fprintf(stderr, "callgrind: %s\n", std::string(stats.status().message()).c_str());
    return false;
  }
  std::printf("empty callable: %.2f instructions per run (%lld for %lld runs, incl. toggles)\n",
              static_cast<double>((*stats)[0].Counts()) / kNumber,
              static_cast<long long>((*stats)[0].Counts()), static_cast<long long>(kNumber));
  return true;
}

// Prints the wall time per run of timing an empty callable, and of calling
// it through std::function; false on an error.
bool PrintEmptyCallableWallTimes() {
  Timer empty = Timer::ForCallable([] {}, {}, "[empty]");
  absl::StatusOr<Measurement> inlined = empty.BlockedAutorange(0.5);
  std::function<void()> erased = [] {};
  Timer type_erased = Timer::ForCallable([&erased] { erased(); }, {}, "[std::function]");
  absl::StatusOr<Measurement> indirect = type_erased.BlockedAutorange(0.5);
  if (!inlined.ok() || !indirect.ok()) return false;
  std::printf("empty callable: %.3f ns per run (block of %lld)\n", inlined->Median() * 1e9,
              static_cast<long long>(inlined->number_per_run()));
  std::printf("std::function call per run, for contrast: %.3f ns per run\n",
              indirect->Median() * 1e9);
  return true;
}

// Collects instruction counts for torch::add and torch.add end to end and
// prints how long that took; false on an error.
bool PrintTorchAddCollections() {
  struct Case {
    const char* name;
    absl::StatusOr<Timer> timer;
  };
  std::vector<Case> cases;
  double compile_seconds = Seconds([&] {
    cases.push_back({"C++ torch::add(x, y)",
                     Timer::ForCpp("auto z = torch::add(x, y);",
                                   "auto x = torch::ones({4, 4}); auto y = torch::ones({4, 4});")});
  });
  std::printf("C++ snippet compile (or cache hit): %.1f s\n", compile_seconds);
  cases.push_back(
      {"Python torch.add(x, y)",
       Timer::ForPython("torch.add(x, y)", "x = torch.ones(4, 4)\ny = torch.ones(4, 4)")});
  for (Case& c : cases) {
    if (!c.timer.ok()) {
      std::fprintf(stderr, "%s: %s\n", c.name, std::string(c.timer.status().message()).c_str());
      return false;
    }
    CallgrindOptions options;
    options.number = 100;
    options.repeats = 5;
    absl::StatusOr<std::vector<CallgrindStats>> stats;
    const double seconds = Seconds([&] { stats = c.timer->CollectCallgrind(options); });
    if (!stats.ok()) {
      std::fprintf(stderr, "%s: %s\n", c.name, std::string(stats.status().message()).c_str());
      return false;
    }
    std::printf(
        "%s: collect_callgrind(number=100, repeats=5) in %.1f s; %.1f instructions per "
        "run; 5 repeats identical: %s\n",
        c.name, seconds, (*stats)[0].CountsPerRun(),
        (*stats)[0].Counts() == (*stats)[4].Counts() ? "yes" : "NO");
  }
  return true;
}

int Main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;

  // Instructions first: CollectCallgrind on a callable re-executes this
  // binary, which replays main up to here; nothing expensive comes before.
  if (!quick && !PrintEmptyCallableInstructions()) return 1;
  if (!PrintEmptyCallableWallTimes()) return 1;
  if (quick) return 0;
  return PrintTorchAddCollections() ? 0 : 1;
}

}  // namespace
}  // namespace icount::timer

int main(int argc, char** argv) { return icount::timer::Main(argc, argv); }
