#include "history/internal/transaction.h"

#include "base/status.h"

namespace icount::history::internal {

absl::StatusOr<std::unique_ptr<Transaction>> Transaction::Begin(Database& db) {
  // IMMEDIATE takes the write lock now, waiting (busy timeout) for a
  // concurrent recorder to finish, instead of failing at the first write.
  ICOUNT_RETURN_IF_ERROR(db.Execute("BEGIN IMMEDIATE"));
  return std::unique_ptr<Transaction>(new Transaction(db));
}

Transaction::~Transaction() {
  if (!done_) db_.Execute("ROLLBACK").IgnoreError();
}

absl::Status Transaction::Commit() {
  done_ = true;
  return db_.Execute("COMMIT");
}

}  // namespace icount::history::internal
