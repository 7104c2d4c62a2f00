#ifndef ICOUNT_TOOLS_HTML_REPORT_FILE_H_
#define ICOUNT_TOOLS_HTML_REPORT_FILE_H_

// Writing a report page from a tool: the path checked before any work, then
// the page written and announced. //tools:report uses it directly; main, ci
// and ab_test through --html (html_report.h).
//
//   ICOUNT_RETURN_IF_ERROR(CheckReportDestination("output", path));
//   ... read the results ...
//   ICOUNT_RETURN_IF_ERROR(WriteHtmlReport(path, input));

#include <string>

#include "absl/status/status.h"
#include "report/report_data.h"

namespace icount::tools {

// Before any work: --`flag`=`path` can be written (base::CheckOutputPath)
// and holds nothing but a report page, which it replaces.
absl::Status CheckReportDestination(const std::string& flag, const std::string& path);

// Writes the page for `input` to `path` and says so on stderr.
absl::Status WriteHtmlReport(const std::string& path, const report::ReportInput& input);

}  // namespace icount::tools

#endif  // ICOUNT_TOOLS_HTML_REPORT_FILE_H_
