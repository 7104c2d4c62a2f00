#include "report/html_page.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "base/files.h"
#include "base/status.h"
#include "report/internal/assets.h"

namespace icount::report {
namespace {

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
      "</style>\n</head>\n<body>\n<div id=\"app\"><p>Loading the report...</p></div>\n"
      "<script id=\"icount-data\" type=\"application/json\">",
      data, "</script>\n<script>\n", report::internal::kChartJs, "\n</script>\n<script>\n",
      report::internal::kPageKitJs, "\n</script>\n<script>\n", report::internal::kFlamegraphJs,
      "\n</script>\n<script>\n", report::internal::kReportJs,
      "\n</script>\n</body>\n</html>\n");
}

absl::Status WriteReportHtml(const std::string& path, const std::string& title,
                             const std::string& data_json) {
  return base::WithContext(base::WriteFileAtomically(path, ReportHtml(title, data_json)),
                           "cannot write the report");
}

}  // namespace icount::report
