#ifndef ICOUNT_HISTORY_INTERNAL_TRANSACTION_H_
#define ICOUNT_HISTORY_INTERNAL_TRANSACTION_H_

// A write transaction on a history store, for Store's parts: opening a
// store (creating or upgrading its schema) and recording a run.
//
//   ICOUNT_ASSIGN_OR_RETURN(std::unique_ptr<Transaction> transaction, Transaction::Begin(db));
//   ICOUNT_RETURN_IF_ERROR(db.Execute("INSERT ..."));
//   return transaction->Commit();

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "history/internal/sqlite.h"

namespace icount::history::internal {

// Rolls the transaction back unless Commit() ran: an error anywhere in
// AddRun leaves the store as it was.
class Transaction {
 public:
  static absl::StatusOr<std::unique_ptr<Transaction>> Begin(Database& db);
  ~Transaction();
  absl::Status Commit();

 private:
  explicit Transaction(Database& db) : db_(db) {}
  Database& db_;
  bool done_ = false;
};

}  // namespace icount::history::internal

#endif  // ICOUNT_HISTORY_INTERNAL_TRANSACTION_H_
