#include "history/internal/sqlite.h"

#include <string>

#include "base/files.h"
#include "gtest/gtest.h"

namespace icount::history::internal {
namespace {

TEST(DatabaseTest, BindsStepsAndReadsEveryType) {
  absl::StatusOr<Database> db = Database::Open(":memory:", Database::kCreate);
  ASSERT_TRUE(db.ok()) << db.status();
  ASSERT_TRUE(db->Execute("CREATE TABLE t(i INTEGER, d REAL, s TEXT, b BLOB, n TEXT)").ok());
  absl::StatusOr<Statement> insert = db->Prepare("INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5)");
  ASSERT_TRUE(insert.ok()) << insert.status();
  const std::string blob("a\0b", 3);
  insert->Bind(1, int64_t{1} << 40).Bind(2, 0.25).Bind(3, "text").BindBlob(4, blob).BindNull(5);
  ASSERT_TRUE(insert->Run().ok());
  EXPECT_EQ(db->LastInsertRowId(), 1);
  absl::StatusOr<Statement> select = db->Prepare("SELECT i, d, s, b, n IS NULL FROM t");
  ASSERT_TRUE(select.ok());
  absl::StatusOr<bool> row = select->Step();
  ASSERT_TRUE(row.ok() && *row);
  EXPECT_EQ(select->Int(0), int64_t{1} << 40);
  EXPECT_EQ(select->Double(1), 0.25);
  EXPECT_EQ(select->Text(2), "text");
  EXPECT_EQ(select->Text(3), blob);
  EXPECT_EQ(select->Int(4), 1);  // bound NULL
  row = select->Step();
  ASSERT_TRUE(row.ok());
  EXPECT_FALSE(*row);
  EXPECT_EQ(*db->QueryInt("SELECT COUNT(*) FROM t"), 1);
}

TEST(DatabaseTest, ErrorsNameTheFileAndWhatWasDone) {
  absl::StatusOr<Database> db = Database::Open(":memory:", Database::kCreate);
  ASSERT_TRUE(db.ok());
  absl::Status status = db->Execute("SELEKT 1");
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_NE(status.message().find(":memory:: running \"SELEKT 1\": "), std::string::npos) << status;
  EXPECT_FALSE(db->Prepare("SELECT * FROM missing").ok());
}

TEST(DatabaseTest, OpeningAMissingFileWithoutCreateFails) {
  const std::string dir = *base::MakeTemporaryDirectory("sqlite_test");
  const std::string path = dir + "/missing.db";
  absl::StatusOr<Database> db = Database::Open(path, Database::kReadOnly);
  EXPECT_EQ(db.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(db.status().message().find(path), std::string::npos);
  EXPECT_FALSE(base::ReadFileToString(path).ok()) << "nothing may be created";
  base::RemoveDirectoryTree(dir);
}

}  // namespace
}  // namespace icount::history::internal
