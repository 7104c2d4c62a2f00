#include "report/html_page.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "base/files.h"
#include "base/status.h"
#include "report/internal/assets.h"

namespace icount::report {
namespace {

// The element that holds a page's data: every page ReportHtml makes has it.
constexpr absl::string_view kDataElement =
    "<script id=\"icount-data\" type=\"application/json\">";

std::string HtmlText(const std::string& text) {
  return absl::StrReplaceAll(text,
                             {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}});
}

}  // namespace

std::string ReportHtml(const std::string& title, const std::string& data_json) {
  // "</" inside a <script> element would end it; "<\/" means the same in
  // JSON strings, and JSON has "<" nowhere else.
  const std::string data = absl::StrReplaceAll(data_json, {{"</", "<\\/"}});
  return absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>",
      HtmlText(title), "</title>\n<style>\n", report::internal::kReportCss,
      "</style>\n</head>\n<body>\n<div id=\"app\"><p>Loading the report...</p></div>\n",
      kDataElement, data, "</script>\n<script>\n", report::internal::kChartJs,
      "\n</script>\n<script>\n",
      report::internal::kPageKitJs, "\n</script>\n<script>\n", report::internal::kFlamegraphJs,
      "\n</script>\n<script>\n", report::internal::kReportJs,
      "\n</script>\n</body>\n</html>\n");
}

absl::Status IsReportPage(absl::string_view text) {
  if (absl::StartsWith(text, "<!DOCTYPE html>") && absl::StrContains(text, kDataElement)) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError("is not an icount report page");
}

absl::Status WriteReportHtml(const std::string& path, const std::string& title,
                             const std::string& data_json) {
  return base::WithContext(base::WriteFileAtomically(path, ReportHtml(title, data_json)),
                           "cannot write the report");
}

}  // namespace icount::report
