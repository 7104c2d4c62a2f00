#include "report/report_data.h"

#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>

#include <unistd.h>
#include <cmath>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "history/store.h"
#include "report/html_page.h"
#include "timer/node_testutil.h"
#include "report/testing/fake_suite.h"

namespace icount::report {
namespace {

using report::testing::FakeCaseKey;
using report::testing::FakeSuite;
using report::testing::FakeSuiteResults;

ReportDataProto DataOf(const ReportInput& input) {
  absl::StatusOr<ReportDataProto> data = ReportData(input);
  EXPECT_TRUE(data.ok()) << data.status();
  return data.ok() ? *data : ReportDataProto();
}

// The case with `key`, or an empty one.
const ReportCaseProto& CaseOf(const ReportDataProto& data, absl::string_view key) {
  for (const ReportCaseProto& c : data.cases()) {
    if (c.key() == key) return c;
  }
  ADD_FAILURE() << "no case " << key;
  return ReportCaseProto::default_instance();
}

struct Inputs {
  timer::ResultsFile baseline;
  timer::ResultsFile current;
};

Inputs MakeInputs() {
  FakeSuite before;
  before.cases = 8;
  FakeSuite after = before;
  after.cases = 9;
  after.tax_per_run = 300;
  after.time_factor = 1.1;
  after.failures[FakeCaseKey(7)] = "statement failed: made up";
  return {FakeSuiteResults(before), FakeSuiteResults(after)};
}

TEST(ReportDataTest, ARunShowsEveryCaseWithItsNumbers) {
  const Inputs in = MakeInputs();
  ReportInput input;
  input.current = in.current;
  input.current.command = "bazel-bin/tools/main --filter=op";
  const ReportDataProto data = DataOf(input);
  EXPECT_EQ(data.kind(), "run");
  EXPECT_EQ(data.summary().current().command(), "bazel-bin/tools/main --filter=op");
  ASSERT_EQ(data.cases_size(), 8);  // 9 minus the failure
  for (const timer::InstructionCounts& c : in.current.instruction_counts) {
    const ReportCaseProto& reported = CaseOf(data, c.metadata.at("case"));
    EXPECT_DOUBLE_EQ(reported.counts().per_run(), c.counts_per_run);
    EXPECT_TRUE(reported.counts().repeats_identical());
    // Three rounds of five blocks, pooled; the median is Measurement's.
    EXPECT_EQ(reported.time().samples(), 15);
    EXPECT_EQ(reported.time().rounds(), 3);
    EXPECT_TRUE(reported.has_tree());
    EXPECT_FALSE(reported.has_delta());
    EXPECT_FALSE(reported.has_baseline());
  }
  const ReportCaseProto& first = CaseOf(data, FakeCaseKey(0));
  EXPECT_EQ(first.language(), "Python");
  EXPECT_EQ(first.runtime(), "Eager");
  EXPECT_EQ(first.autograd(), "Forward");
  EXPECT_EQ(first.group(), "Pointwise");
  // From the metadata the front ends record, not from the labels.
  EXPECT_EQ(CaseOf(data, FakeCaseKey(2)).runtime(), "TorchScript");
  EXPECT_EQ(CaseOf(data, FakeCaseKey(8)).autograd(), "Forward + Backward");
  // The failure, with its reason, and what the page cannot show.
  EXPECT_EQ(data.summary().current().failures().at(FakeCaseKey(7)), "statement failed: made up");
  const std::string missing = absl::StrJoin(data.missing(), "\n");
  EXPECT_THAT(missing, ::testing::HasSubstr("history: no store was given"));
  EXPECT_THAT(missing, ::testing::Not(::testing::HasSubstr("call trees")));
}

TEST(ReportDataTest, AComparisonHasDeltasIntervalsAndUnmatchedCases) {
  const Inputs in = MakeInputs();
  ReportInput input;
  input.current = in.current;
  input.baseline = in.baseline;
  const ReportDataProto data = DataOf(input);
  EXPECT_EQ(data.kind(), "comparison");
  const ReportCaseProto& c = CaseOf(data, FakeCaseKey(1));
  const double before = c.baseline().counts().per_run();
  const double after = c.counts().per_run();
  EXPECT_DOUBLE_EQ(after - before, 300);
  // ab_test's and ci's --json figures: 6 significant digits.
  EXPECT_NEAR(c.delta().counts_delta_pct(), 300 / before * 100, 1e-4);
  // 10% slower in every round: significant, with its interval around it.
  const compare::CaseComparisonProto& delta = c.delta();
  EXPECT_EQ(delta.case_(), FakeCaseKey(1));
  EXPECT_EQ(delta.time_verdict(), "slower");
  EXPECT_TRUE(delta.time_significant());
  EXPECT_NEAR(delta.time_delta_pct(), 10, 0.5);
  ASSERT_EQ(delta.time_ci_pct_size(), 2);
  EXPECT_LT(delta.time_ci_pct(0), delta.time_delta_pct());
  EXPECT_GT(delta.time_ci_pct(1), delta.time_delta_pct());
  EXPECT_TRUE(c.has_baseline_tree());
  EXPECT_EQ(c.counts().allocations_per_run(), 4);
  EXPECT_EQ(delta.allocations_delta(), 1);
  // The tax is the one function whose own instructions changed.
  ASSERT_EQ(c.function_delta_size(), 1);
  const auto& [taxed, change] = *c.function_delta().begin();
  EXPECT_EQ(data.functions(taxed).function(), "icount_test_allocation_tax");
  EXPECT_GT(change, 0);
  // The suite-level answer: every compared case grew, in instructions and
  // in allocations; the two cases on one side only are left out.
  const auto& lines = data.overall().lines();
  ASSERT_EQ(lines.size(), 3);
  EXPECT_THAT(lines[0], ::testing::HasSubstr("over 7 cases (7 up, 0 down, 0 within 0.1%); 2 "
                                             "cases on one side only (A 1, B 1), left out"));
  EXPECT_THAT(lines[1],
              ::testing::StartsWith("allocations: +33.33% [+33.33, +33.33] over 7 cases (7 up"));
  EXPECT_THAT(lines[2], ::testing::StartsWith("wall time: +"));
  EXPECT_EQ(data.overall().metrics().instructions().cases(), 7);
  // Case 8 is new, case 7 failed now: each listed on its side.
  EXPECT_THAT(data.unmatched().only_current(), ::testing::ElementsAre(FakeCaseKey(8)));
  EXPECT_THAT(data.unmatched().only_baseline(), ::testing::ElementsAre(FakeCaseKey(7)));
  // Trees name functions through one table, each its key's fields: the
  // tax is in it once.
  int tax = 0;
  for (const timer::FunctionKeyProto& f : data.functions()) {
    if (f.function() != "icount_test_allocation_tax") continue;
    ++tax;
    EXPECT_EQ(f.file(), "???");
    EXPECT_EQ(f.object(), "/tmp/libslow_malloc.so");
  }
  EXPECT_EQ(tax, 1);
}

TEST(ReportDataTest, ABaselineFromAnotherNodeIsSaid) {
  Inputs in = MakeInputs();
  // Older files: no nodes, only the machine.
  in.current.machine_node = timer::TestMachine("otherhost", 2, "Other CPU");
  timer::NodeProto node;
  node.set_host("n1");
  node.set_aten_cpu_capability("AVX2");
  in.baseline.nodes["n1"] = node;
  ReportInput input;
  input.current = in.current;
  input.current_name = "now.json";
  input.baseline = in.baseline;
  input.baseline_name = "before.json";
  const ReportDataProto data = DataOf(input);
  const auto& warnings = data.node_warnings();
  ASSERT_EQ(warnings.size(), 2);
  EXPECT_THAT(
      warnings[0],
      ::testing::StartsWith("counts of 7 cases were taken on nodes that differ (CPU Test CPU "
                            "@ 1 GHz vs Other CPU): the baseline (before.json) on testhost"));
  EXPECT_THAT(warnings[1],
              ::testing::StartsWith("wall time of 7 cases was taken on different hosts: the "
                                    "baseline (before.json) on testhost, this run (now.json) on "
                                    "otherhost"));
  // ... and those wall times are not compared.
  EXPECT_FALSE(CaseOf(data, FakeCaseKey(1)).delta().has_time_verdict());
  EXPECT_THAT(data.summary().baseline().nodes(), ::testing::ElementsAre("n1: n1 (ATen AVX2)"));
}

TEST(ReportDataTest, CallersComparisonsWinOverTheFilesRounds) {
  const Inputs in = MakeInputs();
  ReportInput input;
  input.current = in.current;
  input.baseline = in.baseline;
  compare::TimeComparison paired;
  paired.verdict = compare::TimeVerdict::kTooFewRounds;
  paired.problem = "2 of 3 rounds";
  input.time_comparisons = std::map<std::string, compare::TimeComparison>{{FakeCaseKey(1), paired}};
  const ReportDataProto data = DataOf(input);
  const compare::CaseComparisonProto& delta = CaseOf(data, FakeCaseKey(1)).delta();
  EXPECT_EQ(delta.time_verdict(), "too few rounds");
  EXPECT_EQ(delta.time_problem(), "2 of 3 rounds");
  EXPECT_FALSE(delta.has_time_delta_pct());
  EXPECT_FALSE(CaseOf(data, FakeCaseKey(2)).delta().has_time_verdict());
}

TEST(ReportDataTest, SaysWhatIsMissing) {
  FakeSuite suite;
  suite.instruction_counts = false;
  ReportInput wall_only;
  wall_only.current = FakeSuiteResults(suite);
  ReportDataProto data = DataOf(wall_only);
  EXPECT_THAT(data.missing(0),
              ::testing::StartsWith("instruction counts: these results have wall time only"));
  suite.instruction_counts = true;
  suite.call_trees = false;
  suite.wall_time = false;
  ReportInput no_trees;
  no_trees.current = FakeSuiteResults(suite);
  data = DataOf(no_trees);
  EXPECT_THAT(data.missing(0), ::testing::StartsWith("call trees: these results carry none"));
  EXPECT_THAT(data.missing(1),
              ::testing::StartsWith("wall time: these results have instruction counts only"));
}

TEST(ReportDataTest, HistoryGivesSeriesWithChangePoints) {
  const std::string db = absl::StrCat(::testing::TempDir(), "/report_data_test.db");
  unlink(db.c_str());
  absl::StatusOr<history::Store> store = history::Store::OpenForWriting(db);
  ASSERT_TRUE(store.ok()) << store.status();
  for (int r = 0; r < 8; ++r) {
    FakeSuite run;
    run.cases = 4;
    run.start_time = absl::StrCat("2026-10-0", r + 1, "T00:00:00Z");
    if (r >= 5) run.tax_per_run = 300;
    history::RunInfo info;
    info.label = absl::StrCat("build ", r + 1);
    ASSERT_TRUE(store->AddRun(FakeSuiteResults(run), info).ok());
  }
  FakeSuite now;
  now.cases = 4;
  ReportInput input;
  input.current = FakeSuiteResults(now);
  input.history = &*store;
  const ReportDataProto data = DataOf(input);
  EXPECT_EQ(data.history_runs_size(), 8);
  const ReportSeriesProto& counts = CaseOf(data, FakeCaseKey(0)).history().counts();
  EXPECT_EQ(counts.value_size(), 8);
  ASSERT_EQ(counts.steps_size(), 1);
  EXPECT_EQ(counts.steps(0).index(), 5);

  // The last 3 runs: the step (found over all 8) at the first of them.
  input.history_runs = 3;
  const ReportDataProto window = DataOf(input);
  ASSERT_EQ(window.history_runs_size(), 3);
  EXPECT_EQ(window.history_runs(0).label(), "build 6");
  const ReportSeriesProto& last = CaseOf(window, FakeCaseKey(0)).history().counts();
  EXPECT_EQ(last.value_size(), 3);
  ASSERT_EQ(last.steps_size(), 1);
  EXPECT_EQ(last.steps(0).index(), 0);
  // With 2, the step is before the window.
  input.history_runs = 2;
  EXPECT_EQ(CaseOf(DataOf(input), FakeCaseKey(0)).history().counts().steps_size(), 0);
}

// The page's JSON is the schema's: it reads back into ReportDataProto with
// no unknown member, and a case without a figure has no member for it (the
// script tests `== null`), while lists are there even when empty.
TEST(ReportDataTest, TheJsonIsTheSchemas) {
  const Inputs in = MakeInputs();
  ReportInput input;
  input.current = in.current;
  input.baseline = in.baseline;
  absl::StatusOr<std::string> json = ReportDataJson(input);
  ASSERT_TRUE(json.ok()) << json.status();
  ReportDataProto read;
  google::protobuf::util::JsonParseOptions strict;
  strict.ignore_unknown_fields = false;
  const auto status = google::protobuf::util::JsonStringToMessage(*json, &read, strict);
  ASSERT_TRUE(status.ok()) << status.ToString();
  ReportDataProto made = DataOf(input);
  made.clear_generated();
  read.clear_generated();
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(read, made));
  EXPECT_THAT(*json, ::testing::HasSubstr(R"("only_current":[")"));
  EXPECT_THAT(*json, ::testing::HasSubstr(R"("history_runs":[])"));
  // Counts are JSON numbers, not int64's strings.
  EXPECT_THAT(*json, ::testing::ContainsRegex(R"("repeats":\[[0-9]+,)"));
  // Case 8 has no baseline: no member for it.
  const size_t case8 = json->find(absl::StrCat(R"("key":")", FakeCaseKey(8)));
  ASSERT_NE(case8, std::string::npos);
  const size_t next = json->find(R"("key":")", case8 + 1);
  EXPECT_THAT(json->substr(case8, next - case8),
              ::testing::Not(::testing::HasSubstr(R"("baseline":{)")));
}

TEST(ReportHtmlTest, DataCannotEndItsScriptElement) {
  const std::string html =
      ReportHtml("a <b> & c", R"({"title": "</script><script>alert(1)</script>"})");
  EXPECT_THAT(html, ::testing::HasSubstr("<title>a &lt;b&gt; &amp; c</title>"));
  EXPECT_THAT(html, ::testing::HasSubstr(R"({"title": "<\/script><script>alert(1)<\/script>"})"));
  EXPECT_THAT(html, ::testing::Not(::testing::HasSubstr("</script><script>alert(1)")));
  // Everything inline: no src= or href= to fetch.
  EXPECT_THAT(html, ::testing::Not(::testing::ContainsRegex("<script[^>]* src=")));
  EXPECT_THAT(html, ::testing::Not(::testing::ContainsRegex("<link ")));
  EXPECT_THAT(html, ::testing::HasSubstr("Chart.js v3.9.1"));
}

}  // namespace
}  // namespace icount::report
