#ifndef ICOUNT_HISTORY_INTERNAL_SQLITE_H_
#define ICOUNT_HISTORY_INTERNAL_SQLITE_H_

// A thin RAII layer over SQLite's C API for //history: every error comes
// back as an absl::Status that names the database file and what was being
// done, so nothing above it sees an SQLite return code.
//
//   ICOUNT_ASSIGN_OR_RETURN(Database db, Database::Open(path, Database::kReadWrite));
//   ICOUNT_ASSIGN_OR_RETURN(Statement insert, db.Prepare("INSERT INTO t VALUES (?1)"));
//   insert.Bind(1, int64_t{42});
//   ICOUNT_RETURN_IF_ERROR(insert.Run());

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace icount::history::internal {

class Statement {
 public:
  Statement(Statement&&) noexcept = default;
  Statement& operator=(Statement&&) noexcept = default;

  // Parameters are numbered from 1, as in SQL's ?1.
  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, double value);
  Statement& Bind(int index, absl::string_view text);
  Statement& BindBlob(int index, absl::string_view bytes);
  Statement& BindNull(int index);

  // Advances: true with a row to read, false when done.
  absl::StatusOr<bool> Step();
  // Steps until done (for statements that return no rows).
  absl::Status Run();
  // Back to the start with the bindings cleared, for the next row.
  void Reset();

  int64_t Int(int column) const;
  double Double(int column) const;
  std::string Text(int column) const;  // also blobs, byte for byte

 private:
  friend class Database;
  Statement(sqlite3_stmt* stmt, std::string where) : stmt_(stmt), where_(std::move(where)) {}
  struct Finalizer {
    void operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }
  };
  std::unique_ptr<sqlite3_stmt, Finalizer> stmt_;
  std::string where_;  // the database path, for messages
};

class Database {
 public:
  enum Mode {
    kReadOnly,   // the file must exist; nothing is ever written
    kReadWrite,  // the file must exist
    kCreate,     // read-write, created when missing
  };
  // Opens `path`, waiting up to `busy_timeout_ms` whenever another
  // connection holds a lock (two runs recording at once).
  static absl::StatusOr<Database> Open(const std::string& path, Mode mode,
                                       int busy_timeout_ms = 60000);

  Database(Database&&) noexcept = default;
  Database& operator=(Database&&) noexcept = default;

  const std::string& path() const { return path_; }

  absl::StatusOr<Statement> Prepare(absl::string_view sql);
  // Runs one or more statements that return no rows.
  absl::Status Execute(absl::string_view sql);
  // The first column of the first row of `sql` (a PRAGMA, a COUNT(*)).
  absl::StatusOr<int64_t> QueryInt(absl::string_view sql);
  int64_t LastInsertRowId() const;
  // True when the file could only be opened for reading (SQLite falls back
  // to that silently for a write-protected file).
  bool ReadOnly() const;

  // The error of the last call on this connection as a Status of `code`,
  // "PATH: DOING: sqlite's message".
  absl::Status Error(absl::string_view doing) const;

 private:
  Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  struct Closer {
    void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
  };
  std::unique_ptr<sqlite3, Closer> db_;
  std::string path_;
};

}  // namespace icount::history::internal

#endif  // ICOUNT_HISTORY_INTERNAL_SQLITE_H_
