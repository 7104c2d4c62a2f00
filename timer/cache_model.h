#ifndef ICOUNT_TIMER_CACHE_MODEL_H_
#define ICOUNT_TIMER_CACHE_MODEL_H_

// Estimated cycles: callgrind's cache simulation with a cache geometry
// icount pins (never the host's, so two machines agree), and one formula
// from the simulated hits and misses to a time in cycles:
//
//   L1 hits   = Ir + Dr + Dw - (I1mr + D1mr + D1mw)
//   LL hits   = (I1mr + D1mr + D1mw) - (ILmr + DLmr + DLmw)
//   RAM       = ILmr + DLmr + DLmw
//   cycles    = L1 hits + 5 x LL hits + 35 x RAM
//
// Like instruction counts they are exact: the same binary and input give
// the same figure. They are a model, not a measurement: they see what
// instructions cannot (a working set that stops fitting a cache), not
// branch mispredictions, prefetching or out-of-order execution.
//
//   std::vector<std::string> flags = CacheSimulationOptions();  // for valgrind
//   std::optional<CacheEvents> events = CacheEventsFromTotals(names, totals);
//   double cycles = EstimatedCycles(*events);

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace icount::timer {

// Callgrind's --cache-sim=yes events, totals of a measured region.
struct CacheEvents {
  int64_t ir = 0;    // instructions read
  int64_t dr = 0;    // data reads
  int64_t dw = 0;    // data writes
  int64_t i1mr = 0;  // L1 instruction read misses
  int64_t d1mr = 0;  // L1 data read misses
  int64_t d1mw = 0;  // L1 data write misses
  int64_t ilmr = 0;  // last-level instruction read misses
  int64_t dlmr = 0;  // last-level data read misses
  int64_t dlmw = 0;  // last-level data write misses
};

// The valgrind flags: --cache-sim=yes and the pinned geometry (32 KiB
// 8-way L1s and an 8 MiB 16-way last level, 64-byte lines).
std::vector<std::string> CacheSimulationOptions();

// The settings key under which results files record CacheModelDescription()
// when their counts carry estimated cycles.
inline constexpr char kCacheModelSetting[] = "cache_model";

// The geometry and the formula, as results files record them
// (ResultsFile::settings[kCacheModelSetting]).
std::string CacheModelDescription();

// The events named by callgrind's "events:" line with their totals; nullopt
// when a cache event is missing (a run without --cache-sim=yes).
std::optional<CacheEvents> CacheEventsFromTotals(const std::vector<std::string>& names,
                                                 const std::vector<int64_t>& totals);

// The formula above.
double EstimatedCycles(const CacheEvents& events);

}  // namespace icount::timer

#endif  // ICOUNT_TIMER_CACHE_MODEL_H_
