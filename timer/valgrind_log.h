#ifndef ICOUNT_TIMER_VALGRIND_LOG_H_
#define ICOUNT_TIMER_VALGRIND_LOG_H_

// Why a process under valgrind failed, in words, from valgrind's own log
// (--log-file). A process that dies under valgrind before main usually
// writes nothing itself; the reason is only in that log, e.g.
//
//   vex amd64->IR: unhandled instruction bytes: 0xF 0x1 0xF9 0x48 ...
//   ==8806== valgrind: Unrecognised instruction at address 0x1d584522.
//   ==8806==    at 0x1D584522: hwy::platform::TimerResolution() (in
//   /usr/lib/x86_64-linux-gnu/libhwy.so.1.0.3)
//
// becomes "valgrind cannot run the instruction RDTSCP (bytes 0xF 0x1
// 0xF9) in hwy::platform::TimerResolution() (/usr/lib/.../libhwy.so.1.0.3)"
// followed by what to do about it.

#include <string>

#include "absl/strings/string_view.h"

namespace icount::timer {

// What the log shows (an instruction valgrind refused, a fatal signal and
// where, valgrind running out of memory) and what to do, or "" when it
// shows none of these.
std::string DiagnoseValgrindLog(absl::string_view log);

// For failure messages: the diagnosis, then the log's last `max_bytes`
// under a heading naming `path`. "" when the file is missing or empty.
std::string ValgrindLogReport(const std::string& path, size_t max_bytes = 2000);

}  // namespace icount::timer

#endif  // ICOUNT_TIMER_VALGRIND_LOG_H_
