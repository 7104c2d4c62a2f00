#ifndef ICOUNT_TIMER_INTERNAL_ALLOCATION_CALLS_H_
#define ICOUNT_TIMER_INTERNAL_ALLOCATION_CALLS_H_

// How many heap allocations and frees a measured region made, from the call
// counts callgrind records in the same dump as the instructions (no second
// valgrind run).
//
// An allocation is a call into malloc, calloc, realloc, reallocarray,
// aligned_alloc, posix_memalign, memalign, valloc, pvalloc or any operator
// new (plain, array, aligned, nothrow); a free is a call into free, cfree or
// any operator delete. Only calls from outside that family count, so
// operator new calling malloc is one allocation, not two. Python's own
// small-object allocator (PyObject_Malloc's arenas) is not in the family:
// a Python object that fits an arena allocates nothing here.
//
//   absl::StatusOr<CallgrindProfile> profile = ParseCallgrindFile(path);
//   AllocationCalls calls = CountAllocationCalls(*profile);
//   // calls.allocations == 200 for 100 runs of `torch::empty({4})` ...

#include <cstdint>
#include <string_view>

#include "timer/internal/callgrind_parser.h"

namespace icount::timer::internal {

struct AllocationCalls {
  int64_t allocations = 0;
  int64_t frees = 0;
};

AllocationCalls CountAllocationCalls(const CallgrindProfile& profile);

}  // namespace icount::timer::internal

#endif  // ICOUNT_TIMER_INTERNAL_ALLOCATION_CALLS_H_
