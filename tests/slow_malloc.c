// A preload library for //tests:ab_test_test: every malloc pays a small,
// fixed tax first, so environment B (LD_PRELOAD=libslow_malloc.so) executes
// measurably more instructions wherever LibTorch or Python allocates.
#include <stddef.h>

extern void* __libc_malloc(size_t size);

__attribute__((noinline, visibility("default"))) unsigned icount_test_allocation_tax(size_t size) {
  volatile unsigned sum = 0;
  for (unsigned i = 0; i < 200; ++i) sum += i * (unsigned)size;
  return sum;
}

__attribute__((visibility("default"))) void* malloc(size_t size) {
  icount_test_allocation_tax(size);
  return __libc_malloc(size);
}
