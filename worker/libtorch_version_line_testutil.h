#ifndef ICOUNT_WORKER_LIBTORCH_VERSION_LINE_TESTUTIL_H_
#define ICOUNT_WORKER_LIBTORCH_VERSION_LINE_TESTUTIL_H_

// Stand-ins for a worker that front ends ask for its LibTorch
// (AskWorkerForLibTorch): shell lines that answer --libtorch_report_fd=N
// with a given report, for a test's made-up worker scripts.
//
//   const std::string answer = AnswerOnReportFd(
//       "B", SerializeLibTorchReport({"2.1.0+cpu", "torch.__version__", ""}));
//   // a script: "echo setting up\n" + answer + "\n"

#include <string>

namespace icount::worker {

// Keeps `report` in TEST_TMPDIR/NAME.report and returns a shell line that
// writes it to the descriptor its first argument (--libtorch_report_fd=N)
// names.
std::string AnswerOnReportFd(const std::string& name, const std::string& report);

}  // namespace icount::worker

#endif  // ICOUNT_WORKER_LIBTORCH_VERSION_LINE_TESTUTIL_H_
