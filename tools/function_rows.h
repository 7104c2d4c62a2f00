#ifndef ICOUNT_TOOLS_FUNCTION_ROWS_H_
#define ICOUNT_TOOLS_FUNCTION_ROWS_H_

#include <cstddef>
#include <string>

#include "timer/function_counts.h"

namespace icount::tools {

// How the line that sums the rows left out writes its sum.
enum class RestSum {
  kPlain,   // "2093 in 212 other functions": counts
  kSigned,  // "+2093 in 212 other functions": the rows of a difference
};

// The `shown` rows of `counts` of largest magnitude (ties in `counts`'
// order), as timer::FunctionCounts prints rows (largest count first, names
// shortened to fit 80 columns), then one line that sums the rows left out:
//
//   LargestFunctionRows(exclusive, 2, RestSum::kPlain)
//   //   1510  ???:at::native::add_out [/usr/lib/.../libtorch_cpu.so.1.13]
//   //    474  ???:at::TensorIteratorBase::build [/usr/lib/.../libtorch_cpu.so.1.13]
//   //   2093 in 212 other functions
//
// No "Total:" line and no final newline: the rows shown are not the whole,
// which the caller states in its own words.
std::string LargestFunctionRows(const timer::FunctionCounts& counts, size_t shown, RestSum sum);

}  // namespace icount::tools

#endif  // ICOUNT_TOOLS_FUNCTION_ROWS_H_
