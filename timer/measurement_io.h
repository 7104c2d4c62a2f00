#ifndef ICOUNT_TIMER_MEASUREMENT_IO_H_
#define ICOUNT_TIMER_MEASUREMENT_IO_H_

#include <map>
#include <optional>
#include <string>
#include <vector>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/files.h"
#include "timer/call_tree.h"
#include "timer/function_counts.h"
#include "timer/measurement.h"
#include "timer/measurement.pb.h"

namespace icount::timer {

// The results-file schema this build writes and the newest it reads.
inline constexpr int kResultsSchemaVersion = 1;

// Measurement <-> its protobuf message (see measurement.proto).
timer::MeasurementProto MeasurementToProto(const Measurement& measurement);
absl::StatusOr<Measurement> MeasurementFromProto(const timer::MeasurementProto& proto);

// Instruction counts of one case as results files carry them (see
// InstructionCountsProto; CallgrindStats has the whole profile).
struct InstructionCounts {
  TaskSpec task_spec;
  int64_t number_per_run = 0;
  std::vector<int64_t> counts;  // total per repeat
  int64_t baseline = 0;
  double counts_per_run = 0;
  FunctionCounts exclusive;           // first repeat
  std::optional<CallTree> call_tree;  // first repeat; absent in older files
  // Heap allocations and frees per run, baseline subtracted (HeapCalls,
  // timer/callgrind_stats.h); absent in older files.
  std::optional<double> allocations_per_run;
  std::optional<double> frees_per_run;
  // Cycles per run from the cache model (timer/cache_model.h), baseline
  // subtracted; only when callgrind simulated caches.
  std::optional<double> estimated_cycles_per_run;
  std::map<std::string, std::string> metadata;
};

// Metadata the front ends give a suite case's measurements and counts: its
// case key, and its runtime and autograd mode as //expand names them
// ("Eager", "TorchScript", "Explicit"; "Forward", "Forward + Backward",
// "Explicit"), so that readers need not take them from the tables' labels.
inline constexpr char kCaseMetadataKey[] = "case";
inline constexpr char kRuntimeMetadataKey[] = "runtime";
inline constexpr char kAutogradMetadataKey[] = "autograd";

// The key a case is filed under in results files: its metadata "case"
// (the front ends set the suite's case key there), else one made of the
// task spec's labels and thread count.
std::string ResultCaseKey(const std::map<std::string, std::string>& metadata, const TaskSpec& spec);
// A case's name for people: "Pointwise / add [C++ Eager, 1T]"; without a
// label or description, "torch.add(x, x) [1T]".
std::string ResultCaseTitle(const TaskSpec& spec);

timer::InstructionCountsProto InstructionCountsToProto(const InstructionCounts& counts);
absl::StatusOr<InstructionCounts> InstructionCountsFromProto(
    const timer::InstructionCountsProto& proto);

// A results file: measurements and instruction counts, plus who wrote it
// and when.
struct ResultsFile {
  std::vector<Measurement> measurements;
  std::vector<InstructionCounts> instruction_counts;
  std::map<std::string, std::string> versions;  // filled with ours on write if empty
  std::string start_time;
  std::string end_time;
  // The machine the tool ran on, for people ("host, 2 CPUs, AMD EPYC
  // (family 25, model 17, stepping 1)") and typed (host, cpus, cpu_model,
  // cpuid; empty in a merge of several machines' files).
  std::string machine;
  timer::NodeProto machine_node;
  std::string suite_checksum;
  // ResultsFileProto's settings: valgrind's version and options, ...
  std::map<std::string, std::string> settings;
  // Cases that failed: case key -> "kind: reason", then where the case is
  // defined and its statement on an indented line.
  std::map<std::string, std::string> failures;
  std::string command;  // the command line that made the results
  // The nodes that measured the cases, by id (timer/node.h); each case's
  // metadata "node" names one. Empty in files older than timer 0.6.
  std::map<std::string, timer::NodeProto> nodes;
  // Which shard of a run this is; none for a whole run.
  std::optional<timer::ShardProto> shard;
};

// Parses the JSON form. `source` names the input in errors, e.g.
//   results.json:2:17: invalid JSON: expected an object key in double quotes
//   results.json: measurement 3: number_per_run must be positive, got 0
//   results.json: schema_version 2 is newer than this build reads (1); ...
absl::StatusOr<ResultsFile> ParseResultsJson(absl::string_view json, absl::string_view source);
absl::StatusOr<ResultsFile> ReadResultsFile(const std::string& path);

// Whether results may be written to `path`: yes when nothing is there, or
// when an icount results file this version reads is (it is replaced);
// FailedPrecondition, naming the file and what to do, for anything else, so
// that writing results never overwrites another file. `is_ours`, when
// given, recognises a front end's own format instead (ab_test's
// {"A": ..., "B": ...}). Front ends call it before a run starts:
//
//   if (absl::Status s = CheckResultsDestination(output); !s.ok())
//     return Fail(absl::StrCat("--output: ", s.message()));
absl::Status CheckResultsDestination(const std::string& path,
                                     bool (*is_ours)(absl::string_view text) = nullptr);

// The results file as its message (for files that hold results, such as
// ab_test's --json), with the schema version and, when `results` names
// none, the timer's version.
timer::ResultsFileProto ResultsToProto(const ResultsFile& results);
// ResultsToProto as JSON with proto field names, one measurement per line.
std::string ResultsToJson(const ResultsFile& results);
// Writes atomically (temporary file in the same directory, then rename), so
// a reader never sees a half-written file. A measurement ReadResultsFile
// would refuse (e.g. number_per_run 0) is refused here, naming it, and
// nothing is written.
absl::Status WriteResultsFile(const std::string& path, const ResultsFile& results);

// These two now live in base/files.h; the names stay here for code written
// against earlier versions of //timer.
using base::ReadFileToString;
using base::WriteFileAtomically;

}  // namespace icount::timer

#endif  // ICOUNT_TIMER_MEASUREMENT_IO_H_
