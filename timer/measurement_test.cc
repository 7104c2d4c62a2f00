// Expected values are hand-computed and agree with torch.utils.benchmark
// 1.13's Measurement (checked with /usr/bin/python3 and python3-torch).
#include "timer/measurement.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::timer {
namespace {

using ::testing::DoubleEq;
using ::testing::ElementsAre;

TaskSpec Spec(std::string stmt = "x + y") {
  TaskSpec spec;
  spec.stmt = std::move(stmt);
  spec.setup = "pass";
  return spec;
}

TEST(MeasurementTest, OneSample) {
  Measurement m(100, {1.2e-4}, Spec());
  EXPECT_DOUBLE_EQ(m.Median(), 1.2e-6);
  EXPECT_DOUBLE_EQ(m.Mean(), 1.2e-6);
  EXPECT_DOUBLE_EQ(m.Iqr(), 0);
  EXPECT_EQ(m.SignificantFigures(), 1);
  EXPECT_FALSE(m.HasWarnings());
  EXPECT_EQ(m.Summary(), "x + y\n  1.20 us\n  1 measurement, 100 runs , 1 thread");
}

// The reference divides by zero here; ours is defined: the lowest count.
TEST(MeasurementTest, SignificantFiguresOfAZeroMedianIsOne) {
  EXPECT_EQ(Measurement(1, {0.0, 0.0, 0.0}, Spec()).SignificantFigures(), 1);
  EXPECT_EQ(Measurement(1, {-1e-9, 0.0, 0.0}, Spec()).SignificantFigures(), 1);
}

// icount's rule: precision from the blocks, the clock's floor per block.
TEST(MeasurementTest, BlockFiguresResolveWhatTheReferenceFloorHides) {
  // 50 blocks of 1,000 runs: 199 ns and 201 ns a run, alternating.
  std::vector<double> blocks;
  for (int i = 0; i < 50; ++i) blocks.push_back(i % 2 ? 201e-6 : 199e-6);
  const Measurement m(1000, blocks, Spec());
  EXPECT_EQ(m.SignificantFigures(), 1);  // 25 ns is an eighth of 200 ns
  // 26 interquartile times, sd 1.02 ns: 1.708 * 1.02 / sqrt(26) = 0.34 ns.
  EXPECT_EQ(m.SignificantFigures(FiguresRule::kBlocks), 2);
  // Compare merges before it renders: the pooled per-run times keep their
  // blocks' size.
  const std::vector<Measurement> merged = Measurement::Merge({m});
  EXPECT_EQ(merged[0].number_per_run(), 1);
  EXPECT_EQ(merged[0].runs_per_block(), 1000);
  EXPECT_EQ(merged[0].SignificantFigures(FiguresRule::kBlocks), 2);
}

TEST(MeasurementTest, BlockFiguresNeedTwoBlocksAndWidenForFew) {
  EXPECT_EQ(Measurement(1000, {200e-6}, Spec()).SignificantFigures(FiguresRule::kBlocks), 1);
  // Two blocks 0.1% apart: t(0.95, 1) = 6.31, so 0.63 ns of 200 ns (two
  // figures), where 1.645 population sd would claim three.
  EXPECT_EQ(Measurement(1000, {200e-6, 200.2e-6}, Spec()).SignificantFigures(FiguresRule::kBlocks),
            2);
}

TEST(MeasurementTest, BlockFiguresStopAtTheClocksGranularityPerBlock) {
  // Identical blocks of 100 ns a run: 25 ns over 10 runs is 2.5 ns (1
  // figure), over 1,000 runs 0.025 ns (3 figures).
  EXPECT_EQ(Measurement(10, std::vector<double>(10, 1e-6), Spec())
                .SignificantFigures(FiguresRule::kBlocks),
            1);
  EXPECT_EQ(Measurement(1000, std::vector<double>(10, 100e-6), Spec())
                .SignificantFigures(FiguresRule::kBlocks),
            3);
  EXPECT_EQ(Measurement(1, {0.0, 0.0, 0.0}, Spec()).SignificantFigures(FiguresRule::kBlocks), 1);
}

TEST(MeasurementTest, TwoSamplesInterpolateAndWarn) {
  TaskSpec spec = Spec();
  spec.label = "add";
  spec.sub_label = "4x4";
  Measurement m(100, {1.2e-4, 1.6e-4}, spec);
  // Quantiles of {1.2, 1.6} us: p25 = 1.2 + 0.25 * 0.4, p75 = 1.2 + 0.75 * 0.4.
  EXPECT_DOUBLE_EQ(m.Median(), 1.4e-6);
  EXPECT_DOUBLE_EQ(m.P25(), 1.3e-6);
  EXPECT_DOUBLE_EQ(m.P75(), 1.5e-6);
  ASSERT_TRUE(m.HasWarnings());
  EXPECT_EQ(m.Summary(),
            "add: 4x4\n"
            "  Median: 1.40 us\n"
            "  2 measurements, 100 runs per measurement, 1 thread\n"
            "  WARNING: Interquartile range is 14.3% of the median measurement.\n"
            "           This could indicate system fluctuation.");
}

TEST(MeasurementTest, FourSamplesGrossWarningAndThreads) {
  TaskSpec spec = Spec();
  spec.label = "add";
  spec.description = "float";
  spec.num_threads = 2;
  Measurement m(10, {1e-5, 2e-5, 4e-5, 3e-5}, spec);
  // Sorted per-run times {1, 2, 3, 4} us: rank 0.75 -> 1.75, 1.5 -> 2.5, 2.25 -> 3.25.
  EXPECT_DOUBLE_EQ(m.Median(), 2.5e-6);
  EXPECT_DOUBLE_EQ(m.P25(), 1.75e-6);
  EXPECT_DOUBLE_EQ(m.P75(), 3.25e-6);
  EXPECT_DOUBLE_EQ(m.Mean(), 2.5e-6);
  EXPECT_FALSE(m.MeetsConfidence(0.25));
  EXPECT_EQ(m.Summary(),
            "add\n"
            "float\n"
            "  Median: 2.50 us\n"
            "  IQR:    1.50 us (1.75 to 3.25)\n"
            "  4 measurements, 10 runs per measurement, 2 threads\n"
            "  WARNING: Interquartile range is 60.0% of the median measurement.\n"
            "           This suggests significant environmental influence.");
}

TEST(MeasurementTest, OddCountWithMultiLineSetup) {
  TaskSpec spec = Spec();
  spec.label = "mul";
  spec.setup = "x = 1\ny = 2";
  Measurement m(1, {5e-6, 5.1e-6, 4.9e-6, 5.05e-6, 5.2e-6}, spec);
  EXPECT_DOUBLE_EQ(m.Median(), 5.05e-6);
  EXPECT_DOUBLE_EQ(m.P25(), 5e-6);
  EXPECT_DOUBLE_EQ(m.P75(), 5.1e-6);
  EXPECT_EQ(m.SignificantFigures(), 2);
  EXPECT_FALSE(m.HasWarnings());
  EXPECT_EQ(m.Summary(),
            "mul\n"
            "setup:\n"
            "  x = 1\n"
            "  y = 2\n"
            "\n"
            "  Median: 5.05 us\n"
            "  IQR:    0.10 us (5.00 to 5.10)\n"
            "  5 measurements, 1 runs per measurement, 1 thread");
}

TEST(MeasurementTest, MultiLineStmtTitleAndMilliseconds) {
  TaskSpec spec = Spec("a\nb");
  spec.sub_label = "sub";
  Measurement m(1000, {1.0, 1.01, 0.99, 1.3, 1.0, 1.02, 0.5}, spec);
  EXPECT_DOUBLE_EQ(m.Median(), 0.001);
  EXPECT_NEAR(m.Mean(), 0.0009742857142857142, 1e-18);
  EXPECT_EQ(m.SignificantFigures(), 2);
  EXPECT_EQ(m.Summary(),
            "stmt: (sub)\n"
            "  a\n"
            "  b\n"
            "\n"
            "  Median: 1.00 ms\n"
            "  IQR:    0.02 ms (0.99 to 1.02)\n"
            "  7 measurements, 1000 runs per measurement, 1 thread");
}

TEST(MeasurementTest, RowAndEnvNames) {
  TaskSpec spec = Spec("");
  Measurement unnamed(1, {1.0}, spec);
  EXPECT_EQ(unnamed.RowName(), "[Unknown]");
  EXPECT_EQ(unnamed.EnvName(), "Unspecified env");
  spec.sub_label = "row";
  spec.env = "B";
  Measurement named(1, {1.0}, spec);
  EXPECT_EQ(named.RowName(), "row");
  EXPECT_EQ(named.EnvName(), "B");
}

TEST(MeasurementTest, MergePoolsPerRunTimesByTaskSpec) {
  TaskSpec a = Spec("a");
  TaskSpec b = Spec("b");
  Measurement a1(10, {1e-5}, a, {{"note", "dropped"}});
  Measurement b1(1, {3e-6}, b);
  Measurement a2(100, {2e-4, 3e-4}, a);
  std::vector<Measurement> merged = Measurement::Merge({a1, b1, a2});
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0].task_spec().stmt, "a");
  EXPECT_EQ(merged[0].number_per_run(), 1);
  EXPECT_THAT(merged[0].raw_times(), ElementsAre(DoubleEq(1e-6), DoubleEq(2e-6), DoubleEq(3e-6)));
  EXPECT_TRUE(merged[0].metadata().empty());
  EXPECT_EQ(merged[1].task_spec().stmt, "b");
}

TEST(MeasurementTest, MergeKeepsDifferentEnvsApart) {
  TaskSpec a = Spec("a");
  TaskSpec a_in_b = a;
  a_in_b.env = "B";
  EXPECT_EQ(Measurement::Merge({Measurement(1, {1.0}, a), Measurement(1, {1.0}, a_in_b)}).size(),
            2u);
}

TEST(UnitsTest, SelectTimeUnitLikeTheReference) {
  EXPECT_EQ(SelectTimeUnit(1e-9).first, "ns");
  EXPECT_EQ(SelectTimeUnit(9.99e-7).first, "ns");
  EXPECT_EQ(SelectTimeUnit(1e-6).first, "us");
  EXPECT_EQ(SelectTimeUnit(1e-3).first, "ms");
  EXPECT_EQ(SelectTimeUnit(0.5).first, "ms");
  EXPECT_EQ(SelectTimeUnit(12.0).first, "s");
  EXPECT_EQ(TimeUnitToEnglish("us"), "microsecond");
}

TEST(UnitsTest, TrimSignificantFiguresInFloat32LikeTheReference) {
  EXPECT_EQ(TrimSignificantFigures(3.14159, 2), 3.1000001430511475);
  EXPECT_EQ(TrimSignificantFigures(123456.0, 3), 123000.0);
  EXPECT_EQ(TrimSignificantFigures(0.000123456, 2), 0.00011999999696854502);
  EXPECT_EQ(TrimSignificantFigures(2.5, 1), 2.0);  // half to even
  EXPECT_EQ(TrimSignificantFigures(9.96, 2), 10.0);
}

TEST(QuantileTest, LinearInterpolation) {
  EXPECT_DOUBLE_EQ(Quantile({1, 2, 3, 4}, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(Quantile({7}, 0.75), 7);
  EXPECT_DOUBLE_EQ(Quantile({1, 3}, 0.5), 2);
}

}  // namespace
}  // namespace icount::timer
