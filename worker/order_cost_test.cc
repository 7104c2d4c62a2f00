#include "worker/order_cost.h"

#include "gtest/gtest.h"

namespace icount::worker {
namespace {

WorkOrderProto Counts(timer::LanguageProto language, int repeats) {
  WorkOrderProto order;
  order.set_callgrind(true);
  order.set_callgrind_repeats(repeats);
  order.mutable_task_spec()->set_language(language);
  return order;
}

WorkOrderProto Time(double seconds) {
  WorkOrderProto order;
  order.set_wall_time(true);
  order.set_min_run_time(seconds);
  return order;
}

TEST(ExpectedOrderSecondsTest, PythonCountsCostMoreThanCppAndRepeatsAdd) {
  EXPECT_GT(ExpectedOrderSeconds(Counts(timer::PYTHON, 1)),
            ExpectedOrderSeconds(Counts(timer::CPP, 1)));
  EXPECT_GT(ExpectedOrderSeconds(Counts(timer::CPP, 5)),
            ExpectedOrderSeconds(Counts(timer::CPP, 1)));
  EXPECT_GT(ExpectedOrderSeconds(Time(1.0)), ExpectedOrderSeconds(Time(0.05)));
}

TEST(CountWorkersForTest, OneWorkerPerStartUpOfCounting) {
  EXPECT_EQ(CountWorkersFor(0, 8), 1);  // nothing to count still has its one worker
  EXPECT_EQ(CountWorkersFor(kCountWorkerStartSeconds, 8), 1);
  EXPECT_EQ(CountWorkersFor(kCountWorkerStartSeconds + 0.1, 8), 2);
  EXPECT_EQ(CountWorkersFor(5.5 * kCountWorkerStartSeconds, 8), 6);
}

TEST(CountWorkersForTest, NeverMoreThanTheCpusNorFewerThanOne) {
  EXPECT_EQ(CountWorkersFor(100 * kCountWorkerStartSeconds, 2), 2);
  EXPECT_EQ(CountWorkersFor(100 * kCountWorkerStartSeconds, 0), 1);
}

// The 4 C++ and 4 Python counts of a small filter fit one worker's
// start-up; the suite's 362 counts keep 16 CPUs busy.
TEST(CountWorkersForTest, SmallFilterOneWorkerSuiteEveryCpu) {
  double small = 0;
  for (int i = 0; i < 4; ++i) {
    small += ExpectedOrderSeconds(Counts(timer::CPP, 1)) +
             ExpectedOrderSeconds(Counts(timer::PYTHON, 1));
  }
  EXPECT_EQ(CountWorkersFor(small, 16), 1);
  double suite = 0;
  for (int i = 0; i < 362; ++i) suite += ExpectedOrderSeconds(Counts(timer::CPP, 1));
  EXPECT_EQ(CountWorkersFor(suite, 16), 16);
}

}  // namespace
}  // namespace icount::worker
