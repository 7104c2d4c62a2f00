#include "worker/progress.h"

#include <cmath>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace icount::worker {

std::string FormatProgress(const RunnerProgress& progress, bool terminal) {
  auto duration = [](double seconds) {
    const int s = static_cast<int>(std::lround(seconds));
    return s >= 60 ? absl::StrFormat("%dm%02ds", s / 60, s % 60) : absl::StrFormat("%ds", s);
  };
  const std::string eta =
      progress.eta_seconds < 0 ? "ETA unknown" : "ETA " + duration(progress.eta_seconds);
  const std::string failed =
      progress.failed > 0 ? absl::StrCat(" (", progress.failed, " failed)") : "";
  if (!terminal) {
    return absl::StrCat("icount: ", progress.done, "/", progress.total, " done", failed, ", ",
                        progress.phase, ", ", duration(progress.elapsed_seconds), " elapsed, ",
                        eta);
  }
  constexpr int kWidth = 30;
  const int filled = progress.total > 0 ? kWidth * progress.done / progress.total : kWidth;
  return absl::StrCat("[", std::string(filled, '#'), std::string(kWidth - filled, '.'), "] ",
                      progress.done, "/", progress.total, failed, " ", progress.phase, ", ", eta);
}

std::optional<std::string> ProgressLog::Line(const RunnerProgress& progress) {
  if (progress.done == last_done_ &&
      progress.elapsed_seconds - last_line_seconds_ < heartbeat_seconds_) {
    return std::nullopt;
  }
  last_done_ = progress.done;
  last_line_seconds_ = progress.elapsed_seconds;
  return FormatProgress(progress, /*terminal=*/false);
}

}  // namespace icount::worker
