#include "compare/gate.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount {
namespace {

using ::testing::HasSubstr;

InstructionCounts Counts(const std::string& key, double per_run) {
  InstructionCounts c;
  c.task_spec.label = "Group";
  c.task_spec.sub_label = key;
  c.number_per_run = 100;
  c.counts = {static_cast<int64_t>(per_run * 100)};
  c.counts_per_run = per_run;
  c.metadata["case"] = key;
  return c;
}

Measurement Times(const std::string& key, const std::vector<double>& times) {
  TaskSpec spec;
  spec.label = "Group";
  spec.sub_label = key;
  return Measurement(1, times, spec, {{"case", key}});
}

TEST(MannWhitneyTest, KnownValues) {
  // scipy.stats.mannwhitneyu(..., alternative="two-sided", method="asymptotic")
  EXPECT_NEAR(MannWhitneyPValue({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 0.01219, 1e-4);
  EXPECT_NEAR(MannWhitneyPValue({1, 2, 3}, {1, 2, 3}), 1.0, 1e-9);
  EXPECT_EQ(MannWhitneyPValue({}, {1}), 1.0);
}

TEST(GateTest, VerdictsUseBothThresholdsAndOverrides) {
  ResultsFile before;
  ResultsFile after;
  before.instruction_counts = {Counts("same", 1000),           Counts("up 5%", 1000),
                               Counts("up 5% but small", 100), Counts("down", 2000),
                               Counts("tolerant", 1000),       Counts("gone", 10)};
  after.instruction_counts = {Counts("same", 1000),           Counts("up 5%", 1050),
                              Counts("up 5% but small", 105), Counts("down", 1000),
                              Counts("tolerant", 1050),       Counts("fresh", 10)};
  GateOptions options;
  options.threshold_pct = 1;
  options.threshold_abs = 20;
  options.pct_overrides = {{"^tol", 10}};
  absl::StatusOr<GateReport> report = Gate(before, after, options);
  ASSERT_TRUE(report.ok()) << report.status();
  std::map<std::string, compare::Verdict> verdicts;
  for (const CaseVerdict& c : report->cases) verdicts[c.key] = c.verdict;
  EXPECT_EQ(verdicts["same"], compare::VERDICT_OK);
  EXPECT_EQ(verdicts["up 5%"], compare::VERDICT_REGRESSION);
  EXPECT_EQ(verdicts["up 5% but small"], compare::VERDICT_OK);  // +5 instructions < 20
  EXPECT_EQ(verdicts["down"], compare::VERDICT_IMPROVEMENT);
  EXPECT_EQ(verdicts["tolerant"], compare::VERDICT_OK);  // 5% < its 10% override
  EXPECT_EQ(verdicts["fresh"], compare::VERDICT_NEW);
  EXPECT_EQ(verdicts["gone"], compare::VERDICT_MISSING);
  EXPECT_EQ(report->regressions, 1);
  EXPECT_THAT(GateMarkdown(*report, options), HasSubstr("1 instruction-count regression"));
  EXPECT_THAT(GateMarkdown(*report, options),
              HasSubstr("| regression | 1000 | 1050 | +50 (+5.00%)"));
}

TEST(GateTest, WallTimeIsReportedNotGated) {
  ResultsFile before;
  ResultsFile after;
  before.instruction_counts = {Counts("a", 1000)};
  after.instruction_counts = {Counts("a", 1000)};
  before.measurements = {Times("a", {1, 1.1, 0.9, 1.05, 0.95, 1, 1.02, 0.98})};
  after.measurements = {Times("a", {2, 2.1, 1.9, 2.05, 1.95, 2, 2.02, 1.98})};
  absl::StatusOr<GateReport> report = Gate(before, after, {});
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->regressions, 0);
  ASSERT_EQ(report->cases.size(), 1u);
  ASSERT_TRUE(report->cases[0].time_p_value.has_value());
  EXPECT_LT(*report->cases[0].time_p_value, 0.01);
  EXPECT_THAT(GateMarkdown(*report, {}), HasSubstr("changed"));
}

TEST(GateTest, MismatchedSuitesAreReportedNotFatal) {
  ResultsFile before;
  ResultsFile after;
  before.suite_checksum = "aaaa";
  after.suite_checksum = "bbbb";
  absl::StatusOr<GateReport> report = Gate(before, after, {});
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->checksum_mismatch);
  EXPECT_THAT(GateMarkdown(*report, {}), HasSubstr("case sets differ"));
}

TEST(GateTest, MarkdownShowsTheCasesWorthReading) {
  ResultsFile before;
  ResultsFile after;
  before.instruction_counts = {Counts("same", 1000), Counts("up|pipe", 1000)};
  after.instruction_counts = {Counts("same", 1000), Counts("up|pipe", 1100)};
  GateOptions options;
  absl::StatusOr<GateReport> report = Gate(before, after, options);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(VerdictName(report->cases[1].verdict), std::string("regression"));
  EXPECT_EQ(GateMarkdown(*report, options),
            "### icount: 1 instruction-count regression\n\n"
            "2 cases compared; 0 improved; 0 new, 0 missing. Thresholds: +1.00% and +50 "
            "instructions per run.\n\n"
            "| case | verdict | before | after | change | wall time (p) |\n"
            "| :--- | :--- | ---: | ---: | ---: | :--- |\n"
            "| Group / up\\|pipe [, 1T] | regression | 1000 | 1100 | +100 (+10.00%) |  |\n");
}

TEST(GateTest, BadOverrideIsAnError) {
  GateOptions options;
  options.pct_overrides = {{"(", 5}};
  EXPECT_EQ(Gate({}, {}, options).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckGateOptions(options).message(),
            "threshold override \"(\" is not a valid regex: missing ): (");
  options.pct_overrides = {{"add", -1}};
  EXPECT_EQ(CheckGateOptions(options).message(),
            "threshold override \"add\" must be >= 0 percent, got -1");
}

TEST(GateTest, NegativeThresholdsAreErrors) {
  GateOptions options;
  EXPECT_TRUE(CheckGateOptions(options).ok());
  options.threshold_pct = -5;
  EXPECT_EQ(CheckGateOptions(options).message(), "threshold_pct must be >= 0, got -5");
  options.threshold_pct = 1;
  options.threshold_abs = -1;
  EXPECT_EQ(CheckGateOptions(options).message(), "threshold_abs must be >= 0, got -1");
}

}  // namespace
}  // namespace icount
