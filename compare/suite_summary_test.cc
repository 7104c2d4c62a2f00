#include "compare/suite_summary.h"

#include <cmath>
#include <random>

#include "base/proto_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::compare {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

TEST(SuiteSummaryTest, IdenticalSidesShowNoChange) {
  SuiteChangeBuilder builder(SuiteMetric::kInstructions, 0.1);
  for (double a : {1000.0, 2500.0, 40000.0}) builder.Add(a, a);
  const SuiteChange change = builder.Summarize();
  EXPECT_EQ(change.cases, 3);
  EXPECT_EQ(change.geomean_pct, 0);
  EXPECT_EQ(change.ci_low_pct, 0);
  EXPECT_EQ(change.ci_high_pct, 0);
  EXPECT_EQ(FormatSuiteChange(change),
            "instructions: 0.00% [0.00, 0.00] over 3 cases (0 up, 0 down, 3 within 0.1%)");
}

TEST(SuiteSummaryTest, GeometricMeanOfRatiosWithItsInterval) {
  SuiteChangeBuilder builder(SuiteMetric::kInstructions, 0.1);
  builder.Add(1000, 1100);    // +10%
  builder.Add(2000, 2000);    // the same
  builder.Add(4000, 4000.4);  // +0.01%: within 0.1%
  builder.Add(500, 450);      // -10%
  const SuiteChange change = builder.Summarize();
  EXPECT_NEAR(change.geomean_pct, (std::pow(1.1 * 1.0001 * 0.9, 0.25) - 1) * 100, 1e-9);
  EXPECT_EQ(change.up, 1);
  EXPECT_EQ(change.down, 1);
  EXPECT_EQ(change.unchanged, 2);
  // The interval spans what resampling four so different cases gives: at
  // most every case +10%, at least every case -10%.
  EXPECT_LT(change.ci_low_pct, change.geomean_pct);
  EXPECT_GT(change.ci_high_pct, change.geomean_pct);
  EXPECT_GE(change.ci_low_pct, -10.0 - 1e-9);
  EXPECT_LE(change.ci_high_pct, 10.0 + 1e-9);
  // Seeded: the same cases, the same interval.
  const SuiteChange again = builder.Summarize();
  EXPECT_EQ(again.ci_low_pct, change.ci_low_pct);
  EXPECT_EQ(again.ci_high_pct, change.ci_high_pct);
}

// 400 cases whose log ratios scatter around log(1.005): the interval holds
// +0.5% and is narrower than the scatter of single cases (sd 2%) by about
// sqrt(400) = 20.
TEST(SuiteSummaryTest, IntervalNarrowsWithManyCases) {
  std::mt19937_64 random(7);
  std::normal_distribution<double> log_ratio(std::log(1.005), 0.02);
  SuiteChangeBuilder builder(SuiteMetric::kInstructions, 0.1);
  for (int i = 0; i < 400; ++i) builder.Add(1000, 1000 * std::exp(log_ratio(random)));
  const SuiteChange change = builder.Summarize();
  EXPECT_LT(change.ci_low_pct, 0.5);
  EXPECT_GT(change.ci_high_pct, 0.5);
  EXPECT_LT(change.ci_high_pct - change.ci_low_pct, 0.5);  // ~4 x 2% / 20 = 0.4
  EXPECT_GT(change.ci_high_pct - change.ci_low_pct, 0.2);
}

TEST(SuiteSummaryTest, ZerosAndOneSidedCasesAreCountedNotAveraged) {
  SuiteChangeBuilder builder(SuiteMetric::kAllocations, 0);
  builder.Add(4, 5);
  builder.Add(0, 1);  // up, but no ratio
  builder.Add(0, 0);  // the same
  builder.Add(3, 3);
  builder.AddOnlyA();
  builder.AddOnlyB();
  builder.AddOnlyB();
  const SuiteChange change = builder.Summarize();
  EXPECT_EQ(change.cases, 2);
  EXPECT_NEAR(change.geomean_pct, (std::sqrt(1.25) - 1) * 100, 1e-9);
  EXPECT_EQ(change.up, 2);
  EXPECT_EQ(change.unchanged, 2);
  const std::string text = FormatSuiteChange(change);
  EXPECT_THAT(text, HasSubstr("over 2 cases (2 up, 0 down, 2 the same)"));
  EXPECT_THAT(text, HasSubstr("; the mean leaves out 2 with 0 on a side"));
  EXPECT_THAT(text, HasSubstr("; 3 cases on one side only (A 1, B 2), left out"));
}

TEST(SuiteSummaryTest, WallTimeUsesTheVerdicts) {
  SuiteChangeBuilder builder(SuiteMetric::kWallTime, 0);
  TimeComparison slower;
  slower.verdict = TimeVerdict::kSlower;
  slower.delta_pct = 21;
  TimeComparison same;
  same.verdict = TimeVerdict::kUnchanged;
  same.delta_pct = 0;
  TimeComparison too_few;  // no change to average
  builder.AddTime(slower);
  builder.AddTime(same);
  builder.AddTime(too_few);
  const SuiteChange change = builder.Summarize();
  EXPECT_EQ(change.cases, 2);
  EXPECT_NEAR(change.geomean_pct, 10, 1e-9);  // sqrt(1.21) = 1.1
  EXPECT_THAT(FormatSuiteChange(change),
              HasSubstr("over 2 cases (case by case: 1 significantly slower, 0 significantly faster, 1 not); 1 case without "
                        "one (too few rounds or unusable times), left out"));
  EXPECT_THAT(base::ProtoToJsonAllFields(SuiteChangeToProto(change)),
              HasSubstr("\"by\":\"significance\",\"no_verdict\":1"));
  SuiteChangeBuilder only_too_few(SuiteMetric::kWallTime, 0);
  only_too_few.AddTime(too_few);
  EXPECT_EQ(FormatSuiteChange(only_too_few.Summarize()),
            "wall time: no case with a verdict; 1 case without one (too few rounds or unusable "
            "times), left out");
}

TEST(SuiteSummaryTest, NothingToCompare) {
  const SuiteChange change = SuiteChangeBuilder(SuiteMetric::kInstructions, 0.1).Summarize();
  EXPECT_EQ(FormatSuiteChange(change), "instructions: no case measured on both sides");
  // Without cases, no mean and no interval; every count is there.
  const std::string json = base::ProtoToJsonAllFields(SuiteChangeToProto(change));
  for (const char* member :
       {"\"cases\":0,", "\"ci_pct\":[],", "\"up\":0,", "\"down\":0,", "\"unchanged\":0,",
        "\"unchanged_pct\":0.1", "\"only_a\":0,", "\"only_b\":0"}) {
    EXPECT_THAT(json, HasSubstr(member));
  }
  EXPECT_THAT(json, Not(HasSubstr("geomean_change_pct")));
}

// Resampling one case gives that case alone: no interval is shown for it.
TEST(SuiteSummaryTest, OneCaseHasAMeanButNoInterval) {
  SuiteChangeBuilder builder(SuiteMetric::kInstructions, 0.1);
  builder.Add(100, 110);
  const SuiteChange change = builder.Summarize();
  EXPECT_FALSE(change.has_interval());
  EXPECT_EQ(FormatSuiteChange(change),
            "instructions: +10.00% over 1 case (1 up, 0 down, 0 within 0.1%)");
  const SuiteSummaryProto summary = SuiteSummaryToProto({change});
  EXPECT_EQ(summary.instructions().geomean_change_pct(), 10);
  EXPECT_THAT(summary.instructions().ci_pct(), IsEmpty());
}

TEST(SuiteSummaryTest, JsonHasOneMemberPerMetric) {
  SuiteChangeBuilder instructions(SuiteMetric::kInstructions, 0.1);
  instructions.Add(100, 110);
  instructions.Add(200, 220);
  SuiteChangeBuilder time(SuiteMetric::kWallTime, 0);
  time.AddTime(TimeComparison{});  // too few rounds: no verdict
  const SuiteSummaryProto summary =
      SuiteSummaryToProto({instructions.Summarize(), time.Summarize()});
  EXPECT_EQ(summary.instructions().cases(), 2);
  EXPECT_EQ(summary.instructions().geomean_change_pct(), 10);
  EXPECT_THAT(summary.instructions().ci_pct(), ElementsAre(10, 10));
  EXPECT_EQ(summary.instructions().unchanged_pct(), 0.1);
  EXPECT_FALSE(summary.instructions().has_by());
  EXPECT_FALSE(summary.has_allocations());
  EXPECT_EQ(summary.wall_time().by(), "significance");
  EXPECT_EQ(summary.wall_time().no_verdict(), 1);
  EXPECT_FALSE(summary.wall_time().has_geomean_change_pct());
  EXPECT_FALSE(summary.wall_time().has_unchanged_pct());
  // Figures rounded to 6 significant digits, as the tables' readers see
  // them (10, not 10.000000000000009).
  EXPECT_THAT(base::ProtoToJsonAllFields(summary), HasSubstr("\"ci_pct\":[10,10]"));
}

TEST(CompareCaseTest, ComparesWhatBothSidesHave) {
  CaseValues values;
  values.a_instructions = 1000;
  values.b_instructions = 1100;
  values.a_allocations = 4;  // B did not count allocations
  values.a_cycles = 2000;
  values.b_cycles = 1900;
  std::optional<CaseComparison> comparison = CompareCase(values);
  ASSERT_TRUE(comparison.has_value());
  EXPECT_DOUBLE_EQ(*comparison->counts_delta_pct, 10);
  EXPECT_FALSE(comparison->allocations_delta.has_value());
  EXPECT_DOUBLE_EQ(*comparison->cycles_delta_pct, -5);
  EXPECT_EQ(comparison->time, nullptr);
  // One side only, or a count of 0 on A (no percentage), and no time:
  // nothing to compare; with a time, the time alone.
  values.b_instructions.reset();
  EXPECT_FALSE(CompareCase(values).has_value());
  values.a_instructions = 0;
  values.b_instructions = 5;
  EXPECT_FALSE(CompareCase(values).has_value());
  const TimeComparison time;
  values.time = &time;
  comparison = CompareCase(values);
  ASSERT_TRUE(comparison.has_value());
  EXPECT_FALSE(comparison->counts_delta_pct.has_value());
  EXPECT_EQ(comparison->time, &time);
}

}  // namespace
}  // namespace icount::compare
