#include "timer/measurement_io.h"

#include <google/protobuf/util/json_util.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "base/files.h"
#include "base/output_files.h"
#include "base/json_syntax.h"
#include "base/proto_json.h"
#include "base/status.h"
#include "timer/internal/task_spec_fields.h"
#include "timer/version.h"

namespace icount::timer {
namespace {

// Files older than timer 0.17 describe their machine only for people, as
// "host, N CPUs, model"; this is the one place that reads it back, so that
// every reader sees a typed machine. A description of another form (a merge
// of several machines' files joins theirs with "; ") is kept whole as the
// model.
timer::NodeProto MachineNodeOfOlderFile(const std::string& machine) {
  timer::NodeProto node;
  std::vector<std::string> parts = absl::StrSplit(machine, absl::MaxSplits(", ", 2));
  int cpus = 0;
  if (!absl::StrContains(machine, "; ") && parts.size() == 3 &&
      absl::EndsWith(parts[1], " CPUs") &&
      absl::SimpleAtoi(parts[1].substr(0, parts[1].size() - 5), &cpus)) {
    node.set_host(parts[0]);
    node.set_cpus(cpus);
    node.set_cpu_model(parts[2]);
  } else {
    node.set_cpu_model(machine);
  }
  return node;
}

// The totals of `proto` that InstructionCountsFromProto reads back: an
// error where they cannot be instruction counts.
absl::Status CheckInstructionCounts(const timer::InstructionCountsProto& proto) {
  if (proto.number_per_run() <= 0 || proto.counts_size() == 0) {
    return absl::InvalidArgumentError(
        "instruction counts need a positive number_per_run and at least one count");
  }
  for (int64_t count : proto.counts()) {
    if (count < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("counts are instructions and cannot be negative, got ", count));
    }
  }
  if (proto.baseline() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("baseline is instructions and cannot be negative, got ", proto.baseline()));
  }
  if (!std::isfinite(proto.counts_per_run())) {
    return absl::InvalidArgumentError(
        absl::StrCat("counts_per_run must be a finite number, got ", proto.counts_per_run()));
  }
  return absl::OkStatus();
}

// Sets `*field` to `value` where `present`; an error where `value`, the
// figure `name`, is not finite.
absl::Status ReadPerRunFigure(bool present, double value, const char* name,
                              std::optional<double>* field) {
  if (!present) return absl::OkStatus();
  if (!std::isfinite(value)) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must be a finite number, got ", value));
  }
  *field = value;
  return absl::OkStatus();
}

// Optional per-run figures: absent in files older than timer 0.15.
absl::Status ReadPerRunFigures(const timer::InstructionCountsProto& proto,
                               InstructionCounts* counts) {
  if (absl::Status status =
          ReadPerRunFigure(proto.has_allocations_per_run(), proto.allocations_per_run(),
                           "allocations_per_run", &counts->allocations_per_run);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = ReadPerRunFigure(proto.has_frees_per_run(), proto.frees_per_run(),
                                             "frees_per_run", &counts->frees_per_run);
      !status.ok()) {
    return status;
  }
  return ReadPerRunFigure(proto.has_estimated_cycles_per_run(),
                          proto.estimated_cycles_per_run(), "estimated_cycles_per_run",
                          &counts->estimated_cycles_per_run);
}

}  // namespace

timer::MeasurementProto MeasurementToProto(const Measurement& measurement) {
  timer::MeasurementProto proto;
  timer::internal::WriteTaskSpecFields(measurement.task_spec(), &proto);
  proto.set_number_per_run(measurement.number_per_run());
  for (double t : measurement.raw_times()) proto.add_raw_times(t);
  for (const auto& [key, value] : measurement.metadata()) (*proto.mutable_metadata())[key] = value;
  return proto;
}

absl::StatusOr<Measurement> MeasurementFromProto(const timer::MeasurementProto& proto) {
  if (proto.number_per_run() <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("number_per_run must be positive, got ", proto.number_per_run()));
  }
  for (double t : proto.raw_times()) {
    if (!std::isfinite(t) || t < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("raw_times must be finite, non-negative seconds, got ", t));
    }
  }
  TaskSpec spec = timer::internal::ReadTaskSpecFields(proto);
  if (spec.num_threads <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_threads must be positive, got ", spec.num_threads));
  }
  spec.stmt = proto.stmt();
  spec.setup = proto.setup();
  spec.global_setup = proto.global_setup();
  spec.language = proto.language() == timer::CPP ? Language::kCpp : Language::kPython;
  std::map<std::string, std::string> metadata(proto.metadata().begin(), proto.metadata().end());
  return Measurement(proto.number_per_run(),
                     std::vector<double>(proto.raw_times().begin(), proto.raw_times().end()),
                     std::move(spec), std::move(metadata));
}

timer::InstructionCountsProto InstructionCountsToProto(const InstructionCounts& counts) {
  timer::InstructionCountsProto proto;
  timer::internal::WriteTaskSpecFields(counts.task_spec, &proto);
  proto.set_number_per_run(counts.number_per_run);
  for (int64_t total : counts.counts) proto.add_counts(total);
  proto.set_baseline(counts.baseline);
  proto.set_counts_per_run(counts.counts_per_run);
  *proto.mutable_exclusive() = FunctionCountsToProto(counts.exclusive);
  proto.mutable_exclusive()->set_inclusive(false);
  for (const auto& [key, value] : counts.metadata) (*proto.mutable_metadata())[key] = value;
  if (counts.call_tree.has_value()) *proto.mutable_call_tree() = CallTreeToProto(*counts.call_tree);
  if (counts.allocations_per_run) proto.set_allocations_per_run(*counts.allocations_per_run);
  if (counts.frees_per_run) proto.set_frees_per_run(*counts.frees_per_run);
  if (counts.estimated_cycles_per_run) {
    proto.set_estimated_cycles_per_run(*counts.estimated_cycles_per_run);
  }
  return proto;
}

absl::StatusOr<InstructionCounts> InstructionCountsFromProto(
    const timer::InstructionCountsProto& proto) {
  if (absl::Status status = CheckInstructionCounts(proto); !status.ok()) return status;
  InstructionCounts counts;
  counts.task_spec = timer::internal::ReadTaskSpecFields(proto);
  counts.number_per_run = proto.number_per_run();
  counts.counts.assign(proto.counts().begin(), proto.counts().end());
  counts.baseline = proto.baseline();
  counts.counts_per_run = proto.counts_per_run();
  if (absl::Status status = ReadPerRunFigures(proto, &counts); !status.ok()) return status;
  timer::FunctionCountsProto exclusive = proto.exclusive();
  exclusive.set_inclusive(false);
  counts.exclusive = FunctionCountsFromProto(exclusive);
  counts.metadata.insert(proto.metadata().begin(), proto.metadata().end());
  if (proto.has_call_tree()) {
    absl::StatusOr<CallTree> tree = CallTreeFromProto(proto.call_tree(), "");
    if (!tree.ok()) return tree.status();
    counts.call_tree = *std::move(tree);
  }
  return counts;
}

std::string ResultCaseKey(const std::map<std::string, std::string>& metadata,
                          const TaskSpec& spec) {
  auto it = metadata.find(kCaseMetadataKey);
  if (it != metadata.end()) return it->second;
  return absl::StrCat(spec.label.value_or(""), "/", spec.sub_label.value_or(spec.stmt), "/",
                      spec.description.value_or(""), "/", spec.num_threads);
}

std::string ResultCaseTitle(const TaskSpec& spec) {
  // A statement timed alone (timeit's) has no label or description: its
  // title is the statement and thread count, without empty parts.
  std::vector<std::string> name;
  if (spec.label.has_value() && !spec.label->empty()) name.push_back(*spec.label);
  name.push_back(spec.sub_label.value_or(spec.stmt));
  std::vector<std::string> about;
  if (spec.description.has_value() && !spec.description->empty()) {
    about.push_back(*spec.description);
  }
  about.push_back(absl::StrCat(spec.num_threads, "T"));
  return absl::StrCat(absl::StrJoin(name, " / "), " [", absl::StrJoin(about, ", "), "]");
}

namespace {

// FailedPrecondition naming the writer when `json` has a schema newer than
// this build reads. A newer schema adds fields this build does not know, so
// the version is read leniently: such a file is called newer, not wrong.
absl::Status RefuseNewerSchema(absl::string_view json, absl::string_view source) {
  timer::ResultsFileProto proto;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  if (!google::protobuf::util::JsonStringToMessage(
           google::protobuf::StringPiece(json.data(), json.size()), &proto, options)
           .ok() ||
      proto.schema_version() <= kResultsSchemaVersion) {
    return absl::OkStatus();
  }
  const std::map<std::string, std::string> versions(proto.versions().begin(),
                                                    proto.versions().end());
  std::string writer;
  for (const auto& [library, version] : versions) {
    absl::StrAppend(&writer, writer.empty() ? "" : ", ", library, " ", version);
  }
  return absl::FailedPreconditionError(absl::StrCat(
      source, ": schema_version ", proto.schema_version(), " (written by ",
      writer.empty() ? "an unknown version" : writer, ") is newer than this build reads (",
      kResultsSchemaVersion, ", timer ", kTimerVersion, "); update icount to read it"));
}

}  // namespace

absl::StatusOr<ResultsFile> ParseResultsJson(absl::string_view json, absl::string_view source) {
  if (std::optional<std::string> error = base::JsonSyntaxError(json)) {
    return absl::InvalidArgumentError(absl::StrCat(source, ":", *error));
  }
  ICOUNT_RETURN_IF_ERROR(RefuseNewerSchema(json, source));
  timer::ResultsFileProto proto;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;  // a misspelt field is an error, not silently lost
  auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), &proto, options);
  if (!status.ok()) {
    // protobuf starts some messages with ": " of its own.
    const std::string why = status.message().as_string();
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": not a valid icount results file (JSON with a \"measurements\" list): ",
        absl::StripPrefix(why, ": ")));
  }
  ResultsFile results;
  results.versions.insert(proto.versions().begin(), proto.versions().end());
  results.start_time = proto.start_time();
  results.end_time = proto.end_time();
  results.machine = proto.machine();
  results.machine_node =
      proto.has_machine_node() ? proto.machine_node() : MachineNodeOfOlderFile(proto.machine());
  results.suite_checksum = proto.suite_checksum();
  results.settings.insert(proto.settings().begin(), proto.settings().end());
  results.failures.insert(proto.failures().begin(), proto.failures().end());
  results.command = proto.command();
  results.nodes.insert(proto.nodes().begin(), proto.nodes().end());
  if (proto.has_shard()) results.shard = proto.shard();
  for (int i = 0; i < proto.measurements_size(); ++i) {
    absl::StatusOr<Measurement> m = MeasurementFromProto(proto.measurements(i));
    if (!m.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": measurement ", i + 1, ": ", m.status().message()));
    }
    results.measurements.push_back(*std::move(m));
  }
  for (int i = 0; i < proto.instruction_counts_size(); ++i) {
    absl::StatusOr<InstructionCounts> c = InstructionCountsFromProto(proto.instruction_counts(i));
    if (!c.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": instruction_counts ", i + 1, ": ", c.status().message()));
    }
    results.instruction_counts.push_back(*std::move(c));
  }
  return results;
}

absl::Status CheckResultsDestination(const std::string& path,
                                     bool (*is_ours)(absl::string_view text)) {
  return base::CheckReplaceable(path, "results", [&](absl::string_view text) {
    if (is_ours != nullptr) {
      return is_ours(text) ? absl::OkStatus()
                           : absl::FailedPreconditionError("is not a file this tool wrote");
    }
    absl::Status read = ParseResultsJson(text, path).status();
    if (read.ok()) return read;
    return absl::FailedPreconditionError(absl::StrCat(
        "is not an icount results file this version reads (", read.message(), ")"));
  });
}

absl::StatusOr<ResultsFile> ReadResultsFile(const std::string& path) {
  absl::StatusOr<std::string> json = base::ReadFileToString(path);
  if (!json.ok()) return json.status();
  return ParseResultsJson(*json, path);
}

timer::ResultsFileProto ResultsToProto(const ResultsFile& results) {
  timer::ResultsFileProto proto;
  proto.set_schema_version(kResultsSchemaVersion);
  if (results.versions.empty()) {
    (*proto.mutable_versions())["timer"] = kTimerVersion;
  } else {
    proto.mutable_versions()->insert(results.versions.begin(), results.versions.end());
  }
  proto.set_start_time(results.start_time);
  proto.set_end_time(results.end_time);
  proto.set_machine(results.machine);
  if (results.machine_node.ByteSizeLong() != 0)
    *proto.mutable_machine_node() = results.machine_node;
  proto.set_suite_checksum(results.suite_checksum);
  proto.mutable_settings()->insert(results.settings.begin(), results.settings.end());
  proto.mutable_failures()->insert(results.failures.begin(), results.failures.end());
  proto.set_command(results.command);
  proto.mutable_nodes()->insert(results.nodes.begin(), results.nodes.end());
  if (results.shard) *proto.mutable_shard() = *results.shard;
  for (const Measurement& m : results.measurements) {
    *proto.add_measurements() = MeasurementToProto(m);
  }
  for (const InstructionCounts& c : results.instruction_counts) {
    *proto.add_instruction_counts() = InstructionCountsToProto(c);
  }
  return proto;
}

std::string ResultsToJson(const ResultsFile& results) {
  timer::ResultsFileProto header = ResultsToProto(results);
  google::protobuf::RepeatedPtrField<timer::MeasurementProto> measurements;
  google::protobuf::RepeatedPtrField<timer::InstructionCountsProto> counts;
  measurements.Swap(header.mutable_measurements());
  counts.Swap(header.mutable_instruction_counts());
  std::string json = base::ProtoToJson(header);
  json.pop_back();  // the closing brace; measurements follow, one per line
  absl::StrAppend(&json, json.size() > 1 ? "," : "", "\"measurements\":[");
  for (int i = 0; i < measurements.size(); ++i) {
    absl::StrAppend(&json, i ? ",\n" : "\n", base::ProtoToJson(measurements[i]));
  }
  absl::StrAppend(&json, "\n],\"instruction_counts\":[");
  for (int i = 0; i < counts.size(); ++i) {
    absl::StrAppend(&json, i ? ",\n" : "\n", base::ProtoToJson(counts[i]));
  }
  absl::StrAppend(&json, "\n]}\n");
  return json;
}

absl::Status WriteResultsFile(const std::string& path, const ResultsFile& results) {
  for (size_t i = 0; i < results.measurements.size(); ++i) {
    if (absl::Status read_back =
            MeasurementFromProto(MeasurementToProto(results.measurements[i])).status();
        !read_back.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("not writing ", path, ": measurement ", i + 1, " (",
                       results.measurements[i].task_spec().Title(),
                       ") could not be read back: ", read_back.message()));
    }
  }
  return base::WriteFileAtomically(path, ResultsToJson(results));
}

}  // namespace icount::timer
