#ifndef ICOUNT_HISTORY_IMPORT_H_
#define ICOUNT_HISTORY_IMPORT_H_

// Results files written before, read as runs to record: a results file of
// main, ci, merge_results or Timer is one run; an ab_test --json file is two,
// one per side (labels get " A" and " B"); an ab_test --sides --json file
// one per side (labels get " " and the side's name).
//
//   ICOUNT_ASSIGN_OR_RETURN(std::vector<ImportedRun> runs, ReadRunsToImport("ab.json"));
//   for (ImportedRun& run : runs) store.AddRun(run.results, run.info);

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "history/store.h"
#include "timer/measurement_io.h"

namespace icount::history {

struct ImportedRun {
  timer::ResultsFile results;
  // source "import", command the file's path, label_suffix "", " A"/" B"
  // or " <side>",
  // LibTorch's version when the file records it.
  RunInfo info;
  std::string label_suffix;
};

// InvalidArgument naming the file when it is neither kind (with the
// results-file parser's reason); FailedPrecondition for a newer schema.
absl::StatusOr<std::vector<ImportedRun>> ReadRunsToImport(const std::string& path);

}  // namespace icount::history

#endif  // ICOUNT_HISTORY_IMPORT_H_
