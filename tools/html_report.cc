#include "tools/html_report.h"

#include <string>

#include "absl/flags/flag.h"
#include "base/files.h"
#include "base/flags.h"

ABSL_FLAG(std::string, html, "",
          "Also writes a self-contained HTML report of the run here (see //tools:report).");

ICOUNT_FLAG_SECTION("HTML report");

namespace icount::tools {

absl::Status CheckHtmlFlag() { return base::CheckOutputPath("html", absl::GetFlag(FLAGS_html)); }

absl::Status WriteHtmlFlag(report::ReportInput input) {
  const std::string path = absl::GetFlag(FLAGS_html);
  if (path.empty()) return absl::OkStatus();
  return WriteHtmlReport(path, input);
}

}  // namespace icount::tools
