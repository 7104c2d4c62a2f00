#ifndef ICOUNT_WORKER_PROGRESS_H_
#define ICOUNT_WORKER_PROGRESS_H_

// How far a run is (RunnerOptions::on_progress) and how to show it: a live
// bar on a terminal, or lines in a log.

#include <optional>
#include <string>

namespace icount::worker {

struct RunnerProgress {
  int done = 0;  // finished orders, failed ones included
  int failed = 0;
  int total = 0;
  double elapsed_seconds = 0;
  double eta_seconds = -1;  // unknown until something finished
  std::string phase;        // "instruction counts" or "wall time"
};

// "[#######.....] 12/40 (1 failed) instruction counts, ETA 1m05s" for a
// terminal, or a plain line for logs.
std::string FormatProgress(const RunnerProgress& progress, bool terminal);

// Progress for a log (stderr not a terminal, e.g. CI): a line whenever an
// order finishes, and at least every `heartbeat_seconds` of the run's
// elapsed time when none does, so a log never goes quiet for long.
//
//   ProgressLog log;
//   options.on_progress = [&](const RunnerProgress& p) {
//     if (auto line = log.Line(p)) std::fprintf(stderr, "%s\n", line->c_str());
//   };
class ProgressLog {
 public:
  explicit ProgressLog(double heartbeat_seconds = 30) : heartbeat_seconds_(heartbeat_seconds) {}
  // The line to print for this report, if any.
  std::optional<std::string> Line(const RunnerProgress& progress);

 private:
  double heartbeat_seconds_;
  int last_done_ = -1;
  double last_line_seconds_ = 0;
};

}  // namespace icount::worker

#endif  // ICOUNT_WORKER_PROGRESS_H_
