#include "compare/gate.h"

#include <string>
#include <tuple>
#include <vector>

#include "base/proto_json.h"
#include "compare/node_check.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "timer/node.h"

namespace icount::compare {
namespace {

using ::testing::_;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

timer::InstructionCounts Counts(const std::string& key, double per_run) {
  timer::InstructionCounts c;
  c.task_spec.label = "Group";
  c.task_spec.sub_label = key;
  c.number_per_run = 100;
  c.counts = {static_cast<int64_t>(per_run * 100)};
  c.counts_per_run = per_run;
  c.metadata["case"] = key;
  return c;
}

timer::Measurement Times(const std::string& key, const std::vector<double>& times) {
  timer::TaskSpec spec;
  spec.label = "Group";
  spec.sub_label = key;
  return timer::Measurement(1, times, spec, {{"case", key}});
}

// One measurement per round: `rounds` rounds around `seconds` (+-1%).
std::vector<timer::Measurement> Rounds(const std::string& key, double seconds, int rounds) {
  std::vector<timer::Measurement> out;
  for (int r = 0; r < rounds; ++r) {
    const double t = seconds * (1 + 0.01 * ((r % 3) - 1));
    out.push_back(Times(key, {t, t * 1.001, t * 0.999}));
    out.back().mutable_metadata()["round"] = std::to_string(r);
  }
  return out;
}

TEST(GateTest, VerdictsUseBothThresholdsAndOverrides) {
  timer::ResultsFile before;
  timer::ResultsFile after;
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
  std::map<std::string, Verdict> verdicts;
  for (const CaseVerdict& c : report->cases) verdicts[c.key] = c.verdict;
  EXPECT_EQ(verdicts["same"], VERDICT_OK);
  EXPECT_EQ(verdicts["up 5%"], VERDICT_REGRESSION);
  EXPECT_EQ(verdicts["up 5% but small"], VERDICT_OK);  // +5 instructions < 20
  EXPECT_EQ(verdicts["down"], VERDICT_IMPROVEMENT);
  EXPECT_EQ(verdicts["tolerant"], VERDICT_OK);  // 5% < its 10% override
  EXPECT_EQ(verdicts["fresh"], VERDICT_NEW);
  EXPECT_EQ(verdicts["gone"], VERDICT_MISSING);
  EXPECT_EQ(report->regressions, 1);
  EXPECT_THAT(GateMarkdown(*report, options), HasSubstr("1 instruction-count regression"));
  EXPECT_THAT(GateMarkdown(*report, options),
              HasSubstr("| regression | 1000 | 1050 | +50 (+5.00%)"));
}

// Both times of a case in the unit of the larger, in figures a person
// would write: "0.904 -> 1.13 us", not "904 -> 1.13e+03 ns".
TEST(GateTest, WallTimesShareOneUnitAndNoScientificNotation) {
  timer::ResultsFile before;
  timer::ResultsFile after;
  before.instruction_counts = {Counts("a", 1000)};
  after.instruction_counts = before.instruction_counts;
  for (const timer::Measurement& m : Rounds("a", 904e-9, 3)) before.measurements.push_back(m);
  for (const timer::Measurement& m : Rounds("a", 1130e-9, 3)) after.measurements.push_back(m);
  GateOptions options;
  absl::StatusOr<GateReport> report = Gate(before, after, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(GateMarkdown(*report, options), HasSubstr("| 0.904 -> 1.13 us, +25.0% ["));
}

TEST(GateTest, WallTimeIsComparedRoundByRoundAndReportedNotGated) {
  timer::ResultsFile before;
  timer::ResultsFile after;
  before.instruction_counts = {Counts("a", 1000), Counts("b", 1000), Counts("c", 1000)};
  after.instruction_counts = before.instruction_counts;
  for (const auto& [key, then, now, rounds] :
       {std::make_tuple("a", 1e-6, 1.2e-6, 3), std::make_tuple("b", 2e-6, 2e-6, 3),
        std::make_tuple("c", 1e-6, 2e-6, 1)}) {
    for (const timer::Measurement& m : Rounds(key, then, 3)) before.measurements.push_back(m);
    for (const timer::Measurement& m : Rounds(key, now, rounds)) after.measurements.push_back(m);
  }
  GateOptions options;
  absl::StatusOr<GateReport> report = Gate(before, after, options);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->regressions, 0);
  EXPECT_EQ(report->time_regressions, 1);
  EXPECT_FALSE(GateFails(*report, options));
  ASSERT_EQ(report->cases.size(), 3u);
  const TimeComparison& a = *report->cases[0].time;
  EXPECT_EQ(a.verdict, TimeVerdict::kSlower);
  EXPECT_NEAR(a.delta_pct, 20, 0.5);
  EXPECT_LT(a.ci_low_pct, a.delta_pct);
  EXPECT_EQ(report->cases[1].time->verdict, TimeVerdict::kUnchanged);
  EXPECT_EQ(report->cases[2].time->verdict, TimeVerdict::kTooFewRounds);
  const std::string md = GateMarkdown(*report, options);
  EXPECT_THAT(md, HasSubstr("no instruction-count regression, 1 wall-time slowdown (reported, "
                            "not gating)"));
  EXPECT_THAT(md,
              HasSubstr("| Group / a [1T] | ok | 1000 | 1000 | +0 (+0.00%) | 1.00 -> 1.20 us, "
                        "+20.0% ["));
  // Only the significant change is worth a row; too few rounds is not.
  EXPECT_THAT(md, Not(HasSubstr("Group / c")));
  const CiFileProto file = GateToProto(*report);
  EXPECT_EQ(file.regressions(), 0);
  EXPECT_EQ(file.time_regressions(), 1);
  EXPECT_EQ(file.summary().instructions().cases(), 3);
  EXPECT_EQ(file.summary().wall_time().cases(), 2);
  EXPECT_FALSE(file.summary().has_allocations());
  EXPECT_THAT(md, HasSubstr("- wall time: +9.54% [0.00, +20.00] over 2 cases (case by case: 1 "
                            "significantly slower, 0 significantly faster, 1 not); 1 case without one (too few rounds or "
                            "unusable times), left out\n"));
  ASSERT_EQ(file.comparisons_size(), 3);
  const CaseComparisonProto& slower = file.comparisons(0);
  EXPECT_EQ(slower.case_(), "a");
  EXPECT_EQ(slower.counts_delta_pct(), 0);
  EXPECT_FALSE(slower.has_allocations_delta());
  EXPECT_NEAR(slower.time_delta_pct(), 20, 0.5);
  ASSERT_EQ(slower.time_ci_pct_size(), 2);
  EXPECT_LT(slower.time_ci_pct(0), slower.time_delta_pct());
  EXPECT_EQ(slower.time_verdict(), "slower");
  const CaseComparisonProto& too_few = file.comparisons(2);
  EXPECT_EQ(too_few.time_verdict(), "too few rounds");
  EXPECT_EQ(too_few.time_rounds(), 1);
  EXPECT_FALSE(too_few.has_time_delta_pct());
  EXPECT_EQ(too_few.time_ci_pct_size(), 0);
  // As ci writes it: every count, also the zeros; no member for what was
  // not measured.
  const std::string json = base::ProtoToJsonAllFields(file);
  EXPECT_THAT(json, HasSubstr("{\"regressions\":0,\"time_regressions\":1,\"node_warnings\":[],"
                              "\"summary\":{\"instructions\":{\"cases\":3,"));
  EXPECT_THAT(json, HasSubstr("\"time_delta_pct\":20,"));
  EXPECT_THAT(json, Not(HasSubstr("allocations_delta")));
  options.gate_on_time = true;
  EXPECT_TRUE(GateFails(*report, options));
  EXPECT_THAT(GateMarkdown(*report, options), HasSubstr("1 wall-time slowdown\n\n"));
}

TEST(GateTest, AllocationChangesAreReportedWhateverTheCountsDid) {
  auto with_allocations = [](timer::InstructionCounts c, double allocations) {
    c.allocations_per_run = allocations;
    return c;
  };
  timer::ResultsFile before;
  timer::ResultsFile after;
  before.instruction_counts = {with_allocations(Counts("same", 1000), 4),
                               with_allocations(Counts("one more", 1000), 4),
                               Counts("old file", 1000)};
  after.instruction_counts = {with_allocations(Counts("same", 1000), 4),
                              with_allocations(Counts("one more", 1001), 5),
                              with_allocations(Counts("old file", 1000), 2)};
  GateOptions options;
  absl::StatusOr<GateReport> report = Gate(before, after, options);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->regressions, 0);
  EXPECT_EQ(report->allocation_changes, 1);
  EXPECT_FALSE(AllocationsChanged(report->cases[0]));
  EXPECT_TRUE(AllocationsChanged(report->cases[1]));
  EXPECT_FALSE(AllocationsChanged(report->cases[2]));  // the baseline did not count them
  EXPECT_FALSE(GateFails(*report, options));
  const std::string md = GateMarkdown(*report, options);
  EXPECT_THAT(md, HasSubstr("0 missing; 1 allocate differently."));
  EXPECT_THAT(md, HasSubstr("| change | allocations per run | wall time (95% CI) |"));
  EXPECT_THAT(md,
              HasSubstr("| Group / one more [1T] | ok | 1000 | 1001 | +1 (+0.10%) | 4 -> 5 |"));
  EXPECT_THAT(md, Not(HasSubstr("Group / same")));
  const CiFileProto file = GateToProto(*report);
  ASSERT_EQ(file.comparisons_size(), 3);
  EXPECT_EQ(file.comparisons(0).case_(), "same");
  EXPECT_EQ(file.comparisons(0).allocations_delta(), 0);
  EXPECT_TRUE(file.comparisons(0).has_allocations_delta());
  EXPECT_EQ(file.comparisons(1).allocations_delta(), 1);
  EXPECT_EQ(file.comparisons(2).case_(), "old file");
  EXPECT_FALSE(file.comparisons(2).has_allocations_delta());
  EXPECT_EQ(file.summary().allocations().up(), 1);
}

TEST(GateTest, MismatchedSuitesAreReportedNotFatal) {
  timer::ResultsFile before;
  timer::ResultsFile after;
  before.suite_checksum = "aaaa";
  after.suite_checksum = "bbbb";
  absl::StatusOr<GateReport> report = Gate(before, after, {});
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->checksum_mismatch);
  EXPECT_THAT(GateMarkdown(*report, {}), HasSubstr("case sets differ"));
}

TEST(GateTest, MarkdownShowsTheCasesWorthReading) {
  timer::ResultsFile before;
  timer::ResultsFile after;
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
            "Wall time: each case's rounds against the baseline's, Welch's t-test on log times, "
            "95% intervals; `*` significant after Benjamini-Hochberg over all cases at 5% and at "
            "least 1%; 0 slower, 0 faster.\n\n"
            "Overall, this run against the baseline (geometric mean over cases, 95% interval):\n\n"
            "- instructions: +4.88% [0.00, +10.00] over 2 cases (1 up, 0 down, 1 within 0.1%)\n\n"
            "| case | verdict | before | after | change | wall time (95% CI) |\n"
            "| :--- | :--- | ---: | ---: | ---: | :--- |\n"
            "| Group / up\\|pipe [1T] | regression | 1000 | 1100 | +100 (+10.00%) |  |\n");
}

TEST(GateTest, WallTimesOfDifferentHostsAreNotComparedUnlessAsked) {
  timer::ResultsFile before;
  timer::ResultsFile after;
  timer::NodeProto here, there;
  here.set_host("here");
  here.set_cpu_model("AMD EPYC");
  there.set_host("there");
  there.set_cpu_model("Intel Xeon");
  before.instruction_counts = {Counts("a", 1000)};
  after.instruction_counts = {Counts("a", 1000)};
  before.instruction_counts[0].metadata[timer::kNodeMetadataKey] = timer::AddNode(before, here);
  after.instruction_counts[0].metadata[timer::kNodeMetadataKey] = timer::AddNode(after, there);
  before.measurements = Rounds("a", 1e-6, 3);
  after.measurements = Rounds("a", 2e-6, 3);
  for (timer::Measurement& m : before.measurements)
    m.mutable_metadata()[timer::kNodeMetadataKey] = "here";
  for (timer::Measurement& m : after.measurements)
    m.mutable_metadata()[timer::kNodeMetadataKey] = "there";
  GateOptions options;
  absl::StatusOr<GateReport> report = Gate(before, after, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_FALSE(report->cases[0].time.has_value());
  EXPECT_EQ(report->time_across_hosts, 1);
  ASSERT_EQ(report->node_warnings.size(), 2);
  EXPECT_THAT(report->node_warnings[0],
              HasSubstr("counts of 1 case were taken on nodes that differ (CPU AMD EPYC vs Intel "
                        "Xeon): the baseline on here (AMD EPYC), this run on there (Intel Xeon)"));
  EXPECT_EQ(report->node_warnings[1],
            "wall time of 1 case was taken on different hosts: the baseline on here, this run on "
            "there (not compared; --compare_time_across_hosts compares them)");
  EXPECT_THAT(GateMarkdown(*report, options),
              HasSubstr("\n\n> **Warning:** counts of 1 case were taken on nodes that differ"));
  EXPECT_THAT(GateToProto(*report).node_warnings(), ElementsAre(HasSubstr("counts of 1 case"), _));
  options.compare_time_across_hosts = true;
  report = Gate(before, after, options);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->cases[0].time.has_value());
  EXPECT_EQ(report->cases[0].time->verdict, TimeVerdict::kSlower);
  EXPECT_THAT(report->node_warnings[1], HasSubstr("(compared anyway"));
}

TEST(GateTest, WarnsWhenOnlyOneSideRehearsedTorchScript) {
  timer::ResultsFile before;
  timer::ResultsFile after;
  before.instruction_counts = {Counts("a", 1000)};
  after.instruction_counts = {Counts("a", 1000)};
  after.settings[kTorchScriptCasesSetting] = "rehearsed";
  absl::StatusOr<GateReport> report = Gate(before, after, GateOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->node_warnings.size(), 1);
  EXPECT_THAT(report->node_warnings[0],
              HasSubstr("this run counted TorchScript cases after icount's TorchScript rehearsal "
                        "and the baseline did not"));
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
}  // namespace icount::compare
