#include "worker/internal/journal.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/util/json_util.h>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/files.h"
#include "base/fnv.h"
#include "base/proto_json.h"

namespace icount::worker::internal {
namespace {

// Format 2: failure kinds are enum names ("FAILURE_CRASH"); format 1 wrote
// them as text ("crash").
constexpr int kJournalFormat = 2;

absl::StatusOr<JournalHeaderProto> ParseHeader(absl::string_view line) {
  JournalHeaderProto header;
  if (!google::protobuf::util::JsonStringToMessage(
           google::protobuf::StringPiece(line.data(), line.size()), &header)
           .ok() ||
      header.icount_journal() == 0) {
    return absl::InvalidArgumentError("its first line is not the journal header");
  }
  return header;
}

}  // namespace

std::string OrdersChecksum(const std::vector<WorkOrderProto>& orders) {
  std::vector<std::string> keys;
  for (const WorkOrderProto& order : orders) {
    WorkOrderProto key = order;
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
  Journal journal;
  journal.complete_bytes = text->rfind('\n') == std::string::npos ? 0 : text->rfind('\n') + 1;
  journal.cut_off = journal.complete_bytes < text->size();
  if (journal.complete_bytes == 0) {
    return absl::DataLossError(absl::StrCat(
        path, journal.cut_off ? ": its header line is cut off" : ": empty",
        "; not an icount journal with anything to resume: remove it and run without --resume"));
  }
  text->resize(journal.complete_bytes);
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(*text, '\n', absl::SkipEmpty())) {
    ++line_number;
    if (line_number == 1) {
      absl::StatusOr<JournalHeaderProto> header = ParseHeader(line);
      if (!header.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(path, ":1: not an icount results journal (",
                                                       header.status().message(), ")"));
      }
      if (header->icount_journal() != kJournalFormat) {
        return absl::FailedPreconditionError(absl::StrCat(
            path, ":1: written by another version of icount (journal format ",
            header->icount_journal(), ", this one reads ", kJournalFormat,
            "); finish that run with the icount that started it, or remove the journal"));
      }
      journal.checksum = header->orders_checksum();
      continue;
    }
    WorkerResultProto result;
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

absl::Status DropCutOffLine(const std::string& path, const Journal& journal) {
  if (!journal.cut_off) return absl::OkStatus();
  if (truncate(path.c_str(), static_cast<off_t>(journal.complete_bytes)) != 0) {
    return absl::DataLossError(
        absl::StrCat(path, ": cannot cut off its incomplete last line: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status StartJournal(const std::string& path, const std::string& orders_checksum) {
  JournalHeaderProto header;
  header.set_icount_journal(kJournalFormat);
  header.set_orders_checksum(orders_checksum);
  return base::AppendLineDurably(path, base::ProtoToJson(header));
}

absl::Status AppendToJournal(const std::string& path, const WorkerResultProto& result) {
  return base::AppendLineDurably(path, base::ProtoToJson(result));
}

namespace {

std::string LockPath(const std::string& journal_path) { return journal_path + ".lock"; }

absl::Status InUse(const std::string& journal_path, int fd) {
  char pid[32] = {};
  (void)!pread(fd, pid, sizeof(pid) - 1, 0);
  return absl::UnavailableError(
      absl::StrCat(journal_path, " is being written by another icount run (pid ",
                   absl::StripAsciiWhitespace(pid),
                   ") on the same output: wait for it to finish, or use another output"));
}

}  // namespace

absl::StatusOr<JournalLock> JournalLock::Acquire(const std::string& journal_path) {
  const std::string path = LockPath(journal_path);
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot create the run's lock: ", std::strerror(errno)));
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    absl::Status status = InUse(journal_path, fd);
    close(fd);
    return status;
  }
  const std::string pid = absl::StrCat(getpid(), "\n");
  (void)!ftruncate(fd, 0);
  (void)!pwrite(fd, pid.data(), pid.size(), 0);
  return JournalLock(path, fd);
}

JournalLock::JournalLock(JournalLock&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)) {}

JournalLock::~JournalLock() {
  if (fd_ < 0) return;
  // Removed while still held, so no lock file is left beside the output. A
  // run that opened it just before could then lock the removed file while a
  // third creates a new one: three runs at once on one output, not guarded.
  unlink(path_.c_str());
  close(fd_);
}

absl::Status CheckJournalNotInUse(const std::string& journal_path) {
  const int fd = open(LockPath(journal_path).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::OkStatus();
  absl::Status status = absl::OkStatus();
  if (flock(fd, LOCK_SH | LOCK_NB) != 0) {
    status = InUse(journal_path, fd);
  } else {
    flock(fd, LOCK_UN);
  }
  close(fd);
  return status;
}

}  // namespace icount::worker::internal
