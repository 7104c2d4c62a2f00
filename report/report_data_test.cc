#include "report/report_data.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <unistd.h>
#include <cmath>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "history/store.h"
#include "report/html_page.h"
#include "timer/node_testutil.h"
#include "report/testing/fake_suite.h"

namespace icount::report {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;
using report::testing::FakeCaseKey;
using report::testing::FakeSuite;
using report::testing::FakeSuiteResults;

Struct Parse(const std::string& json) {
  Struct out;
  const auto status = google::protobuf::util::JsonStringToMessage(json, &out);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << json.substr(0, 500);
  return out;
}
// The keys are string_views, not const std::string&: gcc 13 and later
// take a reference returned while a temporary string is bound to a
// reference parameter for a dangling one (-Wdangling-reference).
const Value& At(const Struct& s, absl::string_view key) {
  static const Value* missing = new Value();
  auto it = s.fields().find(std::string(key));
  return it == s.fields().end() ? *missing : it->second;
}
const Value& At(const Value& v, absl::string_view key) { return At(v.struct_value(), key); }

// The case object with `key`, or a default Value.
const Value& CaseOf(const Struct& data, absl::string_view key) {
  for (const Value& c : At(data, "cases").list_value().values()) {
    if (At(c, "key").string_value() == key) return c;
  }
  ADD_FAILURE() << "no case " << key;
  static const Value* missing = new Value();
  return *missing;
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
  absl::StatusOr<std::string> json = ReportDataJson(input);
  ASSERT_TRUE(json.ok()) << json.status();
  const Struct data = Parse(*json);
  EXPECT_EQ(At(data, "kind").string_value(), "run");
  EXPECT_EQ(At(At(At(data, "summary"), "current"), "command").string_value(),
            "bazel-bin/tools/main --filter=op");
  ASSERT_EQ(At(data, "cases").list_value().values_size(), 8);  // 9 minus the failure
  for (const timer::InstructionCounts& c : in.current.instruction_counts) {
    const Value& reported = CaseOf(data, c.metadata.at("case"));
    EXPECT_DOUBLE_EQ(At(At(reported, "counts"), "per_run").number_value(), c.counts_per_run);
    EXPECT_TRUE(At(At(reported, "counts"), "repeats_identical").bool_value());
    // Three rounds of five blocks, pooled; the median is Measurement's.
    EXPECT_EQ(At(At(reported, "time"), "samples").number_value(), 15);
    EXPECT_EQ(At(At(reported, "time"), "rounds").number_value(), 3);
    EXPECT_TRUE(At(reported, "tree").has_struct_value());
    EXPECT_FALSE(At(reported, "delta").has_struct_value());
  }
  const Value& first = CaseOf(data, FakeCaseKey(0));
  EXPECT_EQ(At(first, "language").string_value(), "Python");
  EXPECT_EQ(At(first, "runtime").string_value(), "Eager");
  EXPECT_EQ(At(first, "autograd").string_value(), "Forward");
  EXPECT_EQ(At(first, "group").string_value(), "Pointwise");
  // From the metadata the front ends record, not from the labels.
  EXPECT_EQ(At(CaseOf(data, FakeCaseKey(2)), "runtime").string_value(), "TorchScript");
  EXPECT_EQ(At(CaseOf(data, FakeCaseKey(8)), "autograd").string_value(), "Forward + Backward");
  // The failure, with its reason, and what the page cannot show.
  const Value& failures = At(At(At(data, "summary"), "current"), "failures");
  EXPECT_EQ(At(failures, FakeCaseKey(7)).string_value(), "statement failed: made up");
  std::string missing;
  for (const Value& why : At(data, "missing").list_value().values()) {
    absl::StrAppend(&missing, why.string_value(), "\n");
  }
  EXPECT_THAT(missing, ::testing::HasSubstr("history: no store was given"));
  EXPECT_THAT(missing, ::testing::Not(::testing::HasSubstr("call trees")));
}

TEST(ReportDataTest, AComparisonHasDeltasIntervalsAndUnmatchedCases) {
  const Inputs in = MakeInputs();
  ReportInput input;
  input.current = in.current;
  input.baseline = in.baseline;
  absl::StatusOr<std::string> json = ReportDataJson(input);
  ASSERT_TRUE(json.ok()) << json.status();
  const Struct data = Parse(*json);
  EXPECT_EQ(At(data, "kind").string_value(), "comparison");
  const Value& c = CaseOf(data, FakeCaseKey(1));
  const double before = At(At(At(c, "baseline"), "counts"), "per_run").number_value();
  const double after = At(At(c, "counts"), "per_run").number_value();
  EXPECT_DOUBLE_EQ(after - before, 300);
  EXPECT_NEAR(At(At(c, "delta"), "counts_pct").number_value(), 300 / before * 100, 1e-6);
  // 10% slower in every round: significant, with its interval around it.
  const Value& time = At(At(c, "delta"), "time");
  EXPECT_EQ(At(time, "verdict").string_value(), "slower");
  EXPECT_TRUE(At(time, "significant").bool_value());
  EXPECT_NEAR(At(time, "delta_pct").number_value(), 10, 0.5);
  const auto& ci = At(time, "ci_pct").list_value();
  ASSERT_EQ(ci.values_size(), 2);
  EXPECT_LT(ci.values(0).number_value(), At(time, "delta_pct").number_value());
  EXPECT_GT(ci.values(1).number_value(), At(time, "delta_pct").number_value());
  EXPECT_TRUE(At(c, "baseline_tree").has_struct_value());
  EXPECT_EQ(At(At(c, "counts"), "allocations_per_run").number_value(), 4);
  EXPECT_EQ(At(At(c, "delta"), "allocations").number_value(), 1);
  // The suite-level answer: every compared case grew, in instructions and
  // in allocations; the two cases on one side only are left out.
  const auto& lines = At(At(data, "overall"), "lines").list_value();
  ASSERT_EQ(lines.values_size(), 3);
  EXPECT_THAT(lines.values(0).string_value(),
              ::testing::HasSubstr("over 7 cases (7 up, 0 down, 0 within 0.1%); 2 cases on one "
                                   "side only (A 1, B 1), left out"));
  EXPECT_THAT(lines.values(1).string_value(),
              ::testing::StartsWith("allocations: +33.33% [+33.33, +33.33] over 7 cases (7 up"));
  EXPECT_THAT(lines.values(2).string_value(), ::testing::StartsWith("wall time: +"));
  EXPECT_EQ(At(At(At(data, "overall"), "metrics"), "instructions")
                .struct_value()
                .fields()
                .at("cases")
                .number_value(),
            7);
  // Case 8 is new, case 7 failed now: each listed on its side.
  const Value& unmatched = At(data, "unmatched");
  ASSERT_EQ(At(unmatched, "only_current").list_value().values_size(), 1);
  EXPECT_EQ(At(unmatched, "only_current").list_value().values(0).string_value(), FakeCaseKey(8));
  ASSERT_EQ(At(unmatched, "only_baseline").list_value().values_size(), 1);
  EXPECT_EQ(At(unmatched, "only_baseline").list_value().values(0).string_value(), FakeCaseKey(7));
  // Trees name functions through one table, each its key's fields: the
  // tax is in it once.
  int tax = 0;
  for (const Value& f : At(data, "functions").list_value().values()) {
    if (At(f, "function").string_value() != "icount_test_allocation_tax") continue;
    ++tax;
    EXPECT_EQ(At(f, "file").string_value(), "???");
    EXPECT_EQ(At(f, "object").string_value(), "/tmp/libslow_malloc.so");
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
  const Struct data = Parse(*ReportDataJson(input));
  const auto& warnings = At(data, "node_warnings").list_value();
  ASSERT_EQ(warnings.values_size(), 2);
  EXPECT_THAT(
      warnings.values(0).string_value(),
      ::testing::StartsWith("counts of 7 cases were taken on nodes that differ (CPU Test CPU "
                            "@ 1 GHz vs Other CPU): the baseline (before.json) on testhost"));
  EXPECT_THAT(warnings.values(1).string_value(),
              ::testing::StartsWith("wall time of 7 cases was taken on different hosts: the "
                                    "baseline (before.json) on testhost, this run (now.json) on "
                                    "otherhost"));
  // ... and those wall times are not compared.
  EXPECT_TRUE(At(At(CaseOf(data, FakeCaseKey(1)), "delta"), "time").has_null_value());
  const auto& nodes = At(At(At(data, "summary"), "baseline"), "nodes").list_value();
  ASSERT_EQ(nodes.values_size(), 1);
  EXPECT_EQ(nodes.values(0).string_value(), "n1: n1 (ATen AVX2)");
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
  absl::StatusOr<std::string> json = ReportDataJson(input);
  ASSERT_TRUE(json.ok()) << json.status();
  const Struct data = Parse(*json);
  const Value& time = At(At(CaseOf(data, FakeCaseKey(1)), "delta"), "time");
  EXPECT_EQ(At(time, "verdict").string_value(), "too few rounds");
  EXPECT_EQ(At(time, "problem").string_value(), "2 of 3 rounds");
  EXPECT_TRUE(At(time, "delta_pct").has_null_value());
  EXPECT_TRUE(At(At(CaseOf(data, FakeCaseKey(2)), "delta"), "time").has_null_value());
}

TEST(ReportDataTest, SaysWhatIsMissing) {
  FakeSuite suite;
  suite.instruction_counts = false;
  ReportInput wall_only;
  wall_only.current = FakeSuiteResults(suite);
  Struct data = Parse(*ReportDataJson(wall_only));
  EXPECT_THAT(At(data, "missing").list_value().values(0).string_value(),
              ::testing::StartsWith("instruction counts: these results have wall time only"));
  suite.instruction_counts = true;
  suite.call_trees = false;
  suite.wall_time = false;
  ReportInput no_trees;
  no_trees.current = FakeSuiteResults(suite);
  data = Parse(*ReportDataJson(no_trees));
  EXPECT_THAT(At(data, "missing").list_value().values(0).string_value(),
              ::testing::StartsWith("call trees: these results carry none"));
  EXPECT_THAT(At(data, "missing").list_value().values(1).string_value(),
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
  const Struct data = Parse(*ReportDataJson(input));
  EXPECT_EQ(At(data, "history_runs").list_value().values_size(), 8);
  const Value& counts = At(At(CaseOf(data, FakeCaseKey(0)), "history"), "counts");
  EXPECT_EQ(At(counts, "value").list_value().values_size(), 8);
  ASSERT_EQ(At(counts, "steps").list_value().values_size(), 1);
  EXPECT_EQ(At(At(counts, "steps").list_value().values(0), "index").number_value(), 5);

  // The last 3 runs: the step (found over all 8) at the first of them.
  input.history_runs = 3;
  const Struct window = Parse(*ReportDataJson(input));
  ASSERT_EQ(At(window, "history_runs").list_value().values_size(), 3);
  EXPECT_EQ(At(At(window, "history_runs").list_value().values(0), "label").string_value(),
            "build 6");
  const Value& last = At(At(CaseOf(window, FakeCaseKey(0)), "history"), "counts");
  EXPECT_EQ(At(last, "value").list_value().values_size(), 3);
  ASSERT_EQ(At(last, "steps").list_value().values_size(), 1);
  EXPECT_EQ(At(At(last, "steps").list_value().values(0), "index").number_value(), 0);
  // With 2, the step is before the window.
  input.history_runs = 2;
  EXPECT_EQ(At(At(At(CaseOf(Parse(*ReportDataJson(input)), FakeCaseKey(0)), "history"), "counts"),
               "steps")
                .list_value()
                .values_size(),
            0);
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
