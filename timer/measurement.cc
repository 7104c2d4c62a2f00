#include "timer/measurement.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/student_t.h"

namespace icount::timer {
namespace {

// The reference's constants (torch/utils/benchmark/utils/common.py).
constexpr int kMaxSignificantFigures = 4;
constexpr double kMinConfidenceInterval = 25e-9;  // 25 ns
constexpr double kIqrWarnThreshold = 0.1;
constexpr double kIqrGrossWarnThreshold = 0.25;

// Python's float floor division for the values we use (b > 0).
double FloorDiv(double a, double b) { return std::floor(a / b); }

// The reference evaluates these through default-dtype (float32) tensors;
// doing the same in float keeps unit choices and trimming identical at the
// boundaries.
double Log10AsFloat32(double x) { return static_cast<double>(std::log10(static_cast<float>(x))); }

}  // namespace

double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return -1;
  const double rank = q * static_cast<double>(sorted.size() - 1);
  const double below = std::floor(rank);
  const size_t lo = static_cast<size_t>(below);
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double weight = rank - below;
  const double a = sorted[lo];
  const double b = sorted[hi];
  // torch.lerp's formulation, which is exact at both ends.
  return weight < 0.5 ? a + weight * (b - a) : b - (b - a) * (1 - weight);
}

std::pair<std::string, double> SelectTimeUnit(double seconds) {
  const double exponent = FloorDiv(Log10AsFloat32(seconds), 3);
  if (exponent == -3) return {"ns", 1e-9};
  if (exponent == -2) return {"us", 1e-6};
  if (exponent == -1) return {"ms", 1e-3};
  return {"s", 1};
}

std::string TimeUnitToEnglish(const std::string& unit) {
  if (unit == "ns") return "nanosecond";
  if (unit == "us") return "microsecond";
  if (unit == "ms") return "millisecond";
  return "second";
}

double TrimSignificantFigures(double x, int n) {
  const int magnitude = static_cast<int>(std::ceil(std::log10(std::fabs(static_cast<float>(x)))));
  const int power = magnitude - n;
  // Python: 10 ** power is an exact int for power >= 0, a float otherwise.
  const double scale = std::pow(10.0, power);
  const float quotient = static_cast<float>(x / scale);
  const float rounded = std::nearbyint(quotient);  // round half to even
  return static_cast<double>(rounded * static_cast<float>(scale));
}

Measurement::Measurement(int64_t number_per_run, std::vector<double> raw_times, TaskSpec task_spec,
                         std::map<std::string, std::string> metadata)
    : number_per_run_(number_per_run),
      runs_per_block_(std::max<int64_t>(number_per_run, 1)),
      raw_times_(std::move(raw_times)),
      task_spec_(std::move(task_spec)),
      metadata_(std::move(metadata)) {
  ComputeStats();
}

std::vector<double> Measurement::Times() const {
  std::vector<double> times;
  times.reserve(raw_times_.size());
  for (double t : raw_times_) times.push_back(t / static_cast<double>(number_per_run_));
  return times;
}

void Measurement::ComputeStats() {
  if (raw_times_.empty()) return;
  stats_.sorted_times = Times();
  std::sort(stats_.sorted_times.begin(), stats_.sorted_times.end());
  const std::vector<double>& sorted = stats_.sorted_times;
  stats_.median = Quantile(sorted, 0.5);
  double sum = 0;
  for (double t : sorted) sum += t;
  stats_.mean = sum / static_cast<double>(sorted.size());
  stats_.p25 = Quantile(sorted, 0.25);
  stats_.p75 = Quantile(sorted, 0.75);

  auto add_warning = [&](const char* message) {
    const double relative_iqr = Iqr() / Median() * 100;
    warnings_.push_back(absl::StrFormat(
        "  WARNING: Interquartile range is %.1f%% of the median measurement.\n           %s",
        relative_iqr, message));
  };
  if (!MeetsConfidence(kIqrGrossWarnThreshold)) {
    add_warning("This suggests significant environmental influence.");
  } else if (!MeetsConfidence(kIqrWarnThreshold)) {
    add_warning("This could indicate system fluctuation.");
  }
}

bool Measurement::MeetsConfidence(double threshold) const { return Iqr() / Median() < threshold; }

int Measurement::SignificantFigures(FiguresRule rule) const {
  const std::vector<double>& sorted = stats_.sorted_times;
  const size_t n = sorted.size();
  const size_t lower = n / 4;
  const size_t upper = static_cast<size_t>(std::ceil(static_cast<float>(3.0 * n / 4)));
  if (rule == FiguresRule::kBlocks) return BlockFigures(lower, std::min(upper, n));
  // Population standard deviation of the interquartile points, which the
  // reference takes in float32 (accumulating in double).
  std::vector<float> points;
  for (size_t i = lower; i < upper && i < n; ++i) points.push_back(static_cast<float>(sorted[i]));
  double std_dev = 0;
  if (!points.empty()) {
    double mean = 0;
    for (float p : points) mean += p;
    mean /= static_cast<double>(points.size());
    double squares = 0;
    for (float p : points) squares += (p - mean) * (p - mean);
    std_dev = static_cast<float>(std::sqrt(squares / static_cast<double>(points.size())));
  }
  const double sqrt_n = static_cast<double>(std::sqrt(static_cast<float>(points.size())));
  const double confidence_interval = std::max(1.645 * std_dev / sqrt_n, kMinConfidenceInterval);
  const double relative_ci = Log10AsFloat32(stats_.median / confidence_interval);
  // A zero or negative median (log10 gives -inf or NaN), or no times at all:
  // the reference divides by zero; 1 is its floor for tiny ratios.
  if (!std::isfinite(relative_ci)) return 1;
  const int figures = static_cast<int>(std::floor(static_cast<float>(relative_ci)));
  return std::min(std::max(figures, 1), kMaxSignificantFigures);
}

int Measurement::BlockFigures(size_t lower, size_t upper) const {
  const std::vector<double>& sorted = stats_.sorted_times;
  const size_t k = upper > lower ? upper - lower : 0;
  if (k < 2 || !(stats_.median > 0)) return 1;
  double mean = 0;
  for (size_t i = lower; i < upper; ++i) mean += sorted[i];
  mean /= static_cast<double>(k);
  double squares = 0;
  for (size_t i = lower; i < upper; ++i) squares += (sorted[i] - mean) * (sorted[i] - mean);
  const double sample_sd = std::sqrt(squares / static_cast<double>(k - 1));
  const double t = base::StudentTQuantile(0.95, static_cast<double>(k - 1));
  const double clock_floor = kMinConfidenceInterval / static_cast<double>(runs_per_block_);
  const double confidence_interval =
      std::max(t * sample_sd / std::sqrt(static_cast<double>(k)), clock_floor);
  const int figures = static_cast<int>(std::floor(std::log10(stats_.median / confidence_interval)));
  return std::min(std::max(figures, 1), kMaxSignificantFigures);
}

std::string Measurement::RowName() const {
  if (task_spec_.sub_label.has_value() && !task_spec_.sub_label->empty()) {
    return *task_spec_.sub_label;
  }
  return task_spec_.stmt.empty() ? "[Unknown]" : task_spec_.stmt;
}

std::string Measurement::EnvName() const { return task_spec_.env.value_or("Unspecified env"); }

std::string Measurement::Summary() const {
  const size_t n = stats_.sorted_times.size();
  const auto [unit, scale] = SelectTimeUnit(stats_.median);
  std::vector<std::string> lines = absl::StrSplit(task_spec_.Summarize(), '\n');
  lines.push_back(
      absl::StrFormat("  %s%.2f %s", n > 1 ? "Median: " : "", stats_.median / scale, unit));
  if (n >= 4) {
    lines.push_back(absl::StrFormat("  IQR:    %.2f %s (%.2f to %.2f)", Iqr() / scale, unit,
                                    stats_.p25 / scale, stats_.p75 / scale));
  }
  const int threads = task_spec_.num_threads;
  lines.push_back(absl::StrFormat("  %d measurement%s, %d runs %s %d thread%s", n, n > 1 ? "s" : "",
                                  number_per_run_, n > 1 ? "per measurement," : ",", threads,
                                  threads > 1 ? "s" : ""));
  for (const std::string& warning : warnings_) lines.push_back(warning);
  std::string text = absl::StrJoin(lines, "\n");
  // The reference strips the whole repr, which drops a trailing newline.
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

std::vector<Measurement> Measurement::Merge(const std::vector<Measurement>& measurements) {
  struct Group {
    TaskSpec spec;
    std::vector<double> times;
    int64_t runs_per_block;
  };
  std::vector<Group> groups;
  for (const Measurement& m : measurements) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group& group) { return group.spec == m.task_spec(); });
    if (it == groups.end()) {
      groups.push_back({m.task_spec(), {}, m.runs_per_block()});
      it = std::prev(groups.end());
    }
    std::vector<double> times = m.Times();
    it->times.insert(it->times.end(), times.begin(), times.end());
    it->runs_per_block = std::min(it->runs_per_block, m.runs_per_block());
  }
  std::vector<Measurement> merged;
  merged.reserve(groups.size());
  for (Group& group : groups) {
    merged.emplace_back(1, std::move(group.times), std::move(group.spec));
    merged.back().runs_per_block_ = group.runs_per_block;
  }
  return merged;
}

}  // namespace icount::timer
