#include "slurm/shards.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "gtest/gtest.h"
#include "worker/order_cost.h"

namespace icount::slurm {
namespace {

worker::WorkOrderProto Counts(timer::LanguageProto language, int repeats) {
  worker::WorkOrderProto order;
  order.set_callgrind(true);
  order.set_callgrind_repeats(repeats);
  order.mutable_task_spec()->set_language(language);
  return order;
}

worker::WorkOrderProto Time(double seconds) {
  worker::WorkOrderProto order;
  order.set_wall_time(true);
  order.set_min_run_time(seconds);
  return order;
}

TEST(SplitIntoShardsTest, EveryOrderInExactlyOneShardAscending) {
  std::vector<worker::WorkOrderProto> orders;
  for (int i = 0; i < 23; ++i) {
    orders.push_back(i % 3 == 0 ? Time(0.05) : Counts(i % 2 ? timer::PYTHON : timer::CPP, 1));
  }
  const auto shards = SplitIntoShards(orders, 4);
  ASSERT_EQ(shards.size(), 4);
  std::vector<size_t> all;
  for (const auto& shard : shards) {
    EXPECT_FALSE(shard.empty());
    EXPECT_TRUE(std::is_sorted(shard.begin(), shard.end()));
    all.insert(all.end(), shard.begin(), shard.end());
  }
  std::sort(all.begin(), all.end());
  std::vector<size_t> expected(orders.size());
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(all, expected);
}

TEST(SplitIntoShardsTest, BalancedByExpectedTimeNotByCount) {
  // One slow Python case with many repeats and many quick timings: an
  // equal count per shard would put the slow case beside half the others.
  std::vector<worker::WorkOrderProto> orders = {Counts(timer::PYTHON, 20)};
  for (int i = 0; i < 10; ++i) orders.push_back(Time(0.05));
  const auto shards = SplitIntoShards(orders, 2);
  ASSERT_EQ(shards.size(), 2);
  const auto& slow = shards[0][0] == 0 ? shards[0] : shards[1];
  EXPECT_EQ(slow.size(), 1) << "the slow case's shard gets nothing else";
}

TEST(SplitIntoShardsTest, LoadsWithinAThirdOfTheBest) {
  std::vector<worker::WorkOrderProto> orders;
  for (int i = 0; i < 40; ++i) orders.push_back(Counts(timer::CPP, 1 + (i * 7) % 5));
  const auto shards = SplitIntoShards(orders, 3);
  double total = 0, worst = 0;
  for (const auto& shard : shards) {
    double load = 0;
    for (size_t i : shard) load += worker::ExpectedOrderSeconds(orders[i]);
    total += load;
    worst = std::max(worst, load);
  }
  EXPECT_LE(worst, total / 3 * 4 / 3);
}

TEST(SplitIntoShardsTest, NoMoreShardsThanOrdersAndNoneForNoOrders) {
  EXPECT_EQ(SplitIntoShards({Counts(timer::CPP, 1), Time(0.1)}, 8).size(), 2);
  EXPECT_TRUE(SplitIntoShards({}, 4).empty());
  EXPECT_EQ(SplitIntoShards({Time(0.1)}, 0).size(), 1) << "0 shards asked: one";
}

TEST(SplitIntoShardsTest, ACasesWallTimeRoundsStayTogether) {
  std::vector<worker::WorkOrderProto> orders;
  for (int round = 0; round < 3; ++round) {
    for (const char* key : {"a", "b", "c", "d"}) {
      orders.push_back(Time(0.05));
      orders.back().set_case_key(key);
    }
  }
  const auto shards = SplitIntoShards(orders, 2);
  ASSERT_EQ(shards.size(), 2);
  std::map<size_t, std::set<size_t>> shards_of_case;  // case (i % 4) -> shards
  for (size_t k = 0; k < shards.size(); ++k) {
    EXPECT_EQ(shards[k].size(), 6);
    for (size_t i : shards[k]) shards_of_case[i % 4].insert(k);
  }
  for (const auto& [c, in] : shards_of_case) EXPECT_EQ(in.size(), 1) << "case " << c << " split";
  // Counts orders of one case are not tied together: they spread.
  std::vector<worker::WorkOrderProto> counts(4, Counts(timer::CPP, 1));
  for (auto& order : counts) order.set_case_key("a");
  EXPECT_EQ(SplitIntoShards(counts, 4).size(), 4);
}

// Ties go the same way every time: equal orders in their order, each to
// the least loaded shard, the first of equals; so a resumed run finds the
// shards it wrote.
TEST(SplitIntoShardsTest, TiesAreBrokenByPosition) {
  std::vector<worker::WorkOrderProto> orders(12, Counts(timer::CPP, 1));
  EXPECT_EQ(SplitIntoShards(orders, 5),
            (std::vector<std::vector<size_t>>{{0, 5, 10}, {1, 6, 11}, {2, 7}, {3, 8}, {4, 9}}));
}

}  // namespace
}  // namespace icount::slurm
