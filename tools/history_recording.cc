#include "tools/history_recording.h"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/files.h"
#include "base/flags.h"
#include "base/subprocess.h"
#include "cli/tool_flags.h"

ABSL_FLAG(std::string, history, "",
          "Also records the run in this history store (SQLite, created when missing; see "
          "//tools:history).");
ABSL_FLAG(std::string, history_label, "",
          "The run's label in --history, e.g. the LibTorch commit; default: the run's start "
          "time.");

ICOUNT_FLAG_SECTION("Recording into a history store");

namespace icount::tools {

absl::StatusOr<std::optional<history::Store>> OpenHistoryFlags() {
  const std::string path = absl::GetFlag(FLAGS_history);
  if (path.empty() && !absl::GetFlag(FLAGS_history_label).empty()) {
    return absl::InvalidArgumentError(
        "--history_label names the run in a --history store: give --history=DB too, or drop it");
  }
  if (path.empty()) return std::optional<history::Store>();
  absl::StatusOr<history::Store> store = history::Store::OpenForWriting(path);
  if (!store.ok()) {
    return absl::Status(store.status().code(),
                        absl::StrCat("--history: ", store.status().message()));
  }
  return std::optional<history::Store>(*std::move(store));
}

absl::StatusOr<worker::LibTorchVersionReport> AskWorkerForLibTorch(const std::string& worker_path) {
  absl::StatusOr<worker::WorkerLibTorchAnswer> answer = worker::AskWorkerForLibTorch({worker_path});
  if (!answer.ok()) return answer.status();
  if (answer->result.exit_code != 0 || !answer->report.has_value()) {
    return absl::FailedPreconditionError(
        absl::StrCat(worker_path, " could not report its LibTorch (",
                     base::DescribeExit(answer->result), "):\n", answer->result.output));
  }
  return *answer->report;
}

absl::StatusOr<SuiteHistory> SuiteHistoryFor(std::optional<history::Store> store,
                                             const std::string& worker_path) {
  SuiteHistory history;
  history.store = std::move(store);
  if (history.store.has_value()) {
    absl::StatusOr<worker::LibTorchVersionReport> libtorch = AskWorkerForLibTorch(worker_path);
    if (!libtorch.ok()) return libtorch.status();
    history.libtorch = *std::move(libtorch);
  }
  return history;
}

absl::Status RecordHistory(history::Store& store, const timer::ResultsFile& results,
                           const std::string& source, const std::string& side,
                           const worker::LibTorchVersionReport* libtorch,
                           const std::string& results_path) {
  history::RunInfo info;
  const std::string label = absl::GetFlag(FLAGS_history_label);
  info.label =
      absl::StrCat(label.empty() ? results.start_time : label, side.empty() ? "" : " ", side);
  info.side = side;
  info.source = source;
  info.command = cli::ToolCommandLine();
  info.kernel = history::CurrentKernel();
  if (libtorch != nullptr) {
    info.libtorch_version = libtorch->version;
    info.libtorch_build = libtorch->build;
  }
  absl::StatusOr<int64_t> run = store.AddRun(results, info);
  if (!run.ok()) {
    // How to record the file later: an A/B file is imported whole, each
    // side labelled with the side after it, and a side already recorded
    // is refused while the other is recorded.
    std::string later;
    if (!results_path.empty()) {
      later = absl::StrCat(" (the results are in ", results_path, "; `history --db=",
                           store.path(), " import ", results_path,
                           label.empty() && !side.empty()
                               ? ""
                               : absl::StrCat(" --label=\"", label.empty() ? info.label : label,
                                              "\""),
                           "` records them later",
                           side.empty() ? "" : ", each side as its own run", ")");
    }
    return absl::Status(run.status().code(), absl::StrCat("--history: ", store.path(), ": ",
                                                          run.status().message(), later));
  }
  std::fprintf(stderr, "%s: recorded as run %lld \"%s\" in %s\n", source.c_str(),
               static_cast<long long>(*run), info.label.c_str(), store.path().c_str());
  return absl::OkStatus();
}

}  // namespace icount::tools
