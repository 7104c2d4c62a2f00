#include "worker/internal/journal.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/util/json_util.h>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/files.h"
#include "base/fnv.h"
#include "base/proto_json.h"

namespace icount::worker_internal {
namespace {

// Format 2: failure kinds are enum names ("FAILURE_CRASH"); format 1 wrote
// them as text ("crash").
constexpr int kJournalFormat = 2;
constexpr char kHeaderStart[] = "{\"icount_journal\":";
constexpr char kChecksumKey[] = "\"orders_checksum\":\"";

}  // namespace

std::string OrdersChecksum(const std::vector<worker::WorkOrderProto>& orders) {
  std::vector<std::string> keys;
  for (const worker::WorkOrderProto& order : orders) {
    worker::WorkOrderProto key = order;
    key.clear_timeout_seconds();  // changing a timeout does not change the work
    keys.push_back(key.SerializeAsString());
  }
  std::sort(keys.begin(), keys.end());
  base::Fnv1a64 hash;
  for (const std::string& key : keys) hash.Add(key);
  return hash.Hex();
}

absl::StatusOr<Journal> ParseJournal(const std::string& path) {
  absl::StatusOr<std::string> text = base::ReadFileToString(path);
  if (!text.ok()) return text.status();
  if (!text->empty() && text->back() != '\n') {
    return absl::DataLossError(absl::StrCat(
        path, ": the last line is incomplete; this is not a journal icount finished writing"));
  }
  Journal journal;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(*text, '\n', absl::SkipEmpty())) {
    ++line_number;
    if (line_number == 1) {
      const size_t key = line.find(kChecksumKey);
      if (!absl::StartsWith(line, kHeaderStart) || key == absl::string_view::npos) {
        return absl::InvalidArgumentError(absl::StrCat(
            path, ":1: not an icount results journal (its first line is not the journal header)"));
      }
      const std::string expected = absl::StrCat(kHeaderStart, kJournalFormat, ",");
      if (!absl::StartsWith(line, expected)) {
        return absl::FailedPreconditionError(absl::StrCat(
            path, ":1: written by another version of icount (journal format ",
            line.substr(std::strlen(kHeaderStart), line.find(',') - std::strlen(kHeaderStart)),
            ", this one reads ", kJournalFormat,
            "); finish that run with the icount that started it, or remove the journal"));
      }
      const size_t start = key + std::strlen(kChecksumKey);
      journal.checksum = std::string(line.substr(start, line.find('"', start) - start));
      continue;
    }
    worker::WorkerResultProto result;
    auto status = google::protobuf::util::JsonStringToMessage(
        google::protobuf::StringPiece(line.data(), line.size()), &result);
    if (!status.ok()) {
      return absl::DataLossError(absl::StrCat(
          path, ":", line_number, ": corrupt result line: ", status.message().as_string()));
    }
    journal.results.push_back(std::move(result));
  }
  if (line_number == 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": empty, not an icount journal"));
  }
  return journal;
}

absl::Status StartJournal(const std::string& path, const std::string& orders_checksum) {
  return base::AppendLineDurably(
      path, absl::StrCat(kHeaderStart, kJournalFormat, ",", kChecksumKey, orders_checksum, "\"}"));
}

absl::Status AppendToJournal(const std::string& path, const worker::WorkerResultProto& result) {
  return base::AppendLineDurably(path, base::ProtoToJson(result));
}

}  // namespace icount::worker_internal
