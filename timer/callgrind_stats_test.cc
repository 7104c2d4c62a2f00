#include "timer/callgrind_stats.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "timer/function_counts_testutil.h"

namespace icount::timer {
namespace {

CallgrindStats Sample(bool with_baseline = true) {
  TaskSpec spec;
  spec.stmt = "torch.add(x, y)";
  spec.label = "add";
  FunctionCounts exclusive = CountsOfTexts({{900, "???:at::add [/usr/lib/libtorch_cpu.so]"},
                            {60, "Objects/dictobject.c:lookdict_unicode [python]"},
                            {40, "loop"}},
                           false);
  FunctionCounts inclusive = CountsOfTexts({{1000, "main"}, {900, "???:at::add [/usr/lib/libtorch_cpu.so]"}}, true);
  std::optional<FunctionCounts> baseline_exclusive;
  std::optional<FunctionCounts> baseline_inclusive;
  if (with_baseline) {
    baseline_exclusive = CountsOfTexts({{40, "loop"}}, false);
    baseline_inclusive = CountsOfTexts({{40, "loop"}}, true);
  }
  return CallgrindStats(spec, 10, false, inclusive, exclusive, baseline_inclusive,
                        baseline_exclusive, std::nullopt);
}

TEST(CallgrindStatsTest, CountsTotalsAndPerRun) {
  CallgrindStats stats = Sample();
  EXPECT_EQ(stats.Counts(), 1000);
  EXPECT_EQ(stats.Counts(/*denoise=*/true), 940);
  EXPECT_EQ(stats.BaselineCounts(), 40);
  EXPECT_DOUBLE_EQ(stats.CountsPerRun(), 96.0);  // (1000 - 40) / 10
  EXPECT_DOUBLE_EQ(Sample(false).CountsPerRun(), 100.0);
}

TEST(CallgrindStatsTest, SummaryLikeTheReference) {
  EXPECT_EQ(Sample().Summary(),
            "add\n"
            "                           All          Noisy symbols removed\n"
            "    Instructions:         1000                        940\n"
            "    Baseline:               40                         40\n"
            "10 runs per measurement, 1 thread\n"
            "    Per run:             96.00 (baseline subtracted)\n"
            "Warning: LibTorch has no debug symbols here.\n"
            "         Source information may be limited. Install its debug\n"
            "         symbols (or build with REL_WITH_DEB_INFO=1) for file:line detail.");
}

TEST(CallgrindStatsTest, DeltaAndStandardized) {
  CallgrindStats a = Sample();
  EXPECT_EQ(a.Delta(a).size(), 0u);
  CallgrindStats standardized = a.AsStandardized();
  EXPECT_EQ(standardized.Stats()[0].function.text(), "???:at::add");
  EXPECT_EQ(standardized.Counts(), 1000);
}

TEST(CallgrindStatsTest, JsonRoundTrip) {
  std::vector<CallgrindStats> stats = {Sample(), Sample(false)};
  absl::StatusOr<std::vector<CallgrindStats>> back =
      CallgrindStatsFromJson(CallgrindStatsToJson(stats), "stats.json");
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].task_spec(), stats[0].task_spec());
  EXPECT_EQ((*back)[0].Stats(true).rows(), stats[0].Stats(true).rows());
  EXPECT_EQ((*back)[0].Stats(false).rows(), stats[0].Stats(false).rows());
  EXPECT_TRUE((*back)[0].has_baseline());
  EXPECT_FALSE((*back)[1].has_baseline());
  EXPECT_DOUBLE_EQ((*back)[0].CountsPerRun(), 96.0);
}

TEST(CallgrindStatsTest, CorruptJsonIsAnError) {
  absl::StatusOr<std::vector<CallgrindStats>> back =
      CallgrindStatsFromJson("{\"stats\": [{", "x.json");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("x.json"), absl::string_view::npos);
}

}  // namespace
}  // namespace icount::timer
