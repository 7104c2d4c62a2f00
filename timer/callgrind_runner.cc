// callgrind_runner: measures one C++ or Python statement string under
// valgrind's callgrind for Timer::CollectCallgrind, which starts it as
//
//   valgrind --tool=callgrind ... callgrind_runner DIRECTORY
//
// with DIRECTORY/request.pb (CallgrindRequestProto). It writes
// DIRECTORY/result.pb (CallgrindChildResultProto): the dump files, or the
// statement's error. Not meant to be run by hand.
#include <unistd.h>
#include <valgrind/callgrind.h>

#include <cstdio>
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

namespace icount::timer {
namespace {

absl::StatusOr<CallgrindDumpFiles> Measure(const timer::CallgrindRequestProto& request,
                                           const std::string& directory) {
  const TaskSpec spec = TaskSpecFromProto(request.task_spec());
  TimerOptions options;
  options.num_threads = spec.num_threads;
  absl::StatusOr<Timer> timer =
      spec.language == Language::kCpp
          ? Timer::ForCpp(spec.stmt, spec.setup, spec.global_setup, options)
          : Timer::ForPython(spec.stmt, spec.setup, options);
  if (!timer.ok()) return timer.status();
  CallgrindOptions collect;
  collect.number = request.number();
  collect.repeats = request.repeats();
  collect.collect_baseline = request.collect_baseline();
  collect.warm_up_after_fork = request.warm_up_after_fork();
  if (!collect.collect_baseline) {
    // Without a baseline, which needs a clean caller, this throwaway
    // process measures in itself and ends as soon as the repeats are done
    // (the worker's case processes do the same).
    collect.measure_in_this_process = true;
    collect.on_measured = [&](const absl::StatusOr<CallgrindDumpFiles>& dumps) {
      // Writing the result runs more cheaply uninstrumented.
      CALLGRIND_STOP_INSTRUMENTATION;
      const absl::Status written = timer::internal::WriteChildResult(directory, dumps);
      std::fflush(nullptr);
      _exit(written.ok() ? 0 : 1);
    };
  }
  return timer->CollectCallgrindDumps(collect);
}

int Main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIRECTORY (started by Timer::CollectCallgrind)\n", argv[0]);
    return 2;
  }
  const std::string directory = argv[1];
  absl::StatusOr<std::string> bytes =
      base::ReadFileToString(timer::internal::ChildRequestPath(directory));
  timer::CallgrindRequestProto request;
  if (!bytes.ok() || !request.ParseFromString(*bytes)) {
    std::fprintf(stderr, "callgrind_runner: cannot read %s/request.pb\n", directory.c_str());
    return 2;
  }
  absl::Status written = timer::internal::WriteChildResult(directory, Measure(request, directory));
  if (!written.ok()) {
    std::fprintf(stderr, "callgrind_runner: %s\n", std::string(written.message()).c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace icount::timer

int main(int argc, char** argv) { return icount::timer::Main(argc, argv); }
