#include "timer/timer.h"

#include <torch/cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/text.h"
#include "timer/internal/callgrind_collect.h"
#include "timer/internal/cpp_snippet.h"
#include "timer/internal/python_snippet.h"

namespace icount::timer {
namespace {

// The reference clamps every timing to at least a nanosecond so that
// relative overheads never divide by zero.
constexpr double kMinBlockSeconds = 1e-9;
// Block sizes stay below 2^31 runs.
constexpr int64_t kMaxBlockSize = 2147483647;

class CppSnippetKernel final : public timer::internal::Kernel {
 public:
  explicit CppSnippetKernel(std::shared_ptr<timer::internal::CompiledCppSnippet> snippet)
      : snippet_(std::move(snippet)) {}
  absl::Status Run(const IcountBlockControl& control) override { return snippet_->Run(control); }

 private:
  std::shared_ptr<timer::internal::CompiledCppSnippet> snippet_;
};

class PythonSnippetKernel final : public timer::internal::Kernel {
 public:
  explicit PythonSnippetKernel(std::shared_ptr<timer::internal::PythonSnippet> snippet)
      : snippet_(std::move(snippet)) {}
  absl::Status Run(const IcountBlockControl& control) override { return snippet_->Run(control); }

 private:
  std::shared_ptr<timer::internal::PythonSnippet> snippet_;
};

bool CudaAvailable() {
  static const bool available = torch::cuda::is_available();
  return available;
}

// One block of `number` runs, timed by `clock` (synchronising CUDA around
// it when present, so queued kernels count toward the block).
struct SingleBlock {
  int64_t number;
  const Clock* clock;
  bool handed_out = false;
  double start = 0;
  double elapsed = 0;

  static int64_t Next(void* self) {
    auto* block = static_cast<SingleBlock*>(self);
    if (block->handed_out) return -1;
    block->handed_out = true;
    return block->number;
  }
  static void Begin(void* self) {
    auto* block = static_cast<SingleBlock*>(self);
    if (CudaAvailable()) torch::cuda::synchronize();
    block->start = (*block->clock)();
  }
  static void End(void* self) {
    auto* block = static_cast<SingleBlock*>(self);
    if (CudaAvailable()) torch::cuda::synchronize();
    block->elapsed = (*block->clock)() - block->start;
  }
};

absl::Status CheckPositive(const char* name, double value) {
  if (!(value > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must be positive, got ", value));
  }
  return absl::OkStatus();
}

}  // namespace

double SteadyClockSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Timer::Timer(std::shared_ptr<timer::internal::Kernel> kernel, TaskSpec spec, Clock clock,
             bool code_in_this_binary)
    : kernel_(std::move(kernel)),
      spec_(std::move(spec)),
      clock_(clock ? std::move(clock) : Clock(SteadyClockSeconds)),
      code_in_this_binary_(code_in_this_binary) {}

TaskSpec Timer::MakeTaskSpec(std::string stmt, std::string setup, std::string global_setup,
                             Language language, const TimerOptions& options) {
  TaskSpec spec;
  spec.stmt = std::move(stmt);
  spec.setup = std::move(setup);
  spec.global_setup = std::move(global_setup);
  spec.label = options.label;
  spec.sub_label = options.sub_label;
  spec.description = options.description;
  spec.env = options.env;
  spec.num_threads = options.num_threads;
  spec.language = language;
  return spec;
}

TaskSpec Timer::StringTaskSpec(TaskSpec spec) {
  spec.stmt = base::NormalizeSnippet(spec.stmt);
  // The reference treats Python's default setup "pass" as no setup in C++.
  spec.setup = spec.language == Language::kCpp && spec.setup == "pass"
                   ? ""
                   : base::NormalizeSnippet(spec.setup);
  if (spec.language == Language::kPython) spec.global_setup.clear();
  return spec;
}

absl::StatusOr<Timer> Timer::ForCpp(const std::string& stmt, const std::string& setup,
                                    const std::string& global_setup, TimerOptions options) {
  TaskSpec spec =
      StringTaskSpec(MakeTaskSpec(stmt, setup, global_setup, Language::kCpp, options));
  if (spec.stmt.empty()) {
    return absl::InvalidArgumentError("C++ Timer: stmt is empty; give the statement to time");
  }
  if (absl::Status status = CheckPositive("num_threads", options.num_threads); !status.ok()) {
    return status;
  }
  absl::StatusOr<std::shared_ptr<timer::internal::CompiledCppSnippet>> snippet =
      timer::internal::CompiledCppSnippet::Compile({spec.stmt, spec.setup, spec.global_setup});
  if (!snippet.ok()) return snippet.status();
  return Timer(std::make_shared<CppSnippetKernel>(*std::move(snippet)), std::move(spec),
               std::move(options.clock), /*code_in_this_binary=*/false);
}

Timer Timer::ForCompiledEntry(IcountSnippetEntry entry, TaskSpec spec) {
  spec.language = Language::kCpp;
  return Timer(std::make_shared<timer::internal::SnippetEntryKernel>(entry), std::move(spec),
               Clock(), /*code_in_this_binary=*/true);
}

absl::StatusOr<Timer> Timer::ForPython(const std::string& stmt, const std::string& setup,
                                       TimerOptions options) {
  TaskSpec spec = StringTaskSpec(MakeTaskSpec(stmt, setup, "", Language::kPython, options));
  if (spec.stmt.empty()) {
    return absl::InvalidArgumentError("Python Timer: stmt is empty; give the statement to time");
  }
  if (absl::Status status = CheckPositive("num_threads", options.num_threads); !status.ok()) {
    return status;
  }
  absl::StatusOr<std::shared_ptr<timer::internal::PythonSnippet>> snippet =
      timer::internal::PythonSnippet::Compile(spec.stmt, spec.setup);
  if (!snippet.ok()) return snippet.status();
  return Timer(std::make_shared<PythonSnippetKernel>(*std::move(snippet)), std::move(spec),
               std::move(options.clock), /*code_in_this_binary=*/false);
}

absl::StatusOr<Timer> Timer::ForBaseline(Language language, TimerOptions options) {
  if (absl::Status status = CheckPositive("num_threads", options.num_threads); !status.ok()) {
    return status;
  }
  absl::StatusOr<std::shared_ptr<timer::internal::Kernel>> kernel =
      timer::internal::MakeBaselineKernel(language);
  if (!kernel.ok()) return kernel.status();
  const bool python = language == Language::kPython;
  TaskSpec spec =
      MakeTaskSpec(python ? "pass" : "[an empty C++ statement]", "", "", language, options);
  // From outside valgrind, Python's `pass` is rebuilt by the runner from
  // the spec; the empty C++ callable is reached by replaying this binary.
  return Timer(*std::move(kernel), std::move(spec), std::move(options.clock),
               /*code_in_this_binary=*/!python);
}

absl::Status Timer::CheckThreads() const {
  if (spec_.num_threads >= 1) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("Timer of \"", spec_.stmt,
                                                 "\": num_threads must be positive, got ",
                                                 spec_.num_threads, " (TimerOptions)"));
}

absl::StatusOr<double> Timer::TimeBlock(int64_t number) const {
  if (number < 0) {
    return absl::InvalidArgumentError(absl::StrCat("TimeBlock: number must be >= 0, got ", number));
  }
  SingleBlock block{number, &clock_};
  const IcountBlockControl control{&block, &SingleBlock::Next, &SingleBlock::Begin,
                                   &SingleBlock::End};
  if (absl::Status status = kernel_->Run(control); !status.ok()) return status;
  return std::max(block.elapsed, kMinBlockSeconds);
}

absl::StatusOr<Measurement> Timer::Timeit(int64_t number) {
  if (number < 1) {
    return absl::InvalidArgumentError(absl::StrCat("Timeit: number must be >= 1, got ", number));
  }
  if (absl::Status status = CheckThreads(); !status.ok()) return status;
  ScopedTorchThreads threads(spec_.num_threads);
  if (absl::StatusOr<double> warmup = TimeBlock(std::max<int64_t>(number / 100, 2)); !warmup.ok()) {
    return warmup.status();
  }
  absl::StatusOr<double> seconds = TimeBlock(number);
  if (!seconds.ok()) return seconds.status();
  return Measurement(number, {*seconds}, spec_);
}

absl::StatusOr<int64_t> Timer::EstimateBlockSize(double min_run_time, const BlockRule& rule) const {
  ScopedTorchThreads threads(spec_.num_threads);
  std::vector<double> empty_blocks;
  for (int i = 0; i < 5; ++i) {
    absl::StatusOr<double> seconds = TimeBlock(0);
    if (!seconds.ok()) return seconds.status();
    empty_blocks.push_back(*seconds);
  }
  // torch.Tensor.median: the lower middle value.
  std::sort(empty_blocks.begin(), empty_blocks.end());
  const double overhead = empty_blocks[(empty_blocks.size() - 1) / 2];
  // One run first, untimed for the rule: the first run in a fresh process
  // (the suite forks one per case) pays for copy-on-write faults and lazy
  // initialisation, and could pass a loose BlockRule on its own, leaving
  // blocks of a single run.
  if (absl::StatusOr<double> warmup = TimeBlock(1); !warmup.ok()) return warmup.status();
  int64_t number = 1;
  while (true) {
    absl::StatusOr<double> time_taken = TimeBlock(number);
    if (!time_taken.ok()) return time_taken.status();
    const double relative_overhead = overhead / *time_taken;
    if (relative_overhead <= rule.max_timer_overhead &&
        *time_taken >= min_run_time * rule.min_block_share) {
      break;
    }
    if (*time_taken > min_run_time) break;
    if (number * 10 > kMaxBlockSize) break;
    number *= 10;
  }
  return number;
}

absl::StatusOr<Measurement> Timer::MeasurementLoop(
    int64_t number, double min_run_time, std::optional<double> max_run_time,
    const std::function<bool(const std::vector<double>&)>& can_stop_hook,
    const BlockCallback& callback) const {
  ScopedTorchThreads threads(spec_.num_threads);
  double total_time = 0;
  bool can_stop = false;
  std::vector<double> times;
  while (total_time < min_run_time || !can_stop) {
    absl::StatusOr<double> time_spent = TimeBlock(number);
    if (!time_spent.ok()) return time_spent.status();
    times.push_back(*time_spent);
    total_time += *time_spent;
    if (callback) callback(number, *time_spent);
    can_stop = can_stop_hook(times);
    if (max_run_time.has_value() && total_time > *max_run_time) break;
  }
  return Measurement(number, std::move(times), spec_);
}

absl::StatusOr<Measurement> Timer::BlockedAutorange(double min_run_time,
                                                    const BlockCallback& callback,
                                                    const BlockRule& rule) {
  for (const auto& [name, value] : {std::pair<const char*, double>{"min_run_time", min_run_time},
                                    {"BlockRule::max_timer_overhead", rule.max_timer_overhead},
                                    {"BlockRule::min_block_share", rule.min_block_share}}) {
    if (absl::Status status = CheckPositive(name, value); !status.ok()) return status;
  }
  if (absl::Status status = CheckThreads(); !status.ok()) return status;
  absl::StatusOr<int64_t> number = EstimateBlockSize(min_run_time, rule);
  if (!number.ok()) return number.status();
  return MeasurementLoop(
      *number, min_run_time, std::nullopt, [](const std::vector<double>&) { return true; },
      callback);
}

absl::StatusOr<Measurement> Timer::TimeBlocks(int64_t number, double min_run_time,
                                              const BlockCallback& callback) {
  if (absl::Status status = CheckPositive("min_run_time", min_run_time); !status.ok()) {
    return status;
  }
  if (number < 1 || number > kMaxBlockSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("TimeBlocks: number must be in [1, ", kMaxBlockSize, "], got ", number));
  }
  if (absl::Status status = CheckThreads(); !status.ok()) return status;
  // The warm-up BlockedAutorange gets from sizing its blocks (its last
  // trial is a block of `number` runs): one untimed block, so both ways of
  // timing a statement start from the same state.
  ScopedTorchThreads threads(spec_.num_threads);
  if (absl::StatusOr<double> warmup = TimeBlock(number); !warmup.ok()) return warmup.status();
  return MeasurementLoop(
      number, min_run_time, std::nullopt, [](const std::vector<double>&) { return true; },
      callback);
}

absl::StatusOr<Measurement> Timer::AdaptiveAutorange(double threshold, double min_run_time,
                                                     double max_run_time,
                                                     const BlockCallback& callback) {
  for (const auto& [name, value] : {std::pair<const char*, double>{"threshold", threshold},
                                    {"min_run_time", min_run_time},
                                    {"max_run_time", max_run_time}}) {
    if (absl::Status status = CheckPositive(name, value); !status.ok()) return status;
  }
  if (absl::Status status = CheckThreads(); !status.ok()) return status;
  // The reference estimates the block size for 0.05 s here, whatever
  // min_run_time is.
  absl::StatusOr<int64_t> number = EstimateBlockSize(0.05, BlockRule());
  if (!number.ok()) return number.status();
  const int64_t block = *number;
  return MeasurementLoop(
      block, min_run_time, max_run_time,
      [&](const std::vector<double>& times) {
        return times.size() > 3 && Measurement(block, times, spec_).MeetsConfidence(threshold);
      },
      callback);
}

absl::Status InitializeEmbeddedPython() { return timer::internal::EnsurePythonInitialized(); }

}  // namespace icount::timer
