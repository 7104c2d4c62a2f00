#include "timer/cache_model.h"

#include <optional>

#include "gtest/gtest.h"

namespace icount::timer {
namespace {

TEST(CacheModelTest, CyclesFromHitsAndMisses) {
  CacheEvents e;
  e.ir = 1000;
  e.dr = 300;
  e.dw = 100;
  e.i1mr = 10;  // 20 L1 misses in all ...
  e.d1mr = 8;
  e.d1mw = 2;
  e.ilmr = 1;  // ... of which 4 go to memory
  e.dlmr = 2;
  e.dlmw = 1;
  // L1 hits 1380, LL hits 16, RAM 4.
  EXPECT_EQ(EstimatedCycles(e), 1380 + 5 * 16 + 35 * 4);
}

TEST(CacheModelTest, EventsByNameOrNothingWithoutTheSimulation) {
  const std::optional<CacheEvents> events =
      CacheEventsFromTotals({"Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw"},
                            {100, 40, 20, 3, 2, 1});  // trailing zeros left out, as callgrind may
  ASSERT_TRUE(events.has_value());
  EXPECT_EQ(events->ir, 100);
  EXPECT_EQ(events->d1mw, 1);
  EXPECT_EQ(events->dlmw, 0);
  EXPECT_FALSE(CacheEventsFromTotals({"Ir"}, {100}).has_value());
}

TEST(CacheModelTest, GeometryIsPinned) {
  const std::vector<std::string> flags = CacheSimulationOptions();
  ASSERT_EQ(flags.size(), 4u);
  EXPECT_EQ(flags[0], "--cache-sim=yes");
  EXPECT_NE(CacheModelDescription().find("LL 8388608 B 16-way"), std::string::npos);
}

}  // namespace
}  // namespace icount::timer
