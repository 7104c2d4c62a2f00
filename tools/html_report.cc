#include "tools/html_report.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "base/flags.h"
#include "base/output_files.h"
#include "base/status.h"

ABSL_FLAG(std::string, html, "",
          "Also writes a self-contained HTML report of the run here (see //tools:report).");

ICOUNT_FLAG_SECTION("HTML report");

namespace icount::tools {

absl::Status CheckHtmlFlag(
    const std::vector<std::pair<std::string, std::string>>& other_outputs) {
  const std::string html = absl::GetFlag(FLAGS_html);
  std::vector<std::pair<std::string, std::string>> outputs = other_outputs;
  outputs.emplace_back("html", html);
  // Two outputs in one file first: the sharper message when that file exists.
  ICOUNT_RETURN_IF_ERROR(base::CheckDistinctOutputs(outputs));
  return CheckReportDestination("html", html);
}

absl::Status WriteHtmlFlag(report::ReportInput input) {
  const std::string path = absl::GetFlag(FLAGS_html);
  if (path.empty()) return absl::OkStatus();
  return WriteHtmlReport(path, input);
}

}  // namespace icount::tools
