#ifndef ICOUNT_TIMER_FUNCTION_COUNTS_H_
#define ICOUNT_TIMER_FUNCTION_COUNTS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "timer/function_key.h"

namespace icount::timer {

// One row: instructions attributed to a function.
struct FunctionCount {
  int64_t count = 0;
  FunctionKey function;
  friend bool operator==(const FunctionCount& a, const FunctionCount& b) {
    return a.count == b.count && a.function == b.function;
  }
};

// Per-function instruction counts from callgrind, like torch.utils.benchmark's
// FunctionCounts: rows sorted by count then name, both descending; inclusive
// (a function's count includes its callees) or exclusive (self cost only).
//
//   FunctionCounts delta = *b.Stats().Subtract(a.Stats());  // what changed
//   FunctionCounts aten = delta.Filter(
//       [](const FunctionKey& f) { return absl::StartsWith(f.function(), "at::"); });
//   std::cout << aten.Denoise().ToString();
//   //   1510  ???:at::native::add_out [/usr/lib/.../libtorch_cpu.so.1.13]
//   //   ...
//   //
//   //   Total: 1984
class FunctionCounts {
 public:
  FunctionCounts() = default;
  // Sorts `rows`; keeps duplicate names and zero counts as given.
  FunctionCounts(std::vector<FunctionCount> rows, bool inclusive, bool truncate_rows = true);
  // Rows from a function -> count map, dropping zero counts.
  static FunctionCounts FromMap(const absl::flat_hash_map<FunctionKey, int64_t>& counts,
                                bool inclusive);

  const std::vector<FunctionCount>& rows() const { return rows_; }
  bool inclusive() const { return inclusive_; }
  size_t size() const { return rows_.size(); }
  const FunctionCount& operator[](size_t i) const { return rows_[i]; }

  int64_t Sum() const;
  // Rows [begin, end) (clamped), printed without row truncation.
  FunctionCounts Slice(size_t begin, size_t end) const;
  FunctionCounts Filter(const std::function<bool(const FunctionKey&)>& keep) const;
  // Renames every function; rows that collide are added together.
  FunctionCounts Transform(const std::function<FunctionKey(const FunctionKey&)>& rename) const;
  // Drops CPython's dictobject.c:lookdict_unicode rows, whose counts vary
  // from run to run with string hashing.
  FunctionCounts Denoise() const;
  // The reference's standardisation: strips build-path prefixes from files
  // (".../build/../", ".../build/aten/", ".../Python/", ".../Objects/") and
  // drops the object, so profiles of builds in different directories
  // cancel when subtracted.
  FunctionCounts Standardized() const;

  // Row-wise merges by function name; rows that sum to zero disappear. An
  // inclusive and an exclusive set do not mix (a function's inclusive count
  // minus its self cost means nothing; the reference asserts it): that is an
  // InvalidArgument error.
  absl::StatusOr<FunctionCounts> Add(const FunctionCounts& other) const;
  absl::StatusOr<FunctionCounts> Subtract(const FunctionCounts& other) const;
  // Scales every count, truncating toward zero as Python's int() does.
  FunctionCounts operator*(double factor) const;

  // The reference's printed form without its first line (the Python
  // object): right-aligned counts, names shortened with "..." to fit
  // `linewidth`, only the first and last 9 rows when there are more than
  // 18 (unless sliced), and "Total: N" for exclusive counts.
  std::string ToString(int linewidth = 80) const;

 private:
  absl::StatusOr<FunctionCounts> Merge(const FunctionCounts& other, int64_t sign) const;

  std::vector<FunctionCount> rows_;
  bool inclusive_ = false;
  bool truncate_rows_ = true;
};

// The rows with typed keys; files that carry keys as text alone
// (FunctionCountProto.function) read too.
FunctionCountsProto FunctionCountsToProto(const FunctionCounts& counts);
FunctionCounts FunctionCountsFromProto(const FunctionCountsProto& proto);

// The standardisation of one function (see FunctionCounts::Standardized).
FunctionKey StandardizeFunctionKey(const FunctionKey& function);

}  // namespace icount::timer

#endif  // ICOUNT_TIMER_FUNCTION_COUNTS_H_
