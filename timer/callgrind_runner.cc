// callgrind_runner: measures one C++ or Python statement string under
// valgrind's callgrind for Timer::CollectCallgrind, which starts it as
//
//   valgrind --tool=callgrind ... callgrind_runner DIRECTORY
//
// with DIRECTORY/request.pb (CallgrindRequestProto). It writes
// DIRECTORY/result.pb (CallgrindChildResultProto): the dump files, or the
// statement's error. Not meant to be run by hand.
#include <cstdio>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "timer/callgrind.pb.h"
#include "timer/callgrind_stats.h"
#include "timer/internal/callgrind_collect.h"
#include "timer/measurement_io.h"
#include "timer/timer.h"

namespace icount {
namespace {

absl::StatusOr<timer_internal::CallgrindDumps> Measure(
    const timer::CallgrindRequestProto& request) {
  const TaskSpec spec = TaskSpecFromProto(request.task_spec());
  TimerOptions options;
  options.num_threads = spec.num_threads;
  absl::StatusOr<Timer> timer =
      spec.language == Language::kCpp
          ? Timer::ForCpp(spec.stmt, spec.setup, spec.global_setup, options)
          : Timer::ForPython(spec.stmt, spec.setup, options);
  if (!timer.ok()) return timer.status();
  std::shared_ptr<timer_internal::Kernel> baseline;
  if (request.collect_baseline()) {
    absl::StatusOr<std::shared_ptr<timer_internal::Kernel>> made =
        timer_internal::MakeBaselineKernel(spec.language);
    if (!made.ok()) return made.status();
    baseline = *std::move(made);
  }
  return timer_internal::CollectInThisProcess(*timer->kernel(), baseline.get(), request.number(),
                                              request.repeats(), spec.num_threads);
}

int Main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIRECTORY (started by Timer::CollectCallgrind)\n", argv[0]);
    return 2;
  }
  const std::string directory = argv[1];
  absl::StatusOr<std::string> bytes =
      base::ReadFileToString(timer_internal::ChildRequestPath(directory));
  timer::CallgrindRequestProto request;
  if (!bytes.ok() || !request.ParseFromString(*bytes)) {
    std::fprintf(stderr, "callgrind_runner: cannot read %s/request.pb\n", directory.c_str());
    return 2;
  }
  absl::Status written = timer_internal::WriteChildResult(directory, Measure(request));
  if (!written.ok()) {
    std::fprintf(stderr, "callgrind_runner: %s\n", std::string(written.message()).c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace icount

int main(int argc, char** argv) { return icount::Main(argc, argv); }
