// //tools:merge_results: merges results files (e.g. the shards of
// //tools:suite_shard_test) into one.
//
//   bazel run //tools:merge_results -- --output=$PWD/all.json $PWD/a.json $PWD/b.json
//
// The inputs must be parts of one run: written by the same icount
// libraries, no case in two of them, and when they are shards ("shard":
// {"index": K, "total": N}, as suite_shard_test writes them) all N shards of one
// suite (the same suite_checksum). Anything else is refused with the files
// named, so a stale or foreign file never slips into the merged results.
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/files.h"
#include "base/status.h"
#include "base/text.h"
#include "cli/tool_flags.h"
#include "timer/measurement_io.h"
#include "timer/node.h"

ABSL_FLAG(std::string, output, "",
          "The merged results file (required); refuses to overwrite a file that is not an icount "
          "results file.");
ABSL_FLAG(bool, allow_mixed_versions, false,
          "Merges files written by different icount library versions, whose counts may not be "
          "comparable.");

namespace icount::tools {
namespace {

// The libraries both files name at different versions, as "timer 0.4.0"
// for `file` (empty when they agree): a library only one names (timeit
// writes fewer) is no conflict.
std::string ConflictingVersions(const timer::ResultsFile& file, const timer::ResultsFile& other) {
  std::vector<std::string> parts;
  for (const auto& [library, version] : file.versions) {
    auto it = other.versions.find(library);
    if (it != other.versions.end() && it->second != version) parts.push_back(library + " " + version);
  }
  return absl::StrJoin(parts, ", ");
}

// The settings that say what was measured, and how: a merged file names
// one of each, so parts that differ in any are refused.
constexpr const char* kMeasuredWith[] = {"libtorch_install", "toolchain", "valgrind",
                                         "valgrind_options", "baseline"};

absl::Status CheckMeasuredAlike(const timer::ResultsFile& file, const std::string& name,
                                const timer::ResultsFile& first, const std::string& first_name) {
  for (const char* key : kMeasuredWith) {
    auto in_file = file.settings.find(key);
    auto in_first = first.settings.find(key);
    if (in_file == file.settings.end() || in_first == first.settings.end() ||
        in_file->second == in_first->second) {
      continue;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        name, " was measured with ", key, " \"", in_file->second, "\", ", first_name, " with \"",
        in_first->second, "\": the parts of one run measure one PyTorch the same way; compare "
        "such files (compare --baseline, ab_test --sides) rather than merge them"));
  }
  return absl::OkStatus();
}

// The file's shard, checked, or none.
absl::StatusOr<std::optional<timer::ShardProto>> ShardOf(const timer::ResultsFile& file,
                                                         const std::string& name) {
  if (!file.shard) return std::nullopt;
  if (file.shard->index() < 1 || file.shard->index() > file.shard->total()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": shard ", file.shard->index(), " of ",
                                                   file.shard->total(),
                                                   ": a shard's index must be 1 to its total"));
  }
  return file.shard;
}

// The shards of a run seen so far.
struct Shards {
  std::map<int, std::string> files;  // index -> file
  int total = 0;
};

// Records file `name`'s `shard`, refusing a shard of another run or suite
// than `first`'s (file `first_name`), or a second file with one index.
absl::Status AddShard(const timer::ShardProto& shard, const timer::ResultsFile& file,
                      const std::string& name, const timer::ResultsFile& first,
                      const std::string& first_name, Shards* shards) {
  if (shards->total != 0 && shard.total() != shards->total) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " is shard ", shard.index(), " of ", shard.total(), ", ",
                     shards->files.begin()->second, " one of ", shards->total,
                     ": these are shards of different runs"));
  }
  shards->total = shard.total();
  if (file.suite_checksum != first.suite_checksum) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " and ", first_name, " are shards of different suites (suite_checksum ",
                     file.suite_checksum, " vs ", first.suite_checksum, ")"));
  }
  auto [it, inserted] = shards->files.try_emplace(shard.index(), name);
  if (!inserted) {
    return absl::InvalidArgumentError(absl::StrCat(name, " and ", it->second, " are both shard ",
                                                   shard.index(), " of ", shards->total));
  }
  return absl::OkStatus();
}

// An error naming the shards of a sharded run that no file holds.
absl::Status CheckNoShardMissing(const Shards& shards) {
  if (shards.total > 0 && static_cast<int>(shards.files.size()) != shards.total) {
    std::vector<std::string> missing;
    for (int k = 1; k <= shards.total; ++k) {
      if (!shards.files.count(k)) missing.push_back(absl::StrCat(k));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("shard", missing.size() > 1 ? "s " : " ", absl::StrJoin(missing, ", "), " of ",
                     shards.total, " missing: merge all shards of the run (or rerun the missing)"));
  }
  return absl::OkStatus();
}

// Records that file `name` has `what`; an error when another file has it
// too. `owner`: case (and round) -> the file that has it.
absl::Status Claim(const std::string& what, const std::string& name,
                   std::map<std::string, std::string>* owner) {
  auto [it, inserted] = owner->try_emplace(what, name);
  if (inserted) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(what, " is in both ", it->second, " and ", name,
                   ": parts of one run never measure a case twice; merge each run's own files"));
}

// Claims for file `name` each of its counts, wall-time rounds and failures.
absl::Status ClaimCases(const timer::ResultsFile& file, const std::string& name,
                        std::map<std::string, std::string>* owner) {
  for (const timer::InstructionCounts& c : file.instruction_counts) {
    ICOUNT_RETURN_IF_ERROR(
        Claim(absl::StrCat("the counts of ", timer::ResultCaseKey(c.metadata, c.task_spec)), name,
              owner));
  }
  for (const timer::Measurement& m : file.measurements) {
    auto round = m.metadata().find("round");
    ICOUNT_RETURN_IF_ERROR(
        Claim(absl::StrCat(
                  "the wall time of ", timer::ResultCaseKey(m.metadata(), m.task_spec()),
                  round == m.metadata().end() ? "" : absl::StrCat(" (round ", round->second, ")")),
              name, owner));
  }
  for (const auto& [key, reason] : file.failures) {
    ICOUNT_RETURN_IF_ERROR(Claim(absl::StrCat("the failure of ", key), name, owner));
  }
  return absl::OkStatus();
}

// Adds `file`'s nodes, measurements, counts and failures to `merged`,
// widens its time span, and adds its machine to `machines` if new.
void Append(const timer::ResultsFile& file, timer::ResultsFile* merged,
            std::vector<std::string>* machines) {
  // Node ids are per file ("host", "host#2"): renamed into the merged
  // file's, so each case still names the node that measured it.
  std::map<std::string, std::string> node_ids;
  for (const auto& [id, node] : file.nodes) node_ids[id] = timer::AddNode(*merged, node);
  auto renamed = [&node_ids](std::map<std::string, std::string>& metadata) {
    auto node = metadata.find(timer::kNodeMetadataKey);
    if (node != metadata.end() && node_ids.count(node->second)) {
      node->second = node_ids[node->second];
    }
  };
  for (timer::Measurement m : file.measurements) {
    renamed(m.mutable_metadata());
    merged->measurements.push_back(std::move(m));
  }
  for (timer::InstructionCounts c : file.instruction_counts) {
    renamed(c.metadata);
    merged->instruction_counts.push_back(std::move(c));
  }
  merged->failures.insert(file.failures.begin(), file.failures.end());
  if (std::find(machines->begin(), machines->end(), file.machine) == machines->end()) {
    machines->push_back(file.machine);
  }
  if (merged->start_time.empty() || file.start_time < merged->start_time) {
    merged->start_time = file.start_time;
  }
  merged->end_time = std::max(merged->end_time, file.end_time);
}

absl::StatusOr<timer::ResultsFile> Merge(const std::vector<std::string>& names,
                                         const std::vector<timer::ResultsFile>& files) {
  timer::ResultsFile merged;
  std::map<std::string, std::string> owner;  // case (and round) -> the file that has it
  Shards shards;
  ICOUNT_ASSIGN_OR_RETURN(const std::optional<timer::ShardProto> first_shard,
                          ShardOf(files[0], names[0]));
  std::vector<std::string> machines;
  for (size_t i = 0; i < files.size(); ++i) {
    const timer::ResultsFile& file = files[i];
    const std::string& name = names[i];
    ICOUNT_ASSIGN_OR_RETURN(std::optional<timer::ShardProto> shard, ShardOf(file, name));
    if (shard.has_value() != first_shard.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(shard ? name : names[0], " is a shard and ",
                                                     shard ? names[0] : name,
                                                     " is not: merge the shards of one run only"));
    }
    if (shard.has_value()) {
      ICOUNT_RETURN_IF_ERROR(AddShard(*shard, file, name, files[0], names[0], &shards));
    }
    if (const std::string conflict = ConflictingVersions(file, files[0]);
        !conflict.empty() && !absl::GetFlag(FLAGS_allow_mixed_versions)) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, " was written by ", conflict, ", ", names[0], " by ",
          ConflictingVersions(files[0], file),
          ": parts of one run come from one build; rerun the part, or pass "
          "--allow_mixed_versions"));
    }
    ICOUNT_RETURN_IF_ERROR(CheckMeasuredAlike(file, name, files[0], names[0]));
    ICOUNT_RETURN_IF_ERROR(ClaimCases(file, name, &owner));
    Append(file, &merged, &machines);
  }
  ICOUNT_RETURN_IF_ERROR(CheckNoShardMissing(shards));
  merged.versions = files[0].versions;
  // The first file's settings, and what only later ones say.
  for (const timer::ResultsFile& file : files) {
    merged.settings.insert(file.settings.begin(), file.settings.end());
  }
  merged.suite_checksum = files[0].suite_checksum;
  merged.machine = absl::StrJoin(machines, "; ");
  // One machine's files keep it typed; a merge of several names none.
  if (machines.size() == 1) merged.machine_node = files[0].machine_node;
  merged.command = cli::ToolCommandLine();
  return merged;
}

int Main(int argc, char** argv) {
  std::vector<char*> inputs = cli::ParseToolFlags(
      argc, argv,
      "Merges icount results files.\n\nUsage: merge_results --output=FILE IN.json [IN.json...]");
  const std::string output = absl::GetFlag(FLAGS_output);
  if (output.empty() || inputs.size() < 2) {
    std::fprintf(stderr, "merge_results: need --output=FILE and at least one input file\n");
    return 1;
  }
  if (absl::Status s = base::CheckOutputPath("output", output); !s.ok()) return base::Fail(s);
  if (absl::Status s = timer::CheckResultsDestination(output); !s.ok()) {
    return base::Fail(absl::StrCat("--output: ", s.message()));
  }
  std::vector<std::string> names;
  std::vector<timer::ResultsFile> files;
  std::map<std::string, std::string> given;  // real path -> the name it was given as
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (absl::StatusOr<std::string> real = base::RealPath(base::UserPath(inputs[i])); real.ok()) {
      auto [it, first] = given.try_emplace(*real, inputs[i]);
      if (!first) {
        return base::Fail(absl::StrCat(inputs[i], " is ", it->second,
                                       ", given before: name each part of the run once"));
      }
    }
    // Inputs, as --output, from where the user stands (base::UserPath).
    absl::StatusOr<timer::ResultsFile> file = timer::ReadResultsFile(base::UserPath(inputs[i]));
    if (!file.ok()) return base::Fail(file.status());
    names.push_back(inputs[i]);
    files.push_back(*std::move(file));
  }
  absl::StatusOr<timer::ResultsFile> merged = Merge(names, files);
  if (!merged.ok()) return base::Fail(merged.status());
  if (absl::Status status = timer::WriteResultsFile(output, *merged); !status.ok())
    return base::Fail(status);
  std::printf("merged %s: %s, %s, %s -> %s\n", base::CountOf(files.size(), "file").c_str(),
              base::CountOf(merged->measurements.size(), "measurement").c_str(),
              base::CountOf(merged->instruction_counts.size(), "instruction count").c_str(),
              base::CountOf(merged->failures.size(), "failure").c_str(), output.c_str());
  return 0;
}

}  // namespace
}  // namespace icount::tools

int main(int argc, char** argv) { return icount::tools::Main(argc, argv); }
