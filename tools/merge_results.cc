// //tools:merge_results: merges results files (e.g. the shards of
// //tools:suite_shard_test) into one.
//
//   bazel run //tools:merge_results -- --output=$PWD/all.json $PWD/a.json $PWD/b.json
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "cli/tool_flags.h"
#include "timer/measurement_io.h"

ABSL_FLAG(std::string, output, "",
          "The merged results file (required); an icount results file already there is "
          "replaced, any other file is refused.");

int main(int argc, char** argv) {
  std::vector<char*> inputs = icount::ParseToolFlags(
      argc, argv,
      "Merges icount results files.\n\nUsage: merge_results --output=FILE IN.json [IN.json...]");
  const std::string output = absl::GetFlag(FLAGS_output);
  if (output.empty() || inputs.size() < 2) {
    std::fprintf(stderr, "merge_results: need --output=FILE and at least one input file\n");
    return 1;
  }
  if (absl::Status s = icount::CheckResultsDestination(output); !s.ok()) {
    return icount::Fail(absl::StrCat("--output: ", s.message()));
  }
  icount::ResultsFile merged;
  for (size_t i = 1; i < inputs.size(); ++i) {
    absl::StatusOr<icount::ResultsFile> file = icount::ReadResultsFile(inputs[i]);
    if (!file.ok()) {
      return icount::Fail(file.status());
    }
    merged.measurements.insert(merged.measurements.end(), file->measurements.begin(),
                               file->measurements.end());
    merged.instruction_counts.insert(merged.instruction_counts.end(),
                                     file->instruction_counts.begin(),
                                     file->instruction_counts.end());
    merged.failures.insert(file->failures.begin(), file->failures.end());
    if (merged.machine.empty()) merged.machine = file->machine;
    if (merged.settings.empty()) merged.settings = file->settings;
    if (merged.start_time.empty() || file->start_time < merged.start_time) {
      merged.start_time = file->start_time;
    }
    merged.end_time = std::max(merged.end_time, file->end_time);
  }
  if (absl::Status status = icount::WriteResultsFile(output, merged); !status.ok()) {
    return icount::Fail(status);
  }
  std::printf("merged %zu files: %zu measurements, %zu instruction counts -> %s\n",
              inputs.size() - 1, merged.measurements.size(), merged.instruction_counts.size(),
              output.c_str());
  return 0;
}
