// Measures TimeSteps' false-alarm and detection rates on synthetic wall-time
// series, for docs/history.md:
//
//   bazel run -c opt //history:change_points_benchmark -- [--series=2000] [--penalty=6]
//
// Each series is a case's time over runs: log-normal noise of sigma
// (--sigma_pct) and, with probability --outlier_rate, a slow run (a busy
// neighbour, a slow process: +20% to +70%), as this project's 2-core VMs
// show. Without a step, any reported step is a false alarm (counted per
// series); with one +--step_pct step at a random run, a detection is a step
// reported within one run of it. Seeded: the figures repeat exactly.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "history/change_points.h"

ABSL_FLAG(int, series, 2000, "Series per configuration.");
ABSL_FLAG(double, penalty, 6.0, "StepOptions::time_penalty.");
ABSL_FLAG(double, min_effect_pct, 5.0, "StepOptions::time_min_effect_pct.");
ABSL_FLAG(double, outlier_rate, 0.05, "Chance that a run is slow (+20% to +70%).");
ABSL_FLAG(double, step_pct, 10.0, "The injected step.");
ABSL_FLAG(int, min_segment, 3, "StepOptions::time_min_segment.");

namespace icount::history {
namespace {

std::vector<double> MakeSeries(std::mt19937_64& random, int length, double sigma,
                               double outlier_rate, int step_at, double step) {
  std::normal_distribution<double> noise(0, sigma);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::vector<double> series;
  for (int i = 0; i < length; ++i) {
    double value = 1e-6 * std::exp(noise(random)) * (i >= step_at ? 1 + step : 1);
    if (uniform(random) < outlier_rate) value *= 1.2 + 0.5 * uniform(random);
    series.push_back(value);
  }
  return series;
}

int Main() {
  StepOptions options;
  options.time_penalty = absl::GetFlag(FLAGS_penalty);
  options.time_min_effect_pct = absl::GetFlag(FLAGS_min_effect_pct);
  options.time_min_segment = absl::GetFlag(FLAGS_min_segment);
  const int count = absl::GetFlag(FLAGS_series);
  const double outliers = absl::GetFlag(FLAGS_outlier_rate);
  const double step = absl::GetFlag(FLAGS_step_pct) / 100;
  std::printf(
      "penalty %.1f, min effect %.1f%%, min segment %d, outlier rate %.0f%%, %d series each\n\n",
      options.time_penalty, options.time_min_effect_pct, options.time_min_segment,
      100 * outliers, count);
  std::printf("%6s %7s | %18s | %17s %15s\n", "runs", "sigma", "false alarms/series",
              "step found (+-1)", "at exact run");
  std::mt19937_64 random(20261123);
  for (int length : {30, 100, 1000}) {
    for (double sigma : {0.01, 0.03, 0.05}) {
      int false_alarms = 0;
      int found = 0;
      int exact = 0;
      for (int k = 0; k < count; ++k) {
        if (!TimeSteps(MakeSeries(random, length, sigma, outliers, length, 0), options).empty()) {
          ++false_alarms;
        }
        std::uniform_int_distribution<int> where(3, length - 3);
        const int at = where(random);
        bool hit = false;
        bool hit_exact = false;
        for (const Step& s :
             TimeSteps(MakeSeries(random, length, sigma, outliers, at, step), options)) {
          const int index = static_cast<int>(s.index);
          hit = hit || std::abs(index - at) <= 1;
          hit_exact = hit_exact || index == at;
        }
        found += hit;
        exact += hit_exact;
      }
      std::printf("%6d %6.0f%% | %17.1f%% | %16.1f%% %14.1f%%\n", length, 100 * sigma,
                  100.0 * false_alarms / count, 100.0 * found / count, 100.0 * exact / count);
    }
  }
  return 0;
}

}  // namespace
}  // namespace icount::history

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return icount::history::Main();
}
