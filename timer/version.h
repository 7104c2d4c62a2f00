#ifndef ICOUNT_TIMER_VERSION_H_
#define ICOUNT_TIMER_VERSION_H_

namespace icount::timer {

// The semantic version of //timer. Bump it with every change to //timer's
// public API or to the data it writes; tools print it with --version and
// serialised artifacts record it.
inline constexpr char kTimerVersion[] = "0.26.0";

}  // namespace icount::timer

#endif  // ICOUNT_TIMER_VERSION_H_
