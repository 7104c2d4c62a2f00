#ifndef ICOUNT_TIMER_INTERNAL_BLOCK_CONTROL_H_
#define ICOUNT_TIMER_INTERNAL_BLOCK_CONTROL_H_

// The C interface between the Timer and a measured statement, whatever its
// kind (C++ callable, C++ string compiled into a shared object, Python
// string). The statement's harness runs its setup once, then asks for blocks:
//
//   setup
//   while ((number = next_block(context)) >= 0) {
//     begin_block(context);             // e.g. read the clock, or start
//     for (i = 0; i < number; ++i) stmt  //      callgrind collection
//     end_block(context);
//   }
//
// Wall time uses one block per harness run (setup reruns per block, as in
// torch.utils.benchmark); callgrind uses one block per repeat. The struct is
// plain C so that run-time compiled snippets can declare it themselves; its
// layout is part of the snippet cache key (kBlockControlAbiVersion).
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct IcountBlockControl {
  void* context;
  // The number of runs in the next block, or a negative value to stop.
  int64_t (*next_block)(void* context);
  void (*begin_block)(void* context);
  void (*end_block)(void* context);
} IcountBlockControl;

// A snippet's entry point: returns 0, or 1 with a NUL-terminated message in
// `error` when the statement or its setup threw.
typedef int (*IcountSnippetEntry)(const IcountBlockControl* control, char* error,
                                  size_t error_size);

#ifdef __cplusplus
}  // extern "C"
#endif

#ifdef __cplusplus
namespace icount::timer_internal {
inline constexpr int kBlockControlAbiVersion = 1;
inline constexpr char kSnippetEntrySymbol[] = "icount_snippet_entry";
}  // namespace icount::timer_internal
#endif

#endif  // ICOUNT_TIMER_INTERNAL_BLOCK_CONTROL_H_
