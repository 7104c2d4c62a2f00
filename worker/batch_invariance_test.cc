// Counts must not depend on batching, order or the way a case process is
// run: a case measured among other cases in one worker gives exactly its
// count measured with few others, for C++ and Python; a C++ case counts
// the same in a worker that never imports torch.
//
// Three runs serve every test: each starts a worker under valgrind (~10 s
// to start, more with Python: most of this test's time), so the tests
// share them instead of starting their own. The first two measure a few
// cases, C++ ones only (so their worker starts without Python) and
// Python ones; the third measures them again among other cases of both
// languages, in another order, beside the variants (longer names, own
// baselines, template processes, an unrehearsed TorchScript case) that the
// tests compare with them.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/runfiles_testutil.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "timer/callgrind.pb.h"
#include "worker/internal/torchscript_rehearsal.h"
#include "worker/runner.h"

namespace icount::worker {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

WorkOrderProto CountOrder(const std::string& id, timer::LanguageProto language,
                          const std::string& stmt, const std::string& setup) {
  WorkOrderProto order;
  order.set_id(id);
  order.mutable_task_spec()->set_stmt(stmt);
  order.mutable_task_spec()->set_setup(setup);
  order.mutable_task_spec()->set_language(language);
  order.set_callgrind(true);
  order.set_callgrind_number(20);
  order.set_callgrind_repeats(2);
  return order;
}

const WorkOrderProto kCppAdd =
    CountOrder("cpp add", timer::CPP, "auto z = torch::add(x, y);",
               "auto x = torch::ones({4, 4}); auto y = torch::ones({4, 4});");
const WorkOrderProto kPythonAdd = CountOrder("python add", timer::PYTHON, "torch.add(x, y)",
                                             "x = torch.ones(4, 4)\ny = torch.ones(4, 4)");

int64_t Sum(const timer::FunctionCountsProto& counts) {
  int64_t total = 0;
  for (const auto& row : counts.rows()) total += row.count();
  return total;
}

// What a run's results say about each order: its count (the statement's,
// per repeat; both repeats must agree), its baseline's, and what was
// measured (task spec and runs per repeat).
struct RunCounts {
  std::map<std::string, int64_t> counts;
  // Each order's statement counts by function (the first repeat), to say
  // where two counts that should agree differ.
  std::map<std::string, std::map<std::string, int64_t>> functions;
  std::map<std::string, int64_t> baselines;
  std::map<std::string, std::string> specs;
};

RunCounts Counts(const std::vector<WorkOrderProto>& orders, const std::string& journal) {
  RunnerOptions options;
  options.worker_path = base::TestRunfile("icount/worker/worker");
  options.journal_path = std::string(std::getenv("TEST_TMPDIR")) + "/" + journal;
  options.jobs = 1;  // one worker: a run measures everything in sequence
  absl::StatusOr<RunnerReport> report = RunOrders(orders, options);
  EXPECT_TRUE(report.ok()) << report.status();
  RunCounts run;
  if (!report.ok()) return run;
  for (const WorkerResultProto& result : report->results) {
    EXPECT_TRUE(result.has_output()) << result.id() << ": " << result.failure().reason();
    if (!result.has_output()) continue;
    EXPECT_EQ(result.output().callgrind_size(), 2);
    const timer::CallgrindStatsProto& first = result.output().callgrind(0);
    const int64_t total = Sum(first.stmt_exclusive());
    EXPECT_EQ(total, Sum(result.output().callgrind(1).stmt_exclusive()))
        << result.id() << ": repeats differ";
    EXPECT_TRUE(first.has_baseline()) << result.id();
    run.counts[result.id()] = total;
    for (const auto& row : first.stmt_exclusive().rows()) {
      run.functions[result.id()][row.function()] += row.count();
    }
    run.baselines[result.id()] = Sum(first.baseline_exclusive());
    run.specs[result.id()] = absl::StrCat(first.task_spec().ShortDebugString(),
                                          " number_per_run: ", first.number_per_run());
  }
  return run;
}

// The functions whose counts differ between two runs of order `id`, the
// largest differences first: what a failed comparison prints.
std::string FunctionDifferences(const RunCounts& a, const RunCounts& b, const std::string& id) {
  std::map<std::string, int64_t> delta;
  if (auto it = b.functions.find(id); it != b.functions.end()) {
    for (const auto& [function, count] : it->second) delta[function] += count;
  }
  if (auto it = a.functions.find(id); it != a.functions.end()) {
    for (const auto& [function, count] : it->second) delta[function] -= count;
  }
  std::vector<std::pair<int64_t, std::string>> moved;
  for (const auto& [function, d] : delta) {
    if (d != 0) moved.push_back({-std::abs(d), absl::StrCat(d > 0 ? "+" : "", d, " ", function)});
  }
  std::sort(moved.begin(), moved.end());
  std::string text = absl::StrCat(id, ": functions whose counts differ (second run minus first):");
  for (size_t i = 0; i < moved.size() && i < 20; ++i) absl::StrAppend(&text, "\n  ", moved[i].second);
  return text;
}

// A copy of `base` with another id, changed by `variant`.
WorkOrderProto Variant(const WorkOrderProto& base, const std::string& id,
                       const std::function<void(WorkOrderProto&)>& variant) {
  WorkOrderProto changed = base;
  changed.set_id(id);
  variant(changed);
  return changed;
}

// A TorchScript case. Any model will do as the case's; the rehearsal's own
// has the signature the statements call.
WorkOrderProto Scripted(const std::string& id, timer::LanguageProto language,
                        const std::string& model, bool rehearsed) {
  WorkOrderProto order = language == timer::CPP
                             ? CountOrder(id, language, "auto y = m.forward({x, w});",
                                          "auto m = torch::jit::load(ICOUNT_ARTIFACT_PATH);\n"
                                          "auto x = torch::ones({2, 4, 4, 4});\n"
                                          "auto w = torch::ones({4}, torch::requires_grad());\n"
                                          "for (int i = 0; i < 3; i++) m.forward({x, w});")
                             : CountOrder(id, language, "y = m(x, w)",
                                          "m = torch.jit.load(ICOUNT_ARTIFACT_PATH)\n"
                                          "x = torch.ones(2, 4, 4, 4)\n"
                                          "w = torch.ones(4, requires_grad=True)\n"
                                          "for _ in range(3):\n"
                                          "    m(x, w)");
  order.set_torchscript_artifact(model);
  order.set_torchscript_rehearsal(rehearsed);
  return order;
}

const std::string kLongCppId = std::string(300, 'x') + "#counts";
const std::string kLongPythonId = std::string(300, 'y') + "#counts";

// What a case is called is not what it measures: ids, case keys and labels
// of any length.
void GiveLongNames(WorkOrderProto& order) {
  order.set_case_key(std::string(200, 'k'));
  order.mutable_task_spec()->set_label(std::string(500, 'l'));
  order.mutable_task_spec()->set_sub_label(std::string(70, 's'));
  order.mutable_task_spec()->set_description("C++ Eager");
  order.mutable_task_spec()->set_env(std::string(90, 'e'));
}

void OwnBaseline(WorkOrderProto& order) { order.set_baseline_per_case(true); }
void TemplatePerCase(WorkOrderProto& order) { order.set_template_per_case(true); }

WorkOrderProto CppTwoThreads() {
  return Variant(kCppAdd, "cpp add, 2 threads",
                 [](WorkOrderProto& order) { order.mutable_task_spec()->set_num_threads(2); });
}

// kPythonAdd with its statement and setup indented as a user might write
// them.
WorkOrderProto PythonIndented() {
  return Variant(kPythonAdd, "python indented", [](WorkOrderProto& order) {
    order.mutable_task_spec()->set_stmt("\n    torch.add(x, y)\n  ");
    order.mutable_task_spec()->set_setup("\n  x = torch.ones(4, 4)\n  y = x\n");
    order.mutable_task_spec()->set_label("add");
  });
}

class BatchInvarianceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // An empty snippet cache: the first run compiles the C++ cases, the
    // second finds them cached, and the counts must not care.
    const std::string tmp = std::getenv("TEST_TMPDIR");
    ASSERT_EQ(setenv("ICOUNT_CACHE_DIR", (tmp + "/snippet-cache").c_str(), 1), 0);
    const std::string model = tmp + "/model.pt";
    ASSERT_TRUE(
        base::WriteFileAtomically(model, std::string(internal::TorchScriptRehearsalModel())).ok());
    // Rehearsed TorchScript cases first: the zygote that ran the rehearsal
    // serves them before anything else here, and after the add cases in
    // the mixed run.
    // Its worker logs its phases (base/phase_log.h, which changes no count).
    ASSERT_EQ(setenv("ICOUNT_PHASE_LOG", (tmp + "/few-cpp.phases").c_str(), 1), 0);
    few_ = new RunCounts(
        Counts({Scripted("cpp scripted", timer::CPP, model, true), kCppAdd}, "few-cpp.journal"));
    ASSERT_EQ(unsetenv("ICOUNT_PHASE_LOG"), 0);
    RunCounts python = Counts({Scripted("python scripted", timer::PYTHON, model, true), kPythonAdd},
                              "few-python.journal");
    few_->counts.merge(python.counts);
    few_->baselines.merge(python.baselines);
    few_->specs.merge(python.specs);
    mixed_ = new RunCounts(Counts(
        {
            CountOrder("python matmul", timer::PYTHON, "x @ x", "x = torch.ones(8, 8)"),
            kPythonAdd,
            CountOrder("cpp sum", timer::CPP, "auto s = x.sum();", "auto x = torch::rand({32, 32});"),
            kCppAdd,
            CountOrder("python list", timer::PYTHON, "l.append(torch.zeros(3))", "l = []"),
            Variant(kCppAdd, kLongCppId, GiveLongNames),
            Variant(kPythonAdd, kLongPythonId, GiveLongNames),
            Variant(kCppAdd, "cpp add (own baseline)", OwnBaseline),
            Variant(kPythonAdd, "python add (own baseline)", OwnBaseline),
            Variant(kCppAdd, "cpp add (template)", TemplatePerCase),
            PythonIndented(),
            Variant(PythonIndented(), "python indented (template)", TemplatePerCase),
            CppTwoThreads(),
            Variant(CppTwoThreads(), "cpp add, 2 threads (template)", TemplatePerCase),
            Scripted("python scripted", timer::PYTHON, model, true),
            Scripted("cpp scripted", timer::CPP, model, true),
            Scripted("cpp unrehearsed", timer::CPP, model, false),
        },
        "mixed.journal"));
  }

  static void TearDownTestSuite() {
    delete few_;
    delete mixed_;
  }

  static RunCounts* few_;
  static RunCounts* mixed_;
};

RunCounts* BatchInvarianceTest::few_ = nullptr;
RunCounts* BatchInvarianceTest::mixed_ = nullptr;

TEST_F(BatchInvarianceTest, CountAmongOthersEqualsCountWithFewOthers) {
  ASSERT_EQ(few_->counts.size(), 4u);
  ASSERT_EQ(mixed_->counts.size(), 17u);
  for (const char* id : {"cpp add", "python add"}) {
    EXPECT_GT(few_->counts[id], 0) << id;
    EXPECT_EQ(mixed_->counts[id], few_->counts[id]) << FunctionDifferences(*few_, *mixed_, id);
  }
}

TEST_F(BatchInvarianceTest, NamesDoNotChangeCounts) {
  EXPECT_EQ(mixed_->counts[kLongCppId], mixed_->counts["cpp add"]);
  EXPECT_EQ(mixed_->counts[kLongPythonId], mixed_->counts["python add"]);
}

// The worker measures the baseline (the empty statement's loop) once per
// language, number and thread count and attaches it to every order; an
// order may ask for its own instead (main --baseline_per_case). The
// statement's counts must be the same either way, C++'s baseline too;
// Python's baseline measured in a case's own process follows that
// process's state by a few instructions.
TEST_F(BatchInvarianceTest, SharedBaselineChangesNoStatementCount) {
  for (const char* id : {"cpp add", "python add"}) {
    const std::string own = std::string(id) + " (own baseline)";
    EXPECT_EQ(mixed_->counts[id], mixed_->counts[own]) << id;
    EXPECT_GT(mixed_->baselines[id], 0) << id;
    // 20 runs of an empty loop: C++ ~5 instructions a run, Python ~110.
    EXPECT_NEAR(mixed_->baselines[id], mixed_->baselines[own], 0.01 * mixed_->baselines[own]) << id;
  }
  EXPECT_EQ(mixed_->baselines["cpp add"], mixed_->baselines["cpp add (own baseline)"]);
}

// A case process measures in itself (setup, warm-up, then a fork per
// repeat) rather than in a template it forks: the repeats start from the
// same state either way, so every count, baselines included, is the same,
// with 1 LibTorch thread and with 2. Measuring in itself, it also ends as
// soon as its repeats are done and the worker makes its result from the
// order: the results say the same (the statement as its Timer normalised
// it, the order's own setup), whatever the statement's indentation.
TEST_F(BatchInvarianceTest, TemplateInTheCaseProcessChangesNoCount) {
  for (const char* id : {"cpp add", "python indented", "cpp add, 2 threads"}) {
    const std::string forked = std::string(id) + " (template)";
    EXPECT_GT(mixed_->counts[id], 0) << id;
    EXPECT_EQ(mixed_->counts[id], mixed_->counts[forked]) << id;
    EXPECT_GT(mixed_->baselines[id], 0) << id;
    EXPECT_EQ(mixed_->baselines[id], mixed_->baselines[forked]) << id;
    EXPECT_EQ(mixed_->specs[id], mixed_->specs[forked]) << id;
  }
  const std::string& python = mixed_->specs["python indented"];
  EXPECT_THAT(python, HasSubstr("stmt: \"torch.add(x, y)\""));
  EXPECT_THAT(python, HasSubstr("setup: \"\\n  x = torch.ones(4, 4)\\n  y = x\\n\""));
  EXPECT_THAT(python, HasSubstr("label: \"add\""));
  EXPECT_THAT(python, HasSubstr("number_per_run: 20"));
}

// A worker whose orders are all C++ starts without Python (the runner's
// choice): its C++ cases' zygotes fork before any worker imports torch, so
// their counts are those of a worker that runs Python cases too.
// (CountAmongOthersEqualsCountWithFewOthers compares them; this checks
// that the few C++ cases did run in a worker without Python.)
TEST_F(BatchInvarianceTest, ACppOnlyRunStartsItsWorkerWithoutPython) {
  absl::StatusOr<std::string> phases =
      base::ReadFileToString(std::string(std::getenv("TEST_TMPDIR")) + "/few-cpp.phases");
  ASSERT_TRUE(phases.ok()) << phases.status();
  EXPECT_THAT(*phases, HasSubstr("\tworker\tfork the C++ zygotes (parent side)\t"));
  EXPECT_THAT(*phases, Not(HasSubstr("import torch")));
}

// A TorchScript case whose order asks for the rehearsal (main
// --rehearse_torchscript) forks from the zygote that loaded and ran the
// rehearsal model before its first case: its count is the same whichever
// case that zygote served first, and its repeats agree (Counts). It
// differs from the same case unrehearsed (another history), which shows
// that the order went to that zygote.
TEST_F(BatchInvarianceTest, RehearsedTorchScriptCountAmongOthersEqualsCountWithFewOthers) {
  for (const char* id : {"cpp scripted", "python scripted"}) {
    EXPECT_GT(few_->counts[id], 0) << id;
    EXPECT_EQ(mixed_->counts[id], few_->counts[id]) << FunctionDifferences(*few_, *mixed_, id);
  }
  EXPECT_NE(mixed_->counts["cpp unrehearsed"], mixed_->counts["cpp scripted"]);
}

}  // namespace
}  // namespace icount::worker
