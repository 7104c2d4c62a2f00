// Proves SQLite links from Debian's libsqlite3-dev, with the features
// //history relies on (a thread-safe build).
#include <sqlite3.h>

#include "gtest/gtest.h"

namespace {

TEST(SqliteTest, RoundTripsARowInMemory) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (42);", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT x FROM t", -1, &stmt, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(stmt, 0), 42);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

TEST(SqliteTest, IsThreadSafe) {
  // Two connections of one process may write the same store from two
  // threads (serialized or multi-thread mode, not single-thread).
  EXPECT_NE(sqlite3_threadsafe(), 0);
  EXPECT_GE(sqlite3_libversion_number(), 3022000);  // WAL on a read-only dir needs >= 3.22
}

}  // namespace
