#include "base/phase_log.h"

#include <fcntl.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace icount::base {
namespace {

double Seconds(const timeval& t) { return t.tv_sec + t.tv_usec * 1e-6; }
double Seconds(const timespec& t) { return t.tv_sec + t.tv_nsec * 1e-9; }

// A copy, not the environment's string: the worker takes the variable out
// of the environment once it has read it (worker_main.cc).
const char* LogPath() {
  static char buffer[4096];
  static const char* path = []() -> const char* {
    const char* value = std::getenv("ICOUNT_PHASE_LOG");
    if (value == nullptr || *value == '\0' || std::strlen(value) >= sizeof(buffer)) return nullptr;
    std::memcpy(buffer, value, std::strlen(value) + 1);
    return buffer;
  }();
  return path;
}

// One write(2) of one line to a file opened with O_APPEND: lines of
// concurrent processes never interleave.
void AppendLine(const char* process, const char* phase, double wall, double user, double sys,
                long minor_faults, long major_faults) {
  char line[512];
  const int size = std::snprintf(line, sizeof(line), "%d\t%s\t%s\t%.6f\t%.6f\t%.6f\t%ld\t%ld\n",
                                 static_cast<int>(getpid()), process, phase, wall, user, sys,
                                 minor_faults, major_faults);
  if (size <= 0 || size >= static_cast<int>(sizeof(line))) return;
  const int fd = open(LogPath(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  (void)!write(fd, line, static_cast<size_t>(size));
  close(fd);
}

}  // namespace

bool PhaseLogEnabled() { return LogPath() != nullptr; }

PhaseMark PhaseNow() {
  PhaseMark mark;
  if (!PhaseLogEnabled()) return mark;
  clock_gettime(CLOCK_MONOTONIC, &mark.wall);
  rusage children;
  getrusage(RUSAGE_SELF, &mark.usage);
  getrusage(RUSAGE_CHILDREN, &children);
  timeradd(&mark.usage.ru_utime, &children.ru_utime, &mark.usage.ru_utime);
  timeradd(&mark.usage.ru_stime, &children.ru_stime, &mark.usage.ru_stime);
  mark.usage.ru_minflt += children.ru_minflt;
  mark.usage.ru_majflt += children.ru_majflt;
  return mark;
}

PhaseMark RecordPhase(const char* process, const char* phase, const PhaseMark& since) {
  const PhaseMark now = PhaseNow();
  if (!PhaseLogEnabled()) return now;
  AppendLine(process, phase, Seconds(now.wall) - Seconds(since.wall),
             Seconds(now.usage.ru_utime) - Seconds(since.usage.ru_utime),
             Seconds(now.usage.ru_stime) - Seconds(since.usage.ru_stime),
             now.usage.ru_minflt - since.usage.ru_minflt,
             now.usage.ru_majflt - since.usage.ru_majflt);
  return now;
}

void RecordChildPhase(const char* process, const char* phase, const timespec& forked,
                      const rusage& child) {
  if (!PhaseLogEnabled()) return;
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  AppendLine(process, phase, Seconds(now) - Seconds(forked), Seconds(child.ru_utime),
             Seconds(child.ru_stime), child.ru_minflt, child.ru_majflt);
}

PhaseMark RecordPhaseSinceStart(const char* process, const char* phase) {
  PhaseMark start;  // zero usage: a process's counters start at fork
  if (!PhaseLogEnabled()) return start;
  // Field 22 of /proc/self/stat: the start time in clock ticks after boot,
  // on CLOCK_BOOTTIME's scale; the fields before it hold no spaces except
  // inside the parenthesised command name.
  char stat[1024];
  const int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  const ssize_t size = fd < 0 ? -1 : read(fd, stat, sizeof(stat) - 1);
  if (fd >= 0) close(fd);
  timespec boot_now, monotonic_now;
  clock_gettime(CLOCK_BOOTTIME, &boot_now);
  clock_gettime(CLOCK_MONOTONIC, &monotonic_now);
  double started_after_boot = Seconds(boot_now);
  if (size > 0) {
    stat[size] = '\0';
    const char* field = std::strrchr(stat, ')');
    for (int i = 2; field != nullptr && i < 22; ++i) field = std::strchr(field + 1, ' ');
    if (field != nullptr) {
      started_after_boot = std::strtod(field + 1, nullptr) / sysconf(_SC_CLK_TCK);
    }
  }
  // The start on the monotonic clock (the two clocks differ by time spent
  // suspended, which is the same for both readings).
  const double age = Seconds(boot_now) - started_after_boot;
  const double start_wall = Seconds(monotonic_now) - age;
  start.wall.tv_sec = static_cast<time_t>(start_wall);
  start.wall.tv_nsec =
      static_cast<long>((start_wall - static_cast<double>(start.wall.tv_sec)) * 1e9);
  return RecordPhase(process, phase, start);
}

}  // namespace icount::base
