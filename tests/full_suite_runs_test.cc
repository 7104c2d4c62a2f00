// Every case of the full suite runs: each C++ case compiled into the suite's
// worker, each Python case, and both languages' TorchScript cases loading
// their build-time artifacts. Backward variants run `y.backward()`, which
// raises when no gradient can be produced, so a passing backward case did
// produce gradients. Wall time only (a few runs each): no valgrind here.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tools/suite.h"
#include "worker/failure.h"
#include "worker/runner.h"

namespace icount::tests {
namespace {

TEST(FullSuiteRunsTest, EveryCaseRunsOnce) {
  absl::StatusOr<tools::Suite> suite = tools::LoadSuite("definitions", "full_suite");
  ASSERT_TRUE(suite.ok()) << suite.status();
  absl::StatusOr<std::vector<expand::SuiteCaseProto>> cases = tools::SelectCases(*suite, {});
  ASSERT_TRUE(cases.ok()) << cases.status();
  ASSERT_EQ(cases->size(), 201u);
  int torchscript_cpp = 0, torchscript_python = 0, backward = 0;
  for (const expand::SuiteCaseProto& c : *cases) {
    if (c.runtime() == expand::RUNTIME_TORCHSCRIPT) {
      (c.task_spec().language() == timer::CPP ? torchscript_cpp : torchscript_python)++;
    }
    if (c.autograd() == expand::AUTOGRAD_FORWARD_BACKWARD) ++backward;
  }
  EXPECT_GT(torchscript_cpp, 0);
  EXPECT_GT(torchscript_python, 0);
  EXPECT_GT(backward, 0);

  tools::MeasureOptions measure;
  measure.instruction_counts = false;
  measure.min_run_time = 1e-4;  // a handful of runs
  const std::vector<worker::WorkOrderProto> orders = tools::MakeOrders(*suite, *cases, measure);
  worker::RunnerOptions options;
  options.worker_path = suite->worker_path;
  options.journal_path = std::string(std::getenv("TEST_TMPDIR")) + "/suite.journal";
  options.timeout_seconds = 120;
  absl::StatusOr<worker::RunnerReport> report = worker::RunOrders(orders, options);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->results.size(), orders.size());
  for (size_t i = 0; i < orders.size(); ++i) {
    const worker::WorkerResultProto& result = report->results[i];
    EXPECT_TRUE(result.has_output())
        << orders[i].id() << ": " << worker::FailureKindName(result.failure().kind()) << ": "
        << result.failure().reason();
    if (result.has_output()) {
      EXPECT_GT(result.output().wall_time().raw_times_size(), 0) << orders[i].id();
    }
  }
}

}  // namespace
}  // namespace icount::tests
