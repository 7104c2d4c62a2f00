// Store's schema: what makes a file a history store this build reads and
// writes, and how a new store is created and an older one upgraded.
#include "history/store.h"

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/status.h"
#include "history/internal/sqlite.h"
#include "history/internal/transaction.h"

namespace icount::history {
namespace {

using internal::Database;
using internal::Statement;
using internal::Transaction;

// SQLite's header field for "which application's file is this": 'icnt'.
constexpr int64_t kApplicationId = 0x69636e74;

constexpr char kSchema[] = R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  label TEXT NOT NULL,
  source TEXT NOT NULL,
  recorded_at TEXT NOT NULL,
  start_time TEXT NOT NULL,
  end_time TEXT NOT NULL,
  host TEXT NOT NULL,
  cpu_model TEXT NOT NULL,
  cores INTEGER NOT NULL,
  kernel TEXT NOT NULL,
  valgrind TEXT NOT NULL,
  valgrind_options TEXT NOT NULL,
  libtorch_version TEXT NOT NULL,
  libtorch_build TEXT NOT NULL,
  -- The compiler, C++ standard and Python that built and ran the cases
  -- (the results' "toolchain" setting); '' where a run did not say.
  toolchain TEXT NOT NULL DEFAULT '',
  versions TEXT NOT NULL,
  settings TEXT NOT NULL,
  command TEXT NOT NULL,
  fingerprint TEXT NOT NULL UNIQUE
);
CREATE TABLE cases (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  label TEXT NOT NULL
);
-- Per case and run: the count of every repeat (comma-separated totals),
-- the per-run count and heap allocations per run (NULL in results that
-- did not count them), baseline subtracted.
CREATE TABLE counts (
  case_id INTEGER NOT NULL REFERENCES cases(id),
  run_id INTEGER NOT NULL REFERENCES runs(id),
  number_per_run INTEGER NOT NULL,
  baseline INTEGER NOT NULL,
  per_run REAL NOT NULL,
  repeats TEXT NOT NULL,
  allocations REAL,
  PRIMARY KEY (case_id, run_id)
) WITHOUT ROWID;
-- Per case and run, one row per measurement (ab_test's rounds are
-- several): the raw block times in whole nanoseconds (the clocks' unit),
-- each the zigzag varint of its difference from the one before.
CREATE TABLE times (
  case_id INTEGER NOT NULL REFERENCES cases(id),
  run_id INTEGER NOT NULL REFERENCES runs(id),
  seq INTEGER NOT NULL,
  number_per_run INTEGER NOT NULL,
  raw_ns BLOB NOT NULL,
  PRIMARY KEY (case_id, run_id, seq)
) WITHOUT ROWID;
-- Per case and run, the seconds per run of all its samples pooled: what
-- series and change points read, so they never decode samples.
CREATE TABLE time_levels (
  case_id INTEGER NOT NULL REFERENCES cases(id),
  run_id INTEGER NOT NULL REFERENCES runs(id),
  median REAL NOT NULL,
  p25 REAL NOT NULL,
  p75 REAL NOT NULL,
  samples INTEGER NOT NULL,
  PRIMARY KEY (case_id, run_id)
) WITHOUT ROWID;
-- A function: its key's text, which tells functions apart, and the key
-- itself (a serialized icount.timer.FunctionKeyProto; NULL in stores
-- written before schema 3, whose keys are read from their text).
CREATE TABLE function_names (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  key BLOB
);
-- The most expensive functions of a case in a run (exclusive counts of the
-- whole measured region, first repeat): (function_names id, count) pairs
-- as zigzag varints, a third of the size of a row per function.
CREATE TABLE functions (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  case_id INTEGER NOT NULL REFERENCES cases(id),
  top BLOB NOT NULL,
  PRIMARY KEY (run_id, case_id)
) WITHOUT ROWID;
)sql";

absl::Status NotAStore(const std::string& path, absl::string_view why) {
  return absl::FailedPreconditionError(absl::StrCat(
      path, ": not an icount history store (", why,
      "); it was left as it is. Give --db/--history a new file name or an existing store."));
}

// SQLite reports a file that is not a database, or whose header is
// damaged, at the first query.
absl::Status Unreadable(const std::string& path, const absl::Status& status) {
  return status.code() == absl::StatusCode::kFailedPrecondition
             ? NotAStore(path, "not an SQLite database, or a damaged one")
             : status;
}

// What the first queries tell of a file that may be a store.
struct StoreFile {
  int64_t tables = 0;  // 0: a new (or empty) file
  int64_t schema = 0;  // the store's schema version
};

// Refuses a file that is not a store this build reads: another
// application's database, an empty file when reading, a newer schema.
absl::StatusOr<StoreFile> IdentifyStore(Database& db, bool write) {
  const std::string& path = db.path();
  StoreFile file;
  absl::StatusOr<int64_t> application_id = db.QueryInt("PRAGMA application_id");
  if (!application_id.ok()) return Unreadable(path, application_id.status());
  ICOUNT_ASSIGN_OR_RETURN(file.tables, db.QueryInt("SELECT COUNT(*) FROM sqlite_master"),
                          Unreadable(path, _));
  if (*application_id != kApplicationId) {
    if (*application_id != 0 || file.tables > 0) {
      return NotAStore(path, "an SQLite database of another application");
    }
    if (!write) return NotAStore(path, "an empty file");
  }
  ICOUNT_ASSIGN_OR_RETURN(file.schema, db.QueryInt("PRAGMA user_version"));
  if (file.schema > kHistorySchemaVersion) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, ": the store's schema version ", file.schema, " is newer than this build reads (",
        kHistorySchemaVersion, "); use a newer icount. The file was left as it is."));
  }
  return file;
}

// A damaged page would otherwise surface in the middle of a recording.
absl::Status QuickCheck(Database& db) {
  ICOUNT_ASSIGN_OR_RETURN(Statement check, db.Prepare("PRAGMA quick_check"));
  ICOUNT_ASSIGN_OR_RETURN(bool row, check.Step(), Unreadable(db.path(), _));
  if (!row || check.Text(0) != "ok") {
    return absl::FailedPreconditionError(absl::StrCat(
        db.path(), ": the store is damaged (quick_check: ", row ? check.Text(0) : "no answer",
        "); it was left as it is. Restore it from a copy, or start a new store."));
  }
  return absl::OkStatus();
}

// The WAL journal lets readers go on while a run records; setting it is
// the first write, so a read-only file or directory fails here, before
// any run starts.
absl::Status SwitchToWal(Database& db) {
  ICOUNT_ASSIGN_OR_RETURN(Statement wal, db.Prepare("PRAGMA journal_mode=WAL"));
  ICOUNT_ASSIGN_OR_RETURN(bool row, wal.Step(),
                          absl::PermissionDeniedError(absl::StrCat(
                              _.message(), " (the store or its directory is not writable)")));
  if (!row || wal.Text(0) != "wal") {
    return absl::PermissionDeniedError(
        absl::StrCat(db.path(), ": cannot switch the store to WAL journaling (got \"",
                     row ? wal.Text(0) : "", "\"): is it or its directory read-only?"));
  }
  return absl::OkStatus();
}

// Creates the schema in a new file, or upgrades an older store's to this
// build's; inside the caller's transaction.
absl::Status CreateOrUpgradeSchema(Database& db, const StoreFile& file) {
  if (file.tables == 0) {
    ICOUNT_RETURN_IF_ERROR(db.Execute(kSchema));
    ICOUNT_RETURN_IF_ERROR(db.Execute(absl::StrCat(
        "PRAGMA application_id=", kApplicationId, ";PRAGMA user_version=", kHistorySchemaVersion)));
  } else if (file.schema < kHistorySchemaVersion) {
    std::string migration;
    // Version 1 predates heap allocations: its runs keep NULL there.
    if (file.schema < 2) migration += "ALTER TABLE counts ADD COLUMN allocations REAL;";
    // Version 2 kept functions as text alone.
    if (file.schema < 3) migration += "ALTER TABLE function_names ADD COLUMN key BLOB;";
    // Version 3 kept the toolchain only inside the settings' joined text.
    if (file.schema < 4) {
      migration += "ALTER TABLE runs ADD COLUMN toolchain TEXT NOT NULL DEFAULT '';";
    }
    ICOUNT_RETURN_IF_ERROR(
        db.Execute(absl::StrCat(migration, "PRAGMA user_version=", kHistorySchemaVersion)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Store::CheckSchema(bool write) {
  ICOUNT_ASSIGN_OR_RETURN(const StoreFile file, IdentifyStore(db_, write));
  schema_ = file.schema;
  if (!write) return absl::OkStatus();
  if (db_.ReadOnly()) {
    // SQLite opens a write-protected file read-only without a word.
    return absl::PermissionDeniedError(absl::StrCat(
        db_.path(),
        ": the store is read-only; make it writable or give --history/--db another path"));
  }
  if (file.tables > 0) ICOUNT_RETURN_IF_ERROR(QuickCheck(db_));
  ICOUNT_RETURN_IF_ERROR(SwitchToWal(db_));
  ICOUNT_ASSIGN_OR_RETURN(std::unique_ptr<Transaction> transaction, Transaction::Begin(db_),
                          absl::PermissionDeniedError(absl::StrCat(
                              _.message(), " (the store or its directory is not writable)")));
  ICOUNT_RETURN_IF_ERROR(CreateOrUpgradeSchema(db_, file));
  ICOUNT_RETURN_IF_ERROR(transaction->Commit());
  schema_ = kHistorySchemaVersion;
  return absl::OkStatus();
}

}  // namespace icount::history
