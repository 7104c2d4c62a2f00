#include "tools/html_report_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "report/html_page.h"

namespace icount::tools {

absl::Status CheckHtmlPath(const std::string& flag, const std::string& path) {
  if (path.empty()) return absl::OkStatus();
  struct stat info;
  if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, "=", path, ": is a directory; name the HTML file to write"));
  }
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  if (access(dir.c_str(), W_OK) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", path, ": cannot write into ",
                                                   dir, " (", std::strerror(errno),
                                                   "); choose a writable directory"));
  }
  return absl::OkStatus();
}

absl::Status WriteHtmlReport(const std::string& path, const report::ReportInput& input) {
  absl::StatusOr<std::string> data = report::ReportDataJson(input);
  if (!data.ok()) return data.status();
  if (absl::Status s = report::WriteReportHtml(path, input.title, *data); !s.ok()) return s;
  std::fprintf(stderr, "icount: HTML report written to %s\n", path.c_str());
  return absl::OkStatus();
}

}  // namespace icount::tools
