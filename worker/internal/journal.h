#ifndef ICOUNT_WORKER_INTERNAL_JOURNAL_H_
#define ICOUNT_WORKER_INTERNAL_JOURNAL_H_

// The runner's journal: JSON lines, a header naming the set of orders it
// belongs to, then one WorkerResultProto per finished order, each appended
// with one write and fsync so that it survives a crash or power loss.
//
//   {"icount_journal":2,"orders_checksum":"5f3a..."}
//   {"id":"Pointwise/Math/add|Eager|Forward|Python|1#counts","output":{...}}

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "worker/worker.pb.h"

namespace icount::worker::internal {

// What a set of orders asks for, independent of their order and timeouts:
// a journal is resumed only by the same work.
std::string OrdersChecksum(const std::vector<WorkOrderProto>& orders);

struct Journal {
  std::string checksum;
  std::vector<WorkerResultProto> results;
  // The file ended in a line cut off mid-write (a crash or power loss while
  // appending): it is not in `results`, and the whole lines end at
  // `complete_bytes`.
  bool cut_off = false;
  size_t complete_bytes = 0;
};

// The journal at `path`; a clear error (file and line) when it is not a
// journal, was written by another version of the format, or is corrupt.
// Never modifies the file.
absl::StatusOr<Journal> ParseJournal(const std::string& path);

// Cuts a journal's cut-off last line away, so that appends start on a line
// of their own; the journal keeps every whole line.
absl::Status DropCutOffLine(const std::string& path, const Journal& journal);

// Creates the journal with its header.
absl::Status StartJournal(const std::string& path, const std::string& orders_checksum);

// Appends one finished result durably.
absl::Status AppendToJournal(const std::string& path, const WorkerResultProto& result);

// Held by the one run that writes a journal, as an flock on
// "<journal>.lock" holding its pid: a second run on the same output is
// refused with the first one's pid, and a run killed with SIGKILL leaves no
// stale lock (the kernel drops it with the process).
class JournalLock {
 public:
  // Unavailable, naming the pid of the run that holds it, when taken.
  static absl::StatusOr<JournalLock> Acquire(const std::string& journal_path);
  JournalLock(JournalLock&& other) noexcept;
  JournalLock& operator=(JournalLock&&) = delete;
  ~JournalLock();

 private:
  JournalLock(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_ = -1;
};

// Unavailable, naming the holder's pid, when a running icount holds the
// journal's lock; OK otherwise.
absl::Status CheckJournalNotInUse(const std::string& journal_path);

}  // namespace icount::worker::internal

#endif  // ICOUNT_WORKER_INTERNAL_JOURNAL_H_
