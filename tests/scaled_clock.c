// A preload library for wall-time tests and bench/wall_time_ab.py: the
// monotonic clocks run ICOUNT_TEST_CLOCK_SCALE times as fast as the real
// ones (default 1.10) from the first reading on, so every duration a
// process measures is that much longer: a slowdown of exactly +10% in
// every case, with the machine's own noise on top, for checking that a
// wall-time comparison catches it. Other clocks pass through.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

typedef int (*ClockGettime)(clockid_t, struct timespec*);

static double Seconds(const struct timespec* t) { return (double)t->tv_sec + t->tv_nsec * 1e-9; }

__attribute__((visibility("default"))) int clock_gettime(clockid_t clock, struct timespec* time) {
  static ClockGettime real = NULL;
  static double scale = 0;
  static double origin[16];  // first reading per clock id, 0 before it
  if (real == NULL) real = (ClockGettime)dlsym(RTLD_NEXT, "clock_gettime");
  const int status = real(clock, time);
  if (status != 0 || (clock != CLOCK_MONOTONIC && clock != CLOCK_MONOTONIC_RAW &&
                      clock != CLOCK_BOOTTIME)) {
    return status;
  }
  if (scale == 0) {
    const char* text = getenv("ICOUNT_TEST_CLOCK_SCALE");
    scale = text != NULL ? atof(text) : 1.10;
    if (scale <= 0) scale = 1.10;
  }
  const double now = Seconds(time);
  if (origin[clock] == 0) origin[clock] = now;
  const double scaled = origin[clock] + (now - origin[clock]) * scale;
  time->tv_sec = (time_t)scaled;
  time->tv_nsec = (long)((scaled - (double)time->tv_sec) * 1e9);
  return status;
}
