#include "compare/time_comparison.h"

#include <cmath>
#include <random>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/student_t.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::compare {
namespace {

using ::testing::HasSubstr;

TEST(BenjaminiHochbergTest, StepsUpFromTheLargestPassingRank) {
  // Sorted: 0.01 <= 1/4 * 0.05, 0.03 > 2/4 * 0.05, 0.04 > 3/4 * 0.05.
  EXPECT_THAT(BenjaminiHochberg({0.01, 0.04, 0.03, 0.5}, 0.05),
              ::testing::ElementsAre(true, false, false, false));
  // 0.04 <= 4/4 * 0.05 rejects all four, 0.03 included.
  EXPECT_THAT(BenjaminiHochberg({0.04, 0.03, 0.02, 0.01}, 0.05),
              ::testing::ElementsAre(true, true, true, true));
  EXPECT_TRUE(BenjaminiHochberg({}, 0.05).empty());
}

// `cases` cases of `rounds` rounds, each side's time 1 us times lognormal
// noise of `noise` (relative), B slower by `slowdown`.
std::vector<PairedRounds> Simulate(std::mt19937& random, int cases, int rounds, double noise,
                                   double slowdown) {
  std::normal_distribution<double> normal(0, noise);
  std::vector<PairedRounds> out(cases);
  for (PairedRounds& c : out) {
    for (int r = 0; r < rounds; ++r) {
      // What disturbs a round disturbs both sides (the pairing), plus each
      // side's own noise.
      const double round_factor = std::exp(normal(random) * 3);
      c.a.push_back(1e-6 * round_factor * std::exp(normal(random)));
      c.b.push_back(1e-6 * round_factor * std::exp(normal(random)) * (1 + slowdown));
    }
  }
  return out;
}

TEST(CompareWallTimesTest, IdenticalSidesRarelyRaiseAnyAlarm) {
  std::mt19937 random(20261123);
  int suites_with_an_alarm = 0;
  int alarms = 0;
  constexpr int kSuites = 200;
  constexpr int kCases = 200;
  for (int s = 0; s < kSuites; ++s) {
    int flagged = 0;
    for (const TimeComparison& c : CompareWallTimes(Simulate(random, kCases, 6, 0.03, 0))) {
      ASSERT_EQ(c.verdict == TimeVerdict::kUnchanged, !c.significant);
      flagged += c.significant;
    }
    alarms += flagged;
    suites_with_an_alarm += flagged > 0;
  }
  // BH at 5% under identical sides: any alarm in about 5% of suites.
  EXPECT_LE(suites_with_an_alarm, kSuites / 10);
  EXPECT_LE(alarms, kSuites * kCases / 200);  // far below 5% of cases
}

TEST(CompareWallTimesTest, TenPercentSlowerIsCaught) {
  std::mt19937 random(7);
  std::vector<PairedRounds> cases = Simulate(random, 100, 6, 0.03, 0.10);
  const std::vector<PairedRounds> unchanged = Simulate(random, 100, 6, 0.03, 0);
  cases.insert(cases.end(), unchanged.begin(), unchanged.end());
  const std::vector<TimeComparison> verdicts = CompareWallTimes(cases);
  int caught = 0;
  int false_alarms = 0;
  for (size_t i = 0; i < verdicts.size(); ++i) {
    if (i < 100) {
      caught += verdicts[i].verdict == TimeVerdict::kSlower;
      EXPECT_LT(verdicts[i].ci_low_pct, verdicts[i].delta_pct);
      EXPECT_GT(verdicts[i].ci_high_pct, verdicts[i].delta_pct);
      EXPECT_GT(verdicts[i].resolvable_pct, 0);
      EXPECT_LT(verdicts[i].resolvable_pct, 10);
    } else {
      false_alarms += verdicts[i].significant;
    }
  }
  EXPECT_GE(caught, 95);
  EXPECT_LE(false_alarms, 5);
}

TEST(CompareWallTimesTest, IntervalAndChangeOfAConsistentSlowdown) {
  std::vector<TimeComparison> verdicts =
      CompareWallTimes({{{1.00e-6, 1.02e-6, 0.99e-6}, {1.10e-6, 1.11e-6, 1.09e-6}},
                        {{5.0e-6, 5.1e-6, 4.9e-6}, {5.0e-6, 5.0e-6, 5.1e-6}}});
  ASSERT_EQ(verdicts.size(), 2u);
  EXPECT_NEAR(verdicts[0].delta_pct, 9.6, 0.1);
  EXPECT_EQ(verdicts[0].verdict, TimeVerdict::kSlower);
  EXPECT_NEAR(verdicts[0].a_seconds, std::cbrt(1.00 * 1.02 * 0.99) * 1e-6, 1e-15);
  EXPECT_NEAR(verdicts[0].b_seconds, std::cbrt(1.10 * 1.11 * 1.09) * 1e-6, 1e-15);
  EXPECT_LT(verdicts[0].p_value, 0.01);
  EXPECT_EQ(verdicts[1].verdict, TimeVerdict::kUnchanged);
  EXPECT_FALSE(verdicts[1].significant);
  EXPECT_EQ(FormatTimeChange(verdicts[0]),
            absl::StrFormat("%+.1f%% [%+.1f, %+.1f]", verdicts[0].delta_pct, verdicts[0].ci_low_pct,
                            verdicts[0].ci_high_pct));
}

// The two times a comparison shows are the ones its change compares: with
// one slow round of A's, the medians (1.0 -> 1.2 us) would read +20%
// beside a change of -44%.
TEST(CompareWallTimesTest, TheTimesShownAreTheOnesTheChangeCompares) {
  const std::vector<double> a = {1.0e-6, 1.0e-6, 10.0e-6};
  const std::vector<double> b = {1.2e-6, 1.2e-6, 1.2e-6};
  const TimeComparison paired = CompareWallTimes({{a, b}})[0];
  const TimeComparison unpaired = CompareUnpairedWallTimes({{a, b}})[0];
  for (const TimeComparison& c : {paired, unpaired}) {
    EXPECT_NEAR(c.a_seconds, std::cbrt(10.0) * 1e-6, 1e-15);
    EXPECT_NEAR(c.b_seconds, 1.2e-6, 1e-15);
    EXPECT_NEAR(100 * (c.b_seconds / c.a_seconds - 1), c.delta_pct, 1e-9);
    EXPECT_LT(c.delta_pct, -40);
  }
}

TEST(CompareWallTimesTest, SmallChangesAreNotFlaggedHoweverConsistent) {
  // +0.5% in every round, no noise: p = 0, but under min_effect_pct.
  std::vector<TimeComparison> verdicts =
      CompareWallTimes({{{1e-6, 2e-6, 3e-6}, {1.005e-6, 2.01e-6, 3.015e-6}}});
  EXPECT_EQ(verdicts[0].p_value, 0);
  EXPECT_FALSE(verdicts[0].significant);
  EXPECT_EQ(FormatTimeChange(verdicts[0]), "+0.50% [+0.50, +0.50]");
}

TEST(CompareWallTimesTest, BadInputGetsItsOwnVerdictAndTheRestAreCompared) {
  std::vector<TimeComparison> verdicts =
      CompareWallTimes({{{1e-6, 1e-6}, {2e-6, 2e-6}},
                        {{1e-6, 0, 1e-6}, {1e-6, 1e-6, 1e-6}},
                        {{1e-6, 1e-6, 1e-6}, {1e-6, 1e-6}},
                        {{1e-6, 1.01e-6, 0.99e-6}, {2e-6, 2.02e-6, 1.98e-6}}});
  EXPECT_EQ(verdicts[0].verdict, TimeVerdict::kTooFewRounds);
  EXPECT_EQ(FormatTimeChange(verdicts[0]), "too few rounds (2 of 3 needed)");
  EXPECT_EQ(verdicts[1].verdict, TimeVerdict::kUnusable);
  EXPECT_THAT(FormatTimeChange(verdicts[1]),
              HasSubstr("unusable: side A's time in round 2 is 0 (a timer that went backwards"));
  EXPECT_EQ(verdicts[2].verdict, TimeVerdict::kUnusable);
  EXPECT_THAT(verdicts[2].problem, HasSubstr("A has 3 rounds and B 2"));
  EXPECT_EQ(verdicts[3].verdict, TimeVerdict::kSlower);
}

}  // namespace
}  // namespace icount::compare

namespace icount::compare {
namespace {

// Unpaired rounds: each side's own noise, nothing shared.
std::vector<UnpairedRounds> SimulateUnpaired(std::mt19937& random, int cases, int rounds,
                                             double noise, double slowdown) {
  std::normal_distribution<double> normal(0, noise);
  std::vector<UnpairedRounds> out(cases);
  for (UnpairedRounds& c : out) {
    for (int r = 0; r < rounds; ++r) {
      c.a.push_back(1e-6 * std::exp(normal(random)));
      c.b.push_back(1e-6 * std::exp(normal(random)) * (1 + slowdown));
    }
  }
  return out;
}

TEST(CompareUnpairedWallTimesTest, WelchOnLogTimes) {
  // Equal spread and size: Welch's degrees of freedom are 2n - 2 = 4, and
  // t = log(1.1) / sqrt(2 s^2 / 3) with s the spread of the logs.
  const double s = 0.01;
  const std::vector<double> a = {std::exp(-s), 1.0, std::exp(s)};
  std::vector<double> b;
  for (double x : a) b.push_back(1.1 * x);
  const std::vector<TimeComparison> verdicts = CompareUnpairedWallTimes({{a, b}});
  const TimeComparison& c = verdicts[0];
  EXPECT_NEAR(c.delta_pct, 10.0, 1e-9);
  const double standard_error = std::sqrt(2 * s * s / 3);
  EXPECT_NEAR(c.p_value, base::StudentTTwoSidedP(std::log(1.1) / standard_error, 4), 1e-12);
  EXPECT_NEAR(
      c.ci_high_pct,
      100 * (std::exp(std::log(1.1) + base::StudentTQuantile(0.975, 4) * standard_error) - 1),
      1e-9);
  EXPECT_EQ(c.verdict, TimeVerdict::kSlower);
  EXPECT_EQ(FormatTimeChange(c).substr(0, 7), "+10.0% ");
}

TEST(CompareUnpairedWallTimesTest, RatesOnSimulatedSuites) {
  std::mt19937 random(18);
  int alarms = 0;
  for (int s = 0; s < 50; ++s) {
    for (const TimeComparison& c :
         CompareUnpairedWallTimes(SimulateUnpaired(random, 200, 3, 0.02, 0))) {
      alarms += c.significant;
    }
  }
  EXPECT_LE(alarms, 50 * 200 / 200);  // BH: far below 5% of cases
  int caught = 0;
  for (const TimeComparison& c :
       CompareUnpairedWallTimes(SimulateUnpaired(random, 100, 5, 0.02, 0.10))) {
    caught += c.verdict == TimeVerdict::kSlower;
  }
  EXPECT_GE(caught, 95);
}

TEST(CompareUnpairedWallTimesTest, TooFewRoundsOrUnusableTimesGiveNoVerdict) {
  const std::vector<TimeComparison> verdicts = CompareUnpairedWallTimes(
      {{{1e-6}, {1e-6, 1.1e-6, 1e-6}}, {{1e-6, 0, 1e-6}, {1e-6, 1e-6, 1e-6}}, {{}, {1e-6}}});
  EXPECT_EQ(verdicts[0].verdict, TimeVerdict::kTooFewRounds);
  EXPECT_EQ(verdicts[0].problem, "too few rounds (1 in the baseline, 3 now; 3 needed on each)");
  EXPECT_EQ(verdicts[1].verdict, TimeVerdict::kUnusable);
  EXPECT_THAT(verdicts[1].problem, HasSubstr("side A's time in round 2 is 0"));
  EXPECT_EQ(verdicts[2].problem, "no rounds in the baseline");
}

}  // namespace
}  // namespace icount::compare
