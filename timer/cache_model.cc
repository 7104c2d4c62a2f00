#include "timer/cache_model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace icount::timer {
namespace {

// Costs in cycles of a hit in the last level and of a memory access, the
// L1 hit costing one.
constexpr double kLastLevelCycles = 5;
constexpr double kMemoryCycles = 35;

}  // namespace

std::vector<std::string> CacheSimulationOptions() {
  return {"--cache-sim=yes", "--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"};
}

std::string CacheModelDescription() {
  return "I1 32768 B 8-way, D1 32768 B 8-way, LL 8388608 B 16-way, 64 B lines; "
         "cycles = L1 hits + 5 x LL hits + 35 x RAM accesses";
}

std::optional<CacheEvents> CacheEventsFromTotals(const std::vector<std::string>& names,
                                                 const std::vector<int64_t>& totals) {
  CacheEvents events;
  const std::pair<const char*, int64_t*> fields[] = {
      {"Ir", &events.ir},     {"Dr", &events.dr},     {"Dw", &events.dw},
      {"I1mr", &events.i1mr}, {"D1mr", &events.d1mr}, {"D1mw", &events.d1mw},
      {"ILmr", &events.ilmr}, {"DLmr", &events.dlmr}, {"DLmw", &events.dlmw}};
  for (const auto& [name, field] : fields) {
    bool found = false;
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] != name) continue;
      *field = i < totals.size() ? totals[i] : 0;
      found = true;
    }
    if (!found) return std::nullopt;
  }
  return events;
}

double EstimatedCycles(const CacheEvents& e) {
  const double l1_misses = static_cast<double>(e.i1mr + e.d1mr + e.d1mw);
  const double memory = static_cast<double>(e.ilmr + e.dlmr + e.dlmw);
  const double l1_hits = static_cast<double>(e.ir + e.dr + e.dw) - l1_misses;
  const double last_level_hits = l1_misses - memory;
  return l1_hits + kLastLevelCycles * last_level_hits + kMemoryCycles * memory;
}

}  // namespace icount::timer
