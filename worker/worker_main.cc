// The worker binary: runs framed WorkOrderProto messages from stdin (or
// --orders) and writes framed WorkerResultProto messages to --results_fd.
// Started by the runner (worker/runner.h); see worker.h for the design.
//
// Pinning: --cpus=0,1 restricts the worker (and its cases) to those CPUs.
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "base/flags.h"
#include "base/phase_log.h"
#include "third_party/libtorch/libtorch_install.h"
#include "timer/callgrind_command.h"
#include "timer/version.h"
#include "worker/internal/heap_free_environment.h"
#include "worker/loaded_libtorch.h"
#include "worker/version.h"
#include "worker/worker.h"

ABSL_FLAG(std::string, orders, "", "File of framed work orders; default: stdin.");
ABSL_FLAG(int, results_fd, 1, "File descriptor for framed results.");
ABSL_FLAG(std::string, scratch, "", "Scratch directory for case results (required).");
ABSL_FLAG(std::string, cpus, "", "Comma-separated CPUs to pin to, e.g. 0 or 0,1; empty: any.");
ABSL_FLAG(bool, python, true, "Initialise Python (import torch) once before the first case.");
ABSL_FLAG(bool, canary, false,
          "Before the first order, measure an empty statement (counted under valgrind, timed "
          "natively) and write its result first, id \"icount:canary\".");
ABSL_FLAG(bool, print_libtorch_version, false,
          "Print the LibTorch version this worker runs on (see loaded_libtorch.h) and exit.");
ABSL_FLAG(int, libtorch_report_fd, -1,
          "Write the LibTorch version this worker runs on, as a LibTorchReportProto, to this "
          "file descriptor and exit (what tools ask; see libtorch_version_line.h).");

namespace {

// --libtorch_report_fd: writes the LibTorch report to `fd`; main's exit
// code.
int WriteLibTorchReport(int fd) {
  const std::string report =
      icount::worker::SerializeLibTorchReport(icount::worker::LoadedLibTorchVersion());
  if (write(fd, report.data(), report.size()) != static_cast<ssize_t>(report.size())) {
    std::perror("worker: --libtorch_report_fd");
    return 1;
  }
  return 0;
}

// The worker's options from its flags, but for --orders (OpenOrders).
icount::worker::WorkerOptions OptionsFromFlags() {
  icount::worker::WorkerOptions options;
  options.results_fd = absl::GetFlag(FLAGS_results_fd);
  options.scratch_directory = absl::GetFlag(FLAGS_scratch);
  // A worker built for a LibTorch without a torch Python package never
  // imports one (it would load a second LibTorch): its Python cases fail,
  // each with a message that says why.
  options.python = absl::GetFlag(FLAGS_python) && icount::libtorch_install::kTorchPythonAvailable;
  options.canary = absl::GetFlag(FLAGS_canary);
  return options;
}

// --orders: opens the file as the order stream; false, having said why,
// when it cannot be read.
bool OpenOrders(icount::worker::WorkerOptions& options) {
  if (!absl::GetFlag(FLAGS_orders).empty()) {
    options.orders_fd = open(absl::GetFlag(FLAGS_orders).c_str(), O_RDONLY);
    struct stat info;
    if (options.orders_fd < 0 || fstat(options.orders_fd, &info) != 0 || S_ISDIR(info.st_mode)) {
      std::fprintf(stderr, "worker: cannot read --orders=%s: %s\n",
                   absl::GetFlag(FLAGS_orders).c_str(),
                   options.orders_fd < 0 ? std::strerror(errno) : "it is a directory");
      return false;
    }
  }
  return true;
}

// --cpus: pins the worker (and so its cases) to those CPUs; false, having
// said why, when it cannot.
bool PinToCpus() {
  if (!absl::GetFlag(FLAGS_cpus).empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (absl::string_view cpu : absl::StrSplit(absl::GetFlag(FLAGS_cpus), ',')) {
      int index = 0;
      if (!absl::SimpleAtoi(cpu, &index) || index < 0 || index >= CPU_SETSIZE) {
        std::fprintf(stderr, "worker: bad --cpus=%s\n", absl::GetFlag(FLAGS_cpus).c_str());
        return false;
      }
      CPU_SET(index, &set);
    }
    if (sched_setaffinity(0, sizeof(set), &set) != 0) {
      std::fprintf(stderr, "worker: cannot pin to CPUs %s\n", absl::GetFlag(FLAGS_cpus).c_str());
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  // The padding has done its work once the stack is laid out
  // (PadEnvironmentForStackLayout); left in the environment, Python would
  // copy it to the heap, whose layout would then follow its length: sides
  // whose commands export values 40 bytes apart get pads 40 bytes apart,
  // and add's C++ case counted 12 instructions a run (0.3%) apart. Removing
  // it moves no string and allocates nothing.
  unsetenv(icount::timer::kStackPadEnv);
  // Measured code may read the environment (PyTorch 2.14's TorchScript
  // calls getenv on every run, which walks all of it): the phase log's file
  // (base/phase_log.h) is read once, here, and its variable goes, and every
  // other string moves to a page of its own, so that neither the log nor
  // the other variables' lengths move counts (heap_free_environment.h).
  icount::base::PhaseLogEnabled();
  unsetenv("ICOUNT_PHASE_LOG");
  icount::worker::internal::PutEachVariableOnAPageOfItsOwn();
  // The worker is built from //timer and //worker alone.
  icount::base::ParseFlags(
      argc, argv,
      "icount worker: runs work orders (see worker/worker.h).\n\n"
      "Usage: worker --scratch=DIR [--orders=FILE] [--results_fd=N]\n"
      "       worker --print_libtorch_version | --libtorch_report_fd=N",
      {{"timer", icount::timer::kTimerVersion}, {"worker", icount::worker::kWorkerVersion}});
  if (const int fd = absl::GetFlag(FLAGS_libtorch_report_fd); fd >= 0) {
    return WriteLibTorchReport(fd);
  }
  if (absl::GetFlag(FLAGS_print_libtorch_version)) {
    std::printf(
        "%s\n",
        icount::worker::LibTorchVersionLine(icount::worker::LoadedLibTorchVersion()).c_str());
    return 0;
  }
  icount::worker::WorkerOptions options = OptionsFromFlags();
  if (!OpenOrders(options) || !PinToCpus()) return 1;
  absl::Status status = icount::worker::RunWorker(options);
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
    return 1;
  }
  return 0;
}
