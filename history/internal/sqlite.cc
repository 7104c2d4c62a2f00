#include "history/internal/sqlite.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace icount::history::internal {
namespace {

// A locked or busy database after the busy timeout is a condition of the
// moment (Unavailable); a file that is not a database or is damaged is a
// FailedPrecondition; a read-only file or directory is PermissionDenied.
absl::StatusCode CodeOf(int sqlite_code) {
  switch (sqlite_code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return absl::StatusCode::kUnavailable;
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_CANTOPEN:
      return absl::StatusCode::kPermissionDenied;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return absl::StatusCode::kFailedPrecondition;
    default:
      return absl::StatusCode::kInternal;
  }
}

absl::Status ErrorOf(sqlite3* db, const std::string& path, absl::string_view doing) {
  const int code = sqlite3_extended_errcode(db);
  return absl::Status(CodeOf(code), absl::StrCat(path, ": ", doing, ": ", sqlite3_errmsg(db)));
}

}  // namespace

Statement& Statement::Bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_.get(), index, value);
  return *this;
}
Statement& Statement::Bind(int index, double value) {
  sqlite3_bind_double(stmt_.get(), index, value);
  return *this;
}
Statement& Statement::Bind(int index, absl::string_view text) {
  sqlite3_bind_text(stmt_.get(), index, text.data(), static_cast<int>(text.size()),
                    SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::BindBlob(int index, absl::string_view bytes) {
  sqlite3_bind_blob(stmt_.get(), index, bytes.data(), static_cast<int>(bytes.size()),
                    SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::BindNull(int index) {
  sqlite3_bind_null(stmt_.get(), index);
  return *this;
}

absl::StatusOr<bool> Statement::Step() {
  const int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return ErrorOf(sqlite3_db_handle(stmt_.get()), where_,
                 absl::StrCat("running \"", sqlite3_sql(stmt_.get()), "\""));
}

absl::Status Statement::Run() {
  while (true) {
    absl::StatusOr<bool> row = Step();
    if (!row.ok()) {
      Reset();
      return row.status();
    }
    if (!*row) break;
  }
  Reset();
  return absl::OkStatus();
}

void Statement::Reset() {
  sqlite3_reset(stmt_.get());
  sqlite3_clear_bindings(stmt_.get());
}

int64_t Statement::Int(int column) const { return sqlite3_column_int64(stmt_.get(), column); }
double Statement::Double(int column) const { return sqlite3_column_double(stmt_.get(), column); }
std::string Statement::Text(int column) const {
  const void* data = sqlite3_column_blob(stmt_.get(), column);
  const int size = sqlite3_column_bytes(stmt_.get(), column);
  return data ? std::string(static_cast<const char*>(data), size) : std::string();
}

absl::StatusOr<Database> Database::Open(const std::string& path, Mode mode, int busy_timeout_ms) {
  int flags = SQLITE_OPEN_NOMUTEX;  // one connection per thread
  switch (mode) {
    case kReadOnly:
      flags |= SQLITE_OPEN_READONLY;
      break;
    case kReadWrite:
      flags |= SQLITE_OPEN_READWRITE;
      break;
    case kCreate:
      flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
      break;
  }
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Database db(raw, path);
  if (rc != SQLITE_OK) {
    if (raw == nullptr) return absl::ResourceExhaustedError(path + ": out of memory opening it");
    return ErrorOf(raw, path, "cannot open");
  }
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, busy_timeout_ms);
  return db;
}

absl::StatusOr<Statement> Database::Prepare(absl::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_.get(), sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) !=
      SQLITE_OK) {
    return Error(absl::StrCat("preparing \"", sql, "\""));
  }
  return Statement(stmt, path_);
}

absl::Status Database::Execute(absl::string_view sql) {
  const std::string text(sql);
  if (sqlite3_exec(db_.get(), text.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    return Error(absl::StrCat("running \"", sql, "\""));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> Database::QueryInt(absl::string_view sql) {
  absl::StatusOr<Statement> stmt = Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) return absl::NotFoundError(absl::StrCat(path_, ": \"", sql, "\" returned no row"));
  return stmt->Int(0);
}

int64_t Database::LastInsertRowId() const { return sqlite3_last_insert_rowid(db_.get()); }

bool Database::ReadOnly() const { return sqlite3_db_readonly(db_.get(), "main") == 1; }

absl::Status Database::Error(absl::string_view doing) const {
  return ErrorOf(db_.get(), path_, doing);
}

}  // namespace icount::history::internal
