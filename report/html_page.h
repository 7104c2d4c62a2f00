#ifndef ICOUNT_REPORT_HTML_PAGE_H_
#define ICOUNT_REPORT_HTML_PAGE_H_

// One self-contained HTML page: the report's data (ReportDataJson), its
// script and styles and Chart.js, all inlined, so the file works offline
// and nothing is fetched when it is opened.
//
//   absl::StatusOr<std::string> data = ReportDataJson(input);
//   std::string html = ReportHtml(input.title, *data);
//   base::WriteFileAtomically("report.html", html);

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace icount::report {

std::string ReportHtml(const std::string& title, const std::string& data_json);

// OK when `text` is a page ReportHtml made (the tools replace only those);
// FailedPrecondition "is not an icount report page" otherwise.
absl::Status IsReportPage(absl::string_view text);

// ReportHtml written atomically to `path`; the error names the path.
absl::Status WriteReportHtml(const std::string& path, const std::string& title,
                             const std::string& data_json);

}  // namespace icount::report

#endif  // ICOUNT_REPORT_HTML_PAGE_H_
