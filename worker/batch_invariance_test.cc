// Counts must not depend on batching or order: a case measured among other
// cases in one worker gives exactly its count measured alone, for C++ and
// Python. (Workers run under valgrind: ~20 s each to start.)
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "timer/callgrind.pb.h"
#include "worker/internal/torchscript_rehearsal.h"
#include "worker/runner.h"

namespace icount {
namespace {

using ::testing::HasSubstr;

worker::WorkOrderProto CountOrder(const std::string& id, timer::Language language,
                                  const std::string& stmt, const std::string& setup) {
  worker::WorkOrderProto order;
  order.set_id(id);
  order.mutable_task_spec()->set_stmt(stmt);
  order.mutable_task_spec()->set_setup(setup);
  order.mutable_task_spec()->set_language(language);
  order.set_callgrind(true);
  order.set_callgrind_number(20);
  order.set_callgrind_repeats(2);
  return order;
}

const worker::WorkOrderProto kCppAdd =
    CountOrder("cpp add", timer::CPP, "auto z = torch::add(x, y);",
               "auto x = torch::ones({4, 4}); auto y = torch::ones({4, 4});");
const worker::WorkOrderProto kPythonAdd = CountOrder("python add", timer::PYTHON, "torch.add(x, y)",
                                                     "x = torch.ones(4, 4)\ny = torch.ones(4, 4)");

int64_t Sum(const timer::FunctionCountsProto& counts) {
  int64_t total = 0;
  for (const auto& row : counts.rows()) total += row.count();
  return total;
}

// Each order's count (the statement's, per repeat; both repeats must
// agree) and, if `baselines` is given, its baseline's; if `specs` is given,
// what its results say was measured (task spec and runs per repeat).
std::map<std::string, int64_t> Counts(const std::vector<worker::WorkOrderProto>& orders,
                                      const std::string& journal,
                                      std::map<std::string, int64_t>* baselines = nullptr,
                                      std::map<std::string, std::string>* specs = nullptr) {
  RunnerOptions options;
  options.worker_path = std::string(std::getenv("TEST_SRCDIR")) + "/icount/worker/worker";
  options.journal_path = std::string(std::getenv("TEST_TMPDIR")) + "/" + journal;
  options.jobs = 1;  // one worker: the mixed run measures everything in sequence
  absl::StatusOr<RunnerReport> report = RunOrders(orders, options);
  EXPECT_TRUE(report.ok()) << report.status();
  std::map<std::string, int64_t> counts;
  if (!report.ok()) return counts;
  for (const worker::WorkerResultProto& result : report->results) {
    EXPECT_TRUE(result.has_output()) << result.id() << ": " << result.failure().reason();
    if (!result.has_output()) continue;
    EXPECT_EQ(result.output().callgrind_size(), 2);
    const int64_t total = Sum(result.output().callgrind(0).stmt_exclusive());
    EXPECT_EQ(total, Sum(result.output().callgrind(1).stmt_exclusive()))
        << result.id() << ": repeats differ";
    counts[result.id()] = total;
    EXPECT_TRUE(result.output().callgrind(0).has_baseline()) << result.id();
    if (baselines != nullptr) {
      (*baselines)[result.id()] = Sum(result.output().callgrind(0).baseline_exclusive());
    }
    if (specs != nullptr) {
      (*specs)[result.id()] = absl::StrCat(result.output().callgrind(0).task_spec().ShortDebugString(),
                                           " number_per_run: ",
                                           result.output().callgrind(0).number_per_run());
    }
  }
  return counts;
}

// Each of `bases`, then a copy of it whose id ends in `suffix`, changed by
// `variant`.
std::vector<worker::WorkOrderProto> WithVariants(
    const std::vector<worker::WorkOrderProto>& bases, const std::string& suffix,
    const std::function<void(worker::WorkOrderProto&)>& variant) {
  std::vector<worker::WorkOrderProto> orders;
  for (const worker::WorkOrderProto& base : bases) {
    orders.push_back(base);
    worker::WorkOrderProto changed = base;
    changed.set_id(base.id() + suffix);
    variant(changed);
    orders.push_back(changed);
  }
  return orders;
}

TEST(BatchInvarianceTest, CountAmongOthersEqualsCountAlone) {
  // An empty snippet cache: the first run compiles the C++ case, the second
  // finds it cached, and the counts must not care.
  const std::string cache = std::string(std::getenv("TEST_TMPDIR")) + "/snippet-cache";
  ASSERT_EQ(setenv("ICOUNT_CACHE_DIR", cache.c_str(), 1), 0);
  std::map<std::string, int64_t> alone = Counts({kCppAdd, kPythonAdd}, "alone.journal");
  std::vector<worker::WorkOrderProto> mixed = {
      CountOrder("python matmul", timer::PYTHON, "x @ x", "x = torch.ones(8, 8)"),
      kPythonAdd,
      CountOrder("cpp sum", timer::CPP, "auto s = x.sum();", "auto x = torch::rand({32, 32});"),
      kCppAdd,
      CountOrder("python list", timer::PYTHON, "l.append(torch.zeros(3))", "l = []"),
  };
  std::map<std::string, int64_t> among = Counts(mixed, "mixed.journal");
  ASSERT_EQ(alone.size(), 2u);
  ASSERT_EQ(among.size(), 5u);
  EXPECT_GT(alone["cpp add"], 0);
  EXPECT_EQ(among["cpp add"], alone["cpp add"]);
  EXPECT_EQ(among["python add"], alone["python add"]);
}

// What a case is called is not what it measures: ids, case keys and labels
// of any length leave its count alone (they are not in the case process's
// heap when it measures).
TEST(BatchInvarianceTest, NamesDoNotChangeCounts) {
  for (const worker::WorkOrderProto& base : {kCppAdd, kPythonAdd}) {
    worker::WorkOrderProto plain = base;
    plain.set_id("a");
    worker::WorkOrderProto named = base;
    named.set_id(std::string(300, 'x') + "#counts");
    named.set_case_key(std::string(200, 'k'));
    named.mutable_task_spec()->set_label(std::string(500, 'l'));
    named.mutable_task_spec()->set_sub_label(std::string(70, 's'));
    named.mutable_task_spec()->set_description("C++ Eager");
    named.mutable_task_spec()->set_env(std::string(90, 'e'));
    std::map<std::string, int64_t> counts =
        Counts({plain, named}, base.id() == "cpp add" ? "names-cpp.journal" : "names-py.journal");
    ASSERT_EQ(counts.size(), 2u);
    EXPECT_EQ(counts["a"], counts[named.id()]) << base.id();
  }
}

// The worker measures the baseline (the empty statement's loop) once per
// language, number and thread count and attaches it to every order; an
// order may ask for its own instead (main --baseline_per_case). The
// statement's counts must be the same either way, C++'s baseline too;
// Python's baseline measured in a case's own process follows that
// process's state by a few instructions.
TEST(BatchInvarianceTest, SharedBaselineChangesNoStatementCount) {
  const std::vector<worker::WorkOrderProto> orders =
      WithVariants({kCppAdd, kPythonAdd}, " (own baseline)",
                   [](worker::WorkOrderProto& order) { order.set_baseline_per_case(true); });
  std::map<std::string, int64_t> baselines;
  std::map<std::string, int64_t> counts = Counts(orders, "baselines.journal", &baselines);
  ASSERT_EQ(counts.size(), 4u);
  for (const char* id : {"cpp add", "python add"}) {
    const std::string own = std::string(id) + " (own baseline)";
    EXPECT_EQ(counts[id], counts[own]) << id;
    EXPECT_GT(baselines[id], 0) << id;
    // 20 runs of an empty loop: C++ ~5 instructions a run, Python ~110.
    EXPECT_NEAR(baselines[id], baselines[own], 0.01 * baselines[own]) << id;
  }
  EXPECT_EQ(baselines["cpp add"], baselines["cpp add (own baseline)"]);
}

// A case process measures in itself (setup, warm-up, then a fork per
// repeat) rather than in a template it forks: the repeats start from the
// same state either way, so every count, baselines included, is the same,
// with 1 LibTorch thread and with 2. Measuring in itself, it also ends as
// soon as its repeats are done and the worker makes its result from the
// order: the results say the same (the statement as its Timer normalised
// it, the order's own setup), whatever the statement's indentation.
TEST(BatchInvarianceTest, TemplateInTheCaseProcessChangesNoCount) {
  worker::WorkOrderProto cpp_two_threads = kCppAdd;
  cpp_two_threads.set_id("cpp add, 2 threads");
  cpp_two_threads.mutable_task_spec()->set_num_threads(2);
  worker::WorkOrderProto python_indented = kPythonAdd;
  python_indented.mutable_task_spec()->set_stmt("\n    torch.add(x, y)\n  ");
  python_indented.mutable_task_spec()->set_setup("\n  x = torch.ones(4, 4)\n  y = x\n");
  python_indented.mutable_task_spec()->set_label("add");
  const std::vector<worker::WorkOrderProto> orders =
      WithVariants({kCppAdd, python_indented, cpp_two_threads}, " (template)",
                   [](worker::WorkOrderProto& order) { order.set_template_per_case(true); });
  std::map<std::string, int64_t> baselines;
  std::map<std::string, std::string> specs;
  std::map<std::string, int64_t> counts = Counts(orders, "template.journal", &baselines, &specs);
  ASSERT_EQ(counts.size(), 6u);
  for (const char* id : {"cpp add", "python add", "cpp add, 2 threads"}) {
    const std::string forked = std::string(id) + " (template)";
    EXPECT_GT(counts[id], 0) << id;
    EXPECT_EQ(counts[id], counts[forked]) << id;
    EXPECT_GT(baselines[id], 0) << id;
    EXPECT_EQ(baselines[id], baselines[forked]) << id;
    EXPECT_EQ(specs[id], specs[forked]) << id;
  }
  EXPECT_THAT(specs["python add"], HasSubstr("stmt: \"torch.add(x, y)\""));
  EXPECT_THAT(specs["python add"], HasSubstr("setup: \"\\n  x = torch.ones(4, 4)\\n  y = x\\n\""));
  EXPECT_THAT(specs["python add"], HasSubstr("label: \"add\""));
  EXPECT_THAT(specs["python add"], HasSubstr("number_per_run: 20"));
}

// A TorchScript case whose order asks for the rehearsal (main
// --rehearse_torchscript) forks from the zygote that loaded and ran the
// rehearsal model before its first case: its count is the same alone and
// among other cases, whichever case that zygote served first, and its
// repeats agree (Counts). It differs from the same case unrehearsed
// (another history), which shows that the order went to that zygote.
TEST(BatchInvarianceTest, RehearsedTorchScriptCountAmongOthersEqualsCountAlone) {
  // Any TorchScript model will do as the case's; the rehearsal's own has
  // the signature the statements below call.
  const std::string model = std::string(std::getenv("TEST_TMPDIR")) + "/model.pt";
  ASSERT_TRUE(
      base::WriteFileAtomically(model, std::string(worker_internal::TorchScriptRehearsalModel()))
          .ok());
  auto scripted = [&model](const std::string& id, timer::Language language, bool rehearsed) {
    worker::WorkOrderProto order =
        language == timer::CPP
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
  };
  const worker::WorkOrderProto cpp = scripted("cpp scripted", timer::CPP, true);
  const worker::WorkOrderProto python = scripted("python scripted", timer::PYTHON, true);
  std::map<std::string, int64_t> alone = Counts({cpp, python}, "rehearsed-alone.journal");
  std::map<std::string, int64_t> among =
      Counts({kPythonAdd, python, kCppAdd, cpp, scripted("cpp unrehearsed", timer::CPP, false)},
             "rehearsed-mixed.journal");
  ASSERT_EQ(alone.size(), 2u);
  ASSERT_EQ(among.size(), 5u);
  EXPECT_GT(alone["cpp scripted"], 0);
  EXPECT_EQ(among["cpp scripted"], alone["cpp scripted"]);
  EXPECT_EQ(among["python scripted"], alone["python scripted"]);
  EXPECT_NE(among["cpp unrehearsed"], among["cpp scripted"]);
}

}  // namespace
}  // namespace icount
