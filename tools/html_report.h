#ifndef ICOUNT_TOOLS_HTML_REPORT_H_
#define ICOUNT_TOOLS_HTML_REPORT_H_

// --html=FILE, shared by main, ci and ab_test: the run's report page
// (//report), written after the results. The path is checked before the
// run, so a typo fails in a second rather than after the run.
//
//   ICOUNT_RETURN_IF_ERROR(CheckHtmlFlag({{"output", output}}));
//   ... run ...
//   ReportInput input;  input.current = results.file;  ...
//   if (absl::Status s = WriteHtmlFlag(input); !s.ok()) return base::Fail(s);

#include <string>
#include <utility>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/status.h"
#include "report/report_data.h"
#include "tools/html_report_file.h"

ABSL_DECLARE_FLAG(std::string, html);

namespace icount::tools {

// The run's outputs, before the run: no two of `other_outputs` (flag, path)
// and --html name one file (after links and ".."), and --html may be
// written (CheckReportDestination). Each tool passes every output it writes.
absl::Status CheckHtmlFlag(const std::vector<std::pair<std::string, std::string>>& other_outputs);

// WriteHtmlReport to --html; nothing without it.
absl::Status WriteHtmlFlag(report::ReportInput input);

}  // namespace icount::tools

#endif  // ICOUNT_TOOLS_HTML_REPORT_H_
