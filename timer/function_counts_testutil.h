#ifndef ICOUNT_TIMER_FUNCTION_COUNTS_TESTUTIL_H_
#define ICOUNT_TIMER_FUNCTION_COUNTS_TESTUTIL_H_

// Function counts for tests, their keys written as callgrind_annotate
// prints them (FunctionKeyFromText):
//
//   FunctionCounts counts = CountsOfTexts({{900, "???:at::add [/lib/libtorch.so]"},
//                                          {40, "loop"}},
//                                         /*inclusive=*/false);

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "timer/function_counts.h"
#include "timer/function_key.h"

namespace icount::timer {

inline FunctionCount RowOfText(int64_t count, const std::string& key) {
  return {count, FunctionKeyFromText(key)};
}

inline FunctionCounts CountsOfTexts(const std::vector<std::pair<int64_t, std::string>>& rows,
                                    bool inclusive) {
  std::vector<FunctionCount> typed;
  for (const auto& [count, key] : rows) typed.push_back(RowOfText(count, key));
  return FunctionCounts(std::move(typed), inclusive);
}

}  // namespace icount::timer

#endif  // ICOUNT_TIMER_FUNCTION_COUNTS_TESTUTIL_H_
