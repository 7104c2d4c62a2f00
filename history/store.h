#ifndef ICOUNT_HISTORY_STORE_H_
#define ICOUNT_HISTORY_STORE_H_

// The history of runs: every results file a run writes (or an import brings
// in) kept in one SQLite file, so a case's counts and wall time can be read
// as a series over runs.
//
//   ICOUNT_ASSIGN_OR_RETURN(Store store, Store::OpenForWriting("history.db"));
//   RunInfo info;
//   info.label = "libtorch 1.13.1 nightly 2026-11-20";
//   ICOUNT_ASSIGN_OR_RETURN(int64_t run, store.AddRun(results, info));
//   ICOUNT_ASSIGN_OR_RETURN(std::vector<CaseSeries> series,
//                           store.Series(Metric::kCounts, "add"));
//
// What is kept per run: its label, source and command, the machine (CPU
// model, cores, kernel), valgrind's version and options, LibTorch's version
// and build settings and the toolchain when known, icount's library
// versions; per case the count of every repeat, the per-run count, the
// heap allocations per run (when the results have them), every wall-time
// sample and the kTopFunctions most expensive functions (exclusive counts). The file is in
// WAL mode and every run is one transaction, so two runs recording at once
// both land (the second waits for the first's lock). A file that is not a
// store, is damaged, or has a newer schema than this build reads is an
// error and is never written to.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "history/internal/sqlite.h"
#include "timer/function_counts.h"
#include "timer/function_key.h"
#include "timer/measurement_io.h"

namespace icount::history {

// The store's schema this build writes and the newest it reads.
// Version 2 adds counts.allocations, version 3 typed function keys
// (function_names.key), version 4 each run's toolchain (runs.toolchain); an
// older store is upgraded when opened for writing (its runs have no
// allocations or toolchain, its functions keys as text alone) and read as
// it is.
inline constexpr int kHistorySchemaVersion = 4;
// Functions kept per case and run (the most expensive, exclusive counts).
inline constexpr int kTopFunctions = 40;

// Who recorded a run, for the runs table (the rest comes from the results).
struct RunInfo {
  std::string label;             // the user's name for it: a LibTorch commit or build
  std::string source;            // "main", "ci", "ab_test A", "import"
  std::string command;           // the command line, or the imported file
  std::string kernel;            // `uname -r` of the machine; "" when unknown
  std::string libtorch_version;  // "" when unknown
  std::string libtorch_build;    // LibTorch's build settings; "" when unknown
  // Which side of an A/B ("A", "B"), "" otherwise: two identical sides have
  // identical results and are still two runs.
  std::string side;
};

// The kernel release this process runs on (uname -r).
std::string CurrentKernel();

struct RunRow {
  int64_t id = 0;
  std::string label;
  std::string source;
  std::string recorded_at;  // RFC 3339
  std::string start_time;
  std::string end_time;
  std::string host;
  std::string cpu_model;
  int64_t cores = 0;
  std::string kernel;
  std::string valgrind;
  std::string libtorch_version;
  std::string libtorch_build;
  std::string toolchain;  // "Python 3.11.2, g++ 12.2.0, c++17"; "" when unknown
  std::string versions;   // "compare 0.2.0, expand 0.3.0, ..."
  std::string command;
  int64_t counted_cases = 0;
  int64_t timed_cases = 0;
};

enum class Metric {
  kCounts,       // instructions per run (baseline subtracted)
  kTime,         // seconds per run: the median of all the case's samples
  kAllocations,  // heap allocations per run (baseline subtracted)
};
const char* MetricName(Metric metric);  // "counts", "time", "allocations"

struct SeriesPoint {
  int64_t run_id = 0;
  std::string run_label;
  double value = 0;
  // The spread behind the value: for time the 25th and 75th percentiles of
  // the samples, for counts the value itself.
  double low = 0;
  double high = 0;
};

// One case's values over runs, oldest first (runs ordered by start time,
// then by when they were recorded).
struct CaseSeries {
  std::string key;    // the case key
  std::string label;  // "Pointwise / Math / add [C++ Eager, 1T]"
  std::vector<SeriesPoint> points;
};

class Store {
 public:
  // Creates the file when missing. Fails before anything is written when
  // the path cannot be written (a read-only file or directory), the file is
  // not an icount history store or is damaged, or its schema is newer.
  static absl::StatusOr<Store> OpenForWriting(const std::string& path);
  // The file must exist and be a store this build reads; never writes.
  static absl::StatusOr<Store> OpenForReading(const std::string& path);

  Store(Store&&) noexcept = default;
  Store& operator=(Store&&) noexcept = default;

  // Records one results file as one run and returns its id. AlreadyExists,
  // naming the run, when the same run (same times, machine and results) is
  // already in the store; InvalidArgument when `results` has no counts and
  // no times. Nothing is written on error.
  absl::StatusOr<int64_t> AddRun(const timer::ResultsFile& results, const RunInfo& info);

  // Every run, oldest first.
  absl::StatusOr<std::vector<RunRow>> Runs();
  // The series of every case whose key or label `case_regex` (RE2, searched)
  // matches and that has at least one value of `metric`; runs before the
  // first run labelled `since_label` are left out (NotFound when no run
  // has that label).
  absl::StatusOr<std::vector<CaseSeries>> Series(Metric metric, const std::string& case_regex,
                                                 const std::string& since_label = "");
  // The kept functions of a case in a run (exclusive counts of the whole
  // measured region, as the results file had them); empty when none.
  absl::StatusOr<timer::FunctionCounts> TopFunctions(int64_t run_id, const std::string& case_key);
  // Number per run of a case's counts in a run (to show functions per run).
  absl::StatusOr<int64_t> CountsNumberPerRun(int64_t run_id, const std::string& case_key);

  const std::string& path() const { return db_.path(); }

 private:
  explicit Store(internal::Database db) : db_(std::move(db)) {}
  static absl::StatusOr<Store> Open(const std::string& path, bool write);
  absl::Status CheckSchema(bool write);
  absl::StatusOr<int64_t> CaseId(const std::string& key, const std::string& label);
  absl::StatusOr<int64_t> FunctionId(const timer::FunctionKey& function);
  // AddRun's parts, inside its transaction: the run's row (its id), then
  // its cases' counts with their top functions, then its wall times and
  // their levels.
  absl::StatusOr<int64_t> InsertRun(const timer::ResultsFile& results, const RunInfo& info,
                                    const std::string& fingerprint);
  absl::Status InsertCounts(int64_t run_id, const timer::ResultsFile& results);
  absl::Status InsertTimes(int64_t run_id, const timer::ResultsFile& results);

  internal::Database db_;
  // The file's schema version, read once when it is opened (this build's
  // once CheckSchema upgraded it): what its tables have.
  int64_t schema_ = 0;
};

// Wall-time samples as the store keeps them: whole nanoseconds (the unit
// of the clocks that measured them), delta- and varint-coded, about a third
// of the size of doubles. Decoding gives seconds again.
std::string EncodeNanoseconds(const std::vector<double>& seconds);
std::vector<double> DecodeNanoseconds(const std::string& bytes);

// The identity of a run's results (times, machine, every count and
// sample): a second import of the same file, or of a file a --history run
// already recorded, is refused by it.
std::string RunFingerprint(const timer::ResultsFile& results, const std::string& side = "");

}  // namespace icount::history

#endif  // ICOUNT_HISTORY_STORE_H_
