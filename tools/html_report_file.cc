#include "tools/html_report_file.h"

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/output_files.h"
#include "base/status.h"
#include "report/html_page.h"

namespace icount::tools {

absl::Status CheckReportDestination(const std::string& flag, const std::string& path) {
  ICOUNT_RETURN_IF_ERROR(base::CheckOutputPath(flag, path));
  if (path.empty()) return absl::OkStatus();
  return base::WithContext(base::CheckReplaceable(path, "report pages", report::IsReportPage),
                           "--" + flag);
}

absl::Status WriteHtmlReport(const std::string& path, const report::ReportInput& input) {
  absl::StatusOr<std::string> data = report::ReportDataJson(input);
  if (!data.ok()) return data.status();
  if (absl::Status s = report::WriteReportHtml(path, input.title, *data); !s.ok()) return s;
  std::fprintf(stderr, "icount: HTML report written to %s\n", path.c_str());
  return absl::OkStatus();
}

}  // namespace icount::tools
