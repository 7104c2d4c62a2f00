#include "worker/internal/journal.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::worker::internal {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
}

WorkOrderProto Order(const std::string& id, double timeout) {
  WorkOrderProto order;
  order.set_id(id);
  order.set_callgrind(true);
  order.set_timeout_seconds(timeout);
  return order;
}

TEST(JournalTest, ChecksumIgnoresOrderAndTimeouts) {
  EXPECT_EQ(OrdersChecksum({Order("a", 1), Order("b", 2)}),
            OrdersChecksum({Order("b", 60), Order("a", 0)}));
  EXPECT_NE(OrdersChecksum({Order("a", 1)}), OrdersChecksum({Order("a", 1), Order("b", 1)}));
}

TEST(JournalTest, ResultsComeBackAsWritten) {
  const std::string path = TempPath("round_trip.journal");
  ASSERT_TRUE(StartJournal(path, "abc").ok());
  WorkerResultProto result;
  result.set_id("x#counts");
  result.mutable_failure()->set_kind(FAILURE_TIMEOUT);
  result.mutable_failure()->set_reason("timed out after 1 s");
  ASSERT_TRUE(AppendToJournal(path, result).ok());
  absl::StatusOr<Journal> journal = ParseJournal(path);
  ASSERT_TRUE(journal.ok()) << journal.status();
  EXPECT_EQ(journal->checksum, "abc");
  ASSERT_EQ(journal->results.size(), 1u);
  EXPECT_EQ(journal->results[0].SerializeAsString(), result.SerializeAsString());
}

TEST(JournalTest, TheHeaderIsOneJsonLineWithFormatAndChecksum) {
  const std::string path = TempPath("header.journal");
  ASSERT_TRUE(StartJournal(path, "5f3a").ok());
  absl::StatusOr<std::string> text = base::ReadFileToString(path);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "{\"icount_journal\":2,\"orders_checksum\":\"5f3a\"}\n");
}

TEST(JournalTest, AnotherFormatIsRefusedWithWhatToDo) {
  const std::string path = TempPath("format1.journal");
  ASSERT_TRUE(base::WriteFileAtomically(path,
                                        "{\"icount_journal\":1,\"orders_checksum\":\"00\"}\n"
                                        "{\"id\":\"a\",\"failure\":{\"kind\":\"crash\"}}\n")
                  .ok());
  absl::StatusOr<Journal> journal = ParseJournal(path);
  ASSERT_FALSE(journal.ok());
  EXPECT_THAT(std::string(journal.status().message()),
              HasSubstr("format1.journal:1: written by another version of icount (journal "
                        "format 1, this one reads 2)"));
}

TEST(JournalTest, NotAJournal) {
  const std::string path = TempPath("other.json");
  ASSERT_TRUE(base::WriteFileAtomically(path, "{\"measurements\": []}\n").ok());
  absl::StatusOr<Journal> journal = ParseJournal(path);
  ASSERT_FALSE(journal.ok());
  EXPECT_THAT(std::string(journal.status().message()),
              HasSubstr("other.json:1: not an icount results journal"));
}

TEST(JournalTest, ACutOffLastLineIsReportedAndDropped) {
  const std::string path = TempPath("cut.journal");
  ASSERT_TRUE(StartJournal(path, "abc").ok());
  WorkerResultProto result;
  result.set_id("kept");
  ASSERT_TRUE(AppendToJournal(path, result).ok());
  const std::string whole = *base::ReadFileToString(path);
  ASSERT_TRUE(base::WriteFileAtomically(path, whole + "{\"id\":\"lost\",\"outp").ok());
  absl::StatusOr<Journal> journal = ParseJournal(path);
  ASSERT_TRUE(journal.ok()) << journal.status();
  EXPECT_TRUE(journal->cut_off);
  ASSERT_EQ(journal->results.size(), 1u);
  EXPECT_EQ(journal->results[0].id(), "kept");
  ASSERT_TRUE(DropCutOffLine(path, *journal).ok());
  EXPECT_EQ(*base::ReadFileToString(path), whole);
}

TEST(JournalTest, OneRunHoldsTheLock) {
  const std::string path = TempPath("locked.journal");
  EXPECT_TRUE(CheckJournalNotInUse(path).ok());
  {
    absl::StatusOr<JournalLock> lock = JournalLock::Acquire(path);
    ASSERT_TRUE(lock.ok()) << lock.status();
    // flock is per open file: a second open in this process conflicts too.
    absl::StatusOr<JournalLock> second = JournalLock::Acquire(path);
    ASSERT_FALSE(second.ok());
    EXPECT_THAT(
        std::string(second.status().message()),
        HasSubstr(absl::StrCat("being written by another icount run (pid ", getpid(), ")")));
    EXPECT_FALSE(CheckJournalNotInUse(path).ok());
  }
  EXPECT_TRUE(CheckJournalNotInUse(path).ok());
  EXPECT_TRUE(JournalLock::Acquire(path).ok());
}

}  // namespace
}  // namespace icount::worker::internal
