#ifndef ICOUNT_TOOLS_HTML_REPORT_H_
#define ICOUNT_TOOLS_HTML_REPORT_H_

// --html=FILE, shared by main, ci and ab_test: the run's report page
// (//report), written after the results. The path is checked before the
// run, so a typo fails in a second rather than after the run.
//
//   ICOUNT_RETURN_IF_ERROR(CheckHtmlFlag());
//   ... run ...
//   ReportInput input;  input.current = results.file;  ...
//   if (absl::Status s = WriteHtmlFlag(input); !s.ok()) return Fail(s);

#include <string>

#include "absl/flags/declare.h"
#include "absl/status/status.h"
#include "report/report_data.h"

ABSL_DECLARE_FLAG(std::string, html);

namespace icount {

// An error when --html names a directory, a file in a directory that does
// not exist, or one that cannot be written.
absl::Status CheckHtmlFlag();
absl::Status CheckHtmlPath(const std::string& flag, const std::string& path);

// Writes the page for `input` to `path` and says so on stderr.
absl::Status WriteHtmlReport(const std::string& path, const ReportInput& input);

// WriteHtmlReport to --html; nothing without it.
absl::Status WriteHtmlFlag(ReportInput input);

}  // namespace icount

#endif  // ICOUNT_TOOLS_HTML_REPORT_H_
