// hwy::platform::TimerResolution() without RDTSCP, so that valgrind can run
// LibTorch on CPUs whose CPUID hides RDTSCP (see README.md beside this file).
//
// Debian's libtorch_cpu pulls in libhwy (through OpenCV, libavcodec and
// libjxl), whose load-time initialiser calls TimerResolution(), which runs
// RDTSCP. Valgrind 3.19 decodes RDTSCP only when the host's CPUID reports
// it; on CPUs that hide it (seen on AMD EPYC VMs) every process under
// valgrind dies of SIGILL before main. libhwy calls the function through its
// PLT, so this definition, exported from the executable (which comes first
// in the dynamic linker's search order), replaces libhwy's everywhere in the
// process, including libraries loaded later with dlopen (CPython's import of
// torch).
//
// Only libhwy's own initialiser and its nanobenchmark call it; LibTorch's
// operators never do, so a measured region's instruction count does not
// include it (//third_party/libtorch:timer_resolution_test checks both).

#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>

namespace hwy::platform {

// Same contract as libhwy 1.0.3's: the smallest difference between two
// back-to-back timer reads, in ticks. Read with LFENCE-serialised RDTSC,
// which valgrind decodes on every x86-64 CPU, instead of RDTSCP. libhwy
// takes a robust mode over 256x256 samples; the minimum over 256 pairs is
// what its nanobenchmark needs (a lower bound to subtract).
__attribute__((visibility("default"), used)) uint64_t TimerResolution() {
  uint64_t smallest = UINT64_MAX;
  for (int i = 0; i < 256; ++i) {
    _mm_lfence();
    const uint64_t start = __rdtsc();
    _mm_lfence();
    const uint64_t stop = __rdtsc();
    _mm_lfence();
    if (stop > start && stop - start < smallest) smallest = stop - start;
  }
  return smallest == UINT64_MAX ? 1 : smallest;
}

}  // namespace hwy::platform

#endif  // __x86_64__
