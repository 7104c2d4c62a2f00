// Counts must not depend on batching or order: a case measured among other
// cases in one worker gives exactly its count measured alone, for C++ and
// Python. (Workers run under valgrind: ~20 s each to start.)
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "timer/callgrind.pb.h"
#include "worker/runner.h"

namespace icount {
namespace {

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

std::map<std::string, int64_t> Counts(const std::vector<worker::WorkOrderProto>& orders,
                                      const std::string& journal) {
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
    int64_t total = 0;
    for (const auto& row : result.output().callgrind(0).stmt_exclusive().rows()) {
      total += row.count();
    }
    int64_t second = 0;
    for (const auto& row : result.output().callgrind(1).stmt_exclusive().rows()) {
      second += row.count();
    }
    EXPECT_EQ(total, second) << result.id() << ": repeats differ";
    counts[result.id()] = total;
  }
  return counts;
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

}  // namespace
}  // namespace icount
