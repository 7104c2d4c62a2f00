#include "history/import.h"

#include <google/protobuf/util/json_util.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/proto_json.h"
#include "base/status.h"
#include "compare/comparison_file.pb.h"

namespace icount::history {
namespace {

// The sides of an ab_test file, or nullopt when `json` is not one.
std::optional<compare::AbTestFileProto> AsAbTestFile(const std::string& json) {
  compare::AbTestFileProto proto;
  google::protobuf::util::JsonParseOptions options;
  // Files of newer versions may hold more; what history reads is there.
  options.ignore_unknown_fields = true;
  if (!google::protobuf::util::JsonStringToMessage(json, &proto, options).ok()) {
    return std::nullopt;
  }
  if (!proto.has_a() || !proto.has_b()) return std::nullopt;
  return proto;
}

}  // namespace

absl::StatusOr<std::vector<ImportedRun>> ReadRunsToImport(const std::string& path) {
  ICOUNT_ASSIGN_OR_RETURN(std::string json, base::ReadFileToString(path));
  absl::StatusOr<timer::ResultsFile> results = timer::ParseResultsJson(json, path);
  std::vector<ImportedRun> runs;
  if (results.ok()) {
    ImportedRun run;
    run.results = *std::move(results);
    run.info.source = "import";
    run.info.command = path;
    runs.push_back(std::move(run));
    return runs;
  }
  if (results.status().code() == absl::StatusCode::kFailedPrecondition) return results.status();
  std::optional<compare::AbTestFileProto> ab = AsAbTestFile(json);
  if (!ab.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        results.status().message(),
        " (history imports results files of main, ci, merge_results, and ab_test --json files)"));
  }
  for (const auto& [side, proto, libtorch] :
       {std::make_tuple("A", &ab->a(), &ab->libtorch().a()),
        std::make_tuple("B", &ab->b(), &ab->libtorch().b())}) {
    ICOUNT_ASSIGN_OR_RETURN(timer::ResultsFile side_results,
                            timer::ParseResultsJson(base::ProtoToJson(*proto),
                                                    absl::StrCat(path, " (side ", side, ")")));
    ImportedRun run;
    run.results = std::move(side_results);
    run.info.source = absl::StrCat("import (ab_test ", side, ")");
    run.info.command = path;
    run.info.libtorch_version = libtorch->version();
    run.info.side = side;
    run.label_suffix = absl::StrCat(" ", side);
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace icount::history
