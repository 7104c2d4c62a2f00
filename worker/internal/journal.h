#ifndef ICOUNT_WORKER_INTERNAL_JOURNAL_H_
#define ICOUNT_WORKER_INTERNAL_JOURNAL_H_

// The runner's journal: JSON lines, a header naming the set of orders it
// belongs to, then one WorkerResultProto per finished order, each appended
// with one write and fsync so that it survives a crash or power loss.
//
//   {"icount_journal":2,"orders_checksum":"5f3a..."}
//   {"id":"Pointwise/Math/add|Eager|Forward|Python|1#counts","output":{...}}

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "worker/worker.pb.h"

namespace icount::worker_internal {

// What a set of orders asks for, independent of their order and timeouts:
// a journal is resumed only by the same work.
std::string OrdersChecksum(const std::vector<worker::WorkOrderProto>& orders);

struct Journal {
  std::string checksum;
  std::vector<worker::WorkerResultProto> results;
};

// The journal at `path`; a clear error (file and line) when it is not a
// journal, was written by another version of the format, or is corrupt.
absl::StatusOr<Journal> ParseJournal(const std::string& path);

// Creates the journal with its header.
absl::Status StartJournal(const std::string& path, const std::string& orders_checksum);

// Appends one finished result durably.
absl::Status AppendToJournal(const std::string& path, const worker::WorkerResultProto& result);

}  // namespace icount::worker_internal

#endif  // ICOUNT_WORKER_INTERNAL_JOURNAL_H_
