#ifndef ICOUNT_TOOLS_HISTORY_RECORDING_H_
#define ICOUNT_TOOLS_HISTORY_RECORDING_H_

// --history=DB and --history_label=L, shared by main, ci and ab_test: the
// store is opened (and created) before the run, so a path that cannot be
// written fails in a second, not after the run; each results file the run
// writes is then recorded as one run (each side of an A/B its own).
//
//   absl::StatusOr<std::optional<history::Store>> store = OpenHistoryFlags();
//   if (!store.ok()) return base::Fail(store.status());
//   ... run, write the results file ...
//   if (*store) RecordHistory(**store, results.file, "main", "", &libtorch);

#include <optional>
#include <string>

#include "absl/flags/declare.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "history/store.h"
#include "timer/measurement_io.h"
#include "worker/libtorch_version_line.h"

ABSL_DECLARE_FLAG(std::string, history);
ABSL_DECLARE_FLAG(std::string, history_label);

namespace icount::tools {

// The store --history names, opened (and created) ready to record; nullopt
// without --history. Called with the other flag checks, before anything is
// built or run, and kept for the run. --history_label without --history is
// an error.
absl::StatusOr<std::optional<history::Store>> OpenHistoryFlags();

// What the worker at `worker_path` reports of its LibTorch (version and
// build settings), to record with the run; an error when it cannot say.
absl::StatusOr<worker::LibTorchVersionReport> AskWorkerForLibTorch(const std::string& worker_path);

// For a run of one suite (main, ci): the store --history names, and the
// LibTorch its worker reports, both found before the run.
struct SuiteHistory {
  std::optional<history::Store> store;  // nullopt without --history
  worker::LibTorchVersionReport libtorch;  // with --history
};
// `store` (from OpenHistoryFlags) with the LibTorch of the worker at
// `worker_path`, asked only when there is a store to record in.
absl::StatusOr<SuiteHistory> SuiteHistoryFor(std::optional<history::Store> store,
                                             const std::string& worker_path);

// Records `results` as one run labelled --history_label (default: the
// run's start time) followed by " " and `side` when given ("A" of an A/B), with this process's
// command line and kernel. On error the message says how to import the
// results file later, when `results_path` names one.
absl::Status RecordHistory(history::Store& store, const timer::ResultsFile& results,
                           const std::string& source, const std::string& side,
                           const worker::LibTorchVersionReport* libtorch,
                           const std::string& results_path = "");

}  // namespace icount::tools

#endif  // ICOUNT_TOOLS_HISTORY_RECORDING_H_
