#include "worker/libtorch_version_line.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "worker/worker.pb.h"

namespace icount::worker {
namespace {

// The descriptor the worker writes its report to.
constexpr int kReportFd = 3;

}  // namespace

std::string LibTorchVersionLine(const LibTorchVersionReport& report) {
  return absl::StrCat("icount-libtorch-version: ", report.version, " from ", report.source,
                      report.build.empty() ? "" : "\nicount-libtorch-build: ", report.build);
}

std::string SerializeLibTorchReport(const LibTorchVersionReport& report) {
  LibTorchReportProto proto;
  proto.set_version(report.version);
  proto.set_source(report.source);
  proto.set_build(report.build);
  return proto.SerializeAsString();
}

absl::StatusOr<WorkerLibTorchAnswer> AskWorkerForLibTorch(std::vector<std::string> argv) {
  // A file rather than a pipe: the worker writes it whole before it
  // exits, and it outlives any wait for the command.
  std::FILE* file = std::tmpfile();
  if (file == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot create a file for the worker's report: ", std::strerror(errno)));
  }
  const int fd = fileno(file);
  argv.push_back(absl::StrCat("--libtorch_report_fd=", kReportFd));
  base::CommandOptions options;
  options.fds = {{fd, kReportFd}};
  absl::StatusOr<base::CommandResult> result = base::RunCommand(argv, options);
  if (!result.ok()) {
    std::fclose(file);
    return result.status();
  }
  WorkerLibTorchAnswer answer;
  answer.result = *std::move(result);
  std::string bytes;
  char buffer[4096];
  lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = read(fd, buffer, sizeof(buffer))) > 0;) bytes.append(buffer, n);
  std::fclose(file);
  LibTorchReportProto proto;
  if (!bytes.empty() && proto.ParseFromString(bytes) && !proto.version().empty()) {
    answer.report = LibTorchVersionReport{proto.version(), proto.source(), proto.build()};
  }
  return answer;
}

}  // namespace icount::worker
