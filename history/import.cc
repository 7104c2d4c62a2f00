#include "history/import.h"

#include <google/protobuf/util/json_util.h>

#include <optional>
#include <string>
#include <tuple>
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

// The sides of an ab_test --sides file, or nullopt when `json` is not one.
std::optional<compare::AbTestSidesFileProto> AsSidesFile(const std::string& json) {
  compare::AbTestSidesFileProto proto;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  if (!google::protobuf::util::JsonStringToMessage(json, &proto, options).ok() ||
      proto.sides_size() < 2) {
    return std::nullopt;
  }
  return proto;
}

// One side's results as a run to import.
absl::StatusOr<ImportedRun> SideRun(const std::string& path, const std::string& side,
                                    const timer::ResultsFileProto& results,
                                    const std::string& libtorch_version,
                                    const std::string& source) {
  ICOUNT_ASSIGN_OR_RETURN(timer::ResultsFile side_results,
                          timer::ParseResultsJson(base::ProtoToJson(results),
                                                  absl::StrCat(path, " (side ", side, ")")));
  ImportedRun run;
  run.results = std::move(side_results);
  run.info.source = absl::StrCat("import (", source, " ", side, ")");
  run.info.command = path;
  run.info.libtorch_version = libtorch_version;
  run.info.side = side;
  run.label_suffix = absl::StrCat(" ", side);
  return run;
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
  if (std::optional<compare::AbTestFileProto> ab = AsAbTestFile(json)) {
    for (const auto& [side, proto, libtorch] :
         {std::make_tuple("A", &ab->a(), &ab->libtorch().a()),
          std::make_tuple("B", &ab->b(), &ab->libtorch().b())}) {
      ICOUNT_ASSIGN_OR_RETURN(ImportedRun run,
                              SideRun(path, side, *proto, libtorch->version(), "ab_test"));
      runs.push_back(std::move(run));
    }
  } else if (std::optional<compare::AbTestSidesFileProto> sides = AsSidesFile(json)) {
    for (const compare::AbTestSideProto& side : sides->sides()) {
      ICOUNT_ASSIGN_OR_RETURN(ImportedRun run, SideRun(path, side.name(), side.results(),
                                                       side.libtorch().version(),
                                                       "ab_test --sides"));
      runs.push_back(std::move(run));
    }
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(results.status().message(),
                     " (results files of main, ci, timeit, merge_results and the library, and "
                     "ab_test's --json files, are read)"));
  }
  return runs;
}

}  // namespace icount::history
