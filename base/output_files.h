#ifndef ICOUNT_BASE_OUTPUT_FILES_H_
#define ICOUNT_BASE_OUTPUT_FILES_H_

// What a tool may write over, checked before any work: a run never ends by
// replacing a file that is not one of its own outputs, or by writing two
// of its outputs to one file.
//
//   ICOUNT_RETURN_IF_ERROR(base::CheckOutputPath("html", html));  // files.h
//   ICOUNT_RETURN_IF_ERROR(base::CheckReplaceable(html, "report pages", IsReportPage),
//                          base::WithContext(_, "--html"));
//   ICOUNT_RETURN_IF_ERROR(base::CheckDistinctOutputs({{"json", json}, {"html", html}}));

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace icount::base {

// OK when nothing is at `path`, or when `is_ours` accepts the text of the
// regular file there (one of the tool's own outputs, which it replaces);
// otherwise (a device or pipe included)
// FailedPrecondition naming the file, why (is_ours's error), and what to do:
//   "/tmp/notes.txt exists and is not an icount report page; icount
//    replaces only its own report pages: choose another file or move it
//    away"
// `what` names the tool's outputs ("report pages", "results").
absl::Status CheckReplaceable(const std::string& path, absl::string_view what,
                              const std::function<absl::Status(absl::string_view text)>& is_ours);

// InvalidArgument when two of the (flag, path) pairs name one file (after
// symbolic links, "." and ".."; paths that do not exist yet included);
// empty paths are flags not given.
//   "--json and --html both name /tmp/ab.json: give each its own file"
absl::Status CheckDistinctOutputs(const std::vector<std::pair<std::string, std::string>>& outputs);

}  // namespace icount::base

#endif  // ICOUNT_BASE_OUTPUT_FILES_H_
