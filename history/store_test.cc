#include "history/store.h"

#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "history/internal/sqlite.h"
#include "history/testing/fake_results.h"

namespace icount::history {
namespace {

using ::testing::ElementsAre;
using testing::FakeResults;
using testing::FakeRun;
using ::testing::HasSubstr;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = *base::MakeTemporaryDirectory("store_test"); }
  void TearDown() override { base::RemoveDirectoryTree(dir_); }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  std::string dir_;
};

FakeRun RunAt(int day) {
  FakeRun run;
  run.start_time = absl::StrFormat("2026-11-%02dT00:00:00Z", day);
  return run;
}

std::vector<double> Values(const CaseSeries& series) {
  std::vector<double> out;
  for (const SeriesPoint& p : series.points) out.push_back(p.value);
  return out;
}

TEST_F(StoreTest, RecordsRunsAndReadsThemBackAsSeries) {
  absl::StatusOr<Store> store = Store::OpenForWriting(Path("h.db"));
  ASSERT_TRUE(store.ok()) << store.status();
  RunInfo info;
  info.label = "nightly-1";
  info.source = "main";
  info.command = "main --repeats=5";
  info.kernel = "6.1.0";
  info.libtorch_version = "1.13.1";
  FakeRun first = RunAt(1);
  absl::StatusOr<int64_t> id = store->AddRun(FakeResults(first), info);
  ASSERT_TRUE(id.ok()) << id.status();
  FakeRun second = RunAt(2);
  second.count = [](int k) { return 1000.0 * (k + 1) + (k == 1 ? 30 : 0); };
  second.time = [](int k) { return 2e-6 * (k + 1); };
  info.label = "nightly-2";
  ASSERT_TRUE(store->AddRun(FakeResults(second), info).ok());

  absl::StatusOr<std::vector<RunRow>> runs = store->Runs();
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_EQ(runs->size(), 2);
  const RunRow& run = (*runs)[0];
  EXPECT_EQ(run.id, *id);
  EXPECT_EQ(run.label, "nightly-1");
  EXPECT_EQ(run.source, "main");
  EXPECT_EQ(run.host, "testhost");
  EXPECT_EQ(run.cores, 2);
  EXPECT_EQ(run.cpu_model, "Test CPU @ 1 GHz");
  EXPECT_EQ(run.kernel, "6.1.0");
  EXPECT_EQ(run.valgrind, "valgrind-3.19.0");
  EXPECT_EQ(run.libtorch_version, "1.13.1");
  EXPECT_EQ(run.versions, "timer 0.0.0-test");
  EXPECT_EQ(run.command, "main --repeats=5");
  EXPECT_EQ(run.counted_cases, 3);
  EXPECT_EQ(run.timed_cases, 3);

  absl::StatusOr<std::vector<CaseSeries>> counts = store->Series(Metric::kCounts, "case 1");
  ASSERT_TRUE(counts.ok()) << counts.status();
  ASSERT_EQ(counts->size(), 1);
  EXPECT_EQ((*counts)[0].key, "Group/case 1|Eager|Forward|C++|1");
  EXPECT_EQ((*counts)[0].label, "Group / case 1 [C++ Eager, 1T]");
  EXPECT_THAT(Values((*counts)[0]), ElementsAre(2000, 2030));
  EXPECT_EQ((*counts)[0].points[1].run_label, "nightly-2");

  absl::StatusOr<std::vector<CaseSeries>> times = store->Series(Metric::kTime, "");
  ASSERT_TRUE(times.ok());
  ASSERT_EQ(times->size(), 3);
  EXPECT_NEAR((*times)[2].points[0].value, 3e-6, 1e-12);
  EXPECT_NEAR((*times)[2].points[1].value, 6e-6, 1e-12);

  absl::StatusOr<timer::FunctionCounts> top =
      store->TopFunctions((*runs)[1].id, "Group/case 1|Eager|Forward|C++|1");
  ASSERT_TRUE(top.ok()) << top.status();
  ASSERT_EQ(top->size(), 4);
  EXPECT_EQ((*top)[0].function, timer::FunctionKey("fake.c", "grows", "/usr/lib/libfake.so"));
  EXPECT_EQ((*top)[0].count, 1030 * 100);
  EXPECT_EQ(*store->CountsNumberPerRun((*runs)[1].id, "Group/case 1|Eager|Forward|C++|1"), 100);
}

TEST_F(StoreTest, AllocationsAreASeriesWhereResultsCountedThem) {
  Store store = *Store::OpenForWriting(Path("h.db"));
  RunInfo info;
  info.label = "before allocations were counted";
  ASSERT_TRUE(store.AddRun(FakeResults(RunAt(1)), info).ok());
  FakeRun counted = RunAt(2);
  counted.allocations = [](int k) { return 4.0 + k; };
  info.label = "counted";
  ASSERT_TRUE(store.AddRun(FakeResults(counted), info).ok());
  absl::StatusOr<std::vector<CaseSeries>> allocations =
      store.Series(Metric::kAllocations, "case 1");
  ASSERT_TRUE(allocations.ok()) << allocations.status();
  ASSERT_EQ(allocations->size(), 1);
  EXPECT_THAT(Values((*allocations)[0]), ElementsAre(5));
  EXPECT_EQ((*allocations)[0].points[0].run_label, "counted");
  EXPECT_STREQ(MetricName(Metric::kAllocations), "allocations");
}

// A store of schema 1 (before allocations) is read as it is, and upgraded
// in place when opened for writing; its runs keep no allocations.
TEST_F(StoreTest, AVersionOneStoreIsReadAndUpgradedOnWrite) {
  {
    Store store = *Store::OpenForWriting(Path("h.db"));
    ASSERT_TRUE(store.AddRun(FakeResults(RunAt(1)), RunInfo{}).ok());
  }
  {
    auto db = internal::Database::Open(Path("h.db"), internal::Database::kReadWrite);
    ASSERT_TRUE(
        db->Execute("ALTER TABLE counts DROP COLUMN allocations; "
                    "ALTER TABLE function_names DROP COLUMN key; "
                    "ALTER TABLE runs DROP COLUMN toolchain; PRAGMA user_version=1")
            .ok());
  }
  {
    Store store = *Store::OpenForReading(Path("h.db"));
    EXPECT_TRUE(store.Series(Metric::kAllocations, "")->empty());
    EXPECT_EQ(store.Series(Metric::kCounts, "")->size(), 3);
  }
  Store store = *Store::OpenForWriting(Path("h.db"));
  FakeRun counted = RunAt(2);
  counted.allocations = [](int k) { return 1.0 * k; };
  ASSERT_TRUE(store.AddRun(FakeResults(counted), RunInfo{}).ok());
  absl::StatusOr<std::vector<CaseSeries>> allocations = store.Series(Metric::kAllocations, "");
  ASSERT_TRUE(allocations.ok()) << allocations.status();
  ASSERT_EQ(allocations->size(), 3);
  EXPECT_EQ((*allocations)[2].points.size(), 1);
  EXPECT_EQ(store.Series(Metric::kCounts, "")->at(0).points.size(), 2);
}

// A store of schema 2 keeps functions as text alone: read as it is, keys
// taken from their text; upgraded in place when opened for writing, where
// new functions keep their typed keys.
TEST_F(StoreTest, AVersionTwoStoreReadsFunctionsFromTheirText) {
  {
    Store store = *Store::OpenForWriting(Path("h.db"));
    ASSERT_TRUE(store.AddRun(FakeResults(RunAt(1)), RunInfo{}).ok());
  }
  {
    auto db = internal::Database::Open(Path("h.db"), internal::Database::kReadWrite);
    ASSERT_TRUE(db->Execute("ALTER TABLE function_names DROP COLUMN key; "
                            "ALTER TABLE runs DROP COLUMN toolchain; PRAGMA user_version=2")
                    .ok());
  }
  const std::string key = "Group/case 1|Eager|Forward|C++|1";
  const timer::FunctionKey grows("fake.c", "grows", "/usr/lib/libfake.so");
  {
    Store store = *Store::OpenForReading(Path("h.db"));
    const int64_t run = store.Runs()->at(0).id;
    absl::StatusOr<timer::FunctionCounts> top = store.TopFunctions(run, key);
    ASSERT_TRUE(top.ok()) << top.status();
    ASSERT_FALSE(top->rows().empty());
    EXPECT_EQ(top->rows().back().function.object(), "/usr/lib/libfake.so");
  }
  Store store = *Store::OpenForWriting(Path("h.db"));
  ASSERT_TRUE(store.AddRun(FakeResults(RunAt(2)), RunInfo{}).ok());
  absl::StatusOr<timer::FunctionCounts> top = store.TopFunctions(store.Runs()->at(1).id, key);
  ASSERT_TRUE(top.ok()) << top.status();
  EXPECT_EQ(top->rows().back().function.file(), "fake.c");
}

// A store of schema 3 kept the toolchain only in the settings' text: its
// runs read as unknown, and those recorded after the upgrade keep theirs.
TEST_F(StoreTest, AVersionThreeStoreHasNoToolchainsAndRecordsThemOnceUpgraded) {
  timer::ResultsFile first = FakeResults(RunAt(1));
  first.settings["toolchain"] = "Python 3.11.2, g++ 12.2.0, c++17";
  {
    Store store = *Store::OpenForWriting(Path("h.db"));
    ASSERT_TRUE(store.AddRun(first, RunInfo{}).ok());
    EXPECT_EQ(store.Runs()->at(0).toolchain, "Python 3.11.2, g++ 12.2.0, c++17");
  }
  {
    auto db = internal::Database::Open(Path("h.db"), internal::Database::kReadWrite);
    ASSERT_TRUE(db->Execute("ALTER TABLE runs DROP COLUMN toolchain; PRAGMA user_version=3").ok());
  }
  {
    Store store = *Store::OpenForReading(Path("h.db"));
    absl::StatusOr<std::vector<RunRow>> runs = store.Runs();
    ASSERT_TRUE(runs.ok()) << runs.status();
    EXPECT_EQ(runs->at(0).toolchain, "");
  }
  Store store = *Store::OpenForWriting(Path("h.db"));
  timer::ResultsFile second = FakeResults(RunAt(2));
  second.settings["toolchain"] = "Python 3.13.5, c++ 14.2.0, c++17";
  ASSERT_TRUE(store.AddRun(second, RunInfo{}).ok());
  absl::StatusOr<std::vector<RunRow>> runs = store.Runs();
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_EQ(runs->size(), 2);
  EXPECT_EQ(runs->at(0).toolchain, "");
  EXPECT_EQ(runs->at(1).toolchain, "Python 3.13.5, c++ 14.2.0, c++17");
}

TEST(NanosecondsTest, RoundTripsToTheNanosecondInAThirdOfTheSpace) {
  const std::vector<double> seconds = {0.006328215000394266, 0.006424647999665467, 1e-9, 0,
                                       2.5, 0.0063};
  const std::string bytes = EncodeNanoseconds(seconds);
  EXPECT_LT(bytes.size(), seconds.size() * 8 / 2);
  const std::vector<double> back = DecodeNanoseconds(bytes);
  ASSERT_EQ(back.size(), seconds.size());
  for (size_t i = 0; i < seconds.size(); ++i) EXPECT_NEAR(back[i], seconds[i], 0.5e-9) << i;
  EXPECT_EQ(back[1], 6424648 / 1e9);
  EXPECT_TRUE(DecodeNanoseconds("").empty());
}

TEST_F(StoreTest, RunsAreOrderedByStartTimeAndSinceCutsTheSeries) {
  Store store = *Store::OpenForWriting(Path("h.db"));
  for (int day : {3, 1, 2}) {  // imported out of order
    RunInfo info;
    info.label = absl::StrCat("day", day);
    FakeRun run = RunAt(day);
    run.count = [day](int k) { return 100.0 * day; };
    ASSERT_TRUE(store.AddRun(FakeResults(run), info).ok());
  }
  std::vector<CaseSeries> all = *store.Series(Metric::kCounts, "case 0");
  EXPECT_THAT(Values(all[0]), ElementsAre(100, 200, 300));
  std::vector<CaseSeries> since = *store.Series(Metric::kCounts, "case 0", "day2");
  EXPECT_THAT(Values(since[0]), ElementsAre(200, 300));
  EXPECT_EQ(store.Series(Metric::kCounts, "", "day9").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store.Series(Metric::kCounts, "(").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(store.Series(Metric::kCounts, "no such case")->empty());
}

TEST_F(StoreTest, TheSameRunTwiceIsRefusedAndNothingChanges) {
  Store store = *Store::OpenForWriting(Path("h.db"));
  RunInfo info;
  info.label = "a";
  ASSERT_TRUE(store.AddRun(FakeResults(RunAt(1)), info).ok());
  info.label = "b";
  absl::StatusOr<int64_t> again = store.AddRun(FakeResults(RunAt(1)), info);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(again.status().message(), HasSubstr("already in the store as run 1 (label \"a\""));
  EXPECT_EQ(store.Runs()->size(), 1);
}

TEST_F(StoreTest, EmptyResultsAreRefused) {
  Store store = *Store::OpenForWriting(Path("h.db"));
  EXPECT_EQ(store.AddRun(timer::ResultsFile(), RunInfo()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(StoreTest, TwoWritersAtOnceBothLand) {
  ASSERT_TRUE(Store::OpenForWriting(Path("h.db")).ok());
  std::vector<absl::Status> outcomes(2);
  std::vector<std::thread> writers;
  for (int w = 0; w < 2; ++w) {
    writers.emplace_back([&, w] {
      absl::StatusOr<Store> store = Store::OpenForWriting(Path("h.db"));
      if (!store.ok()) {
        outcomes[w] = store.status();
        return;
      }
      for (int r = 0; r < 5 && outcomes[w].ok(); ++r) {
        FakeRun run = RunAt(1 + 10 * w + r);
        run.cases = 200;
        RunInfo info;
        info.label = absl::StrCat("writer", w, "-", r);
        outcomes[w] = store->AddRun(FakeResults(run), info).status();
      }
    });
  }
  for (std::thread& t : writers) t.join();
  EXPECT_TRUE(outcomes[0].ok()) << outcomes[0];
  EXPECT_TRUE(outcomes[1].ok()) << outcomes[1];
  EXPECT_EQ(Store::OpenForReading(Path("h.db"))->Runs()->size(), 10);
}

TEST_F(StoreTest, TwoProcessesAtOnceBothLand) {
  // Across processes SQLite locks with fcntl, not with its in-process table:
  // two recording processes, as two CI jobs on one machine would be.
  ASSERT_TRUE(Store::OpenForWriting(Path("h.db")).ok());
  std::vector<pid_t> children;
  for (int w = 0; w < 2; ++w) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      absl::StatusOr<Store> store = Store::OpenForWriting(Path("h.db"));
      if (!store.ok()) _exit(2);
      for (int r = 0; r < 5; ++r) {
        FakeRun run = RunAt(1 + 10 * w + r);
        run.cases = 200;
        if (!store->AddRun(FakeResults(run), RunInfo()).ok()) _exit(3);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  EXPECT_EQ(Store::OpenForReading(Path("h.db"))->Runs()->size(), 10);
}

// Every refusal leaves the file byte for byte as it was.
class RefusedFileTest : public StoreTest {
 protected:
  void ExpectRefused(const std::string& path, absl::StatusCode code, const std::string& message) {
    const std::string before = *base::ReadFileToString(path);
    for (bool write : {true, false}) {
      absl::StatusOr<Store> store =
          write ? Store::OpenForWriting(path) : Store::OpenForReading(path);
      EXPECT_EQ(store.status().code(), code) << store.status();
      EXPECT_THAT(store.status().message(), HasSubstr(message));
      EXPECT_THAT(store.status().message(), HasSubstr(path));
    }
    EXPECT_EQ(*base::ReadFileToString(path), before);
    EXPECT_FALSE(base::ReadFileToString(path + "-wal").ok());
  }
};

TEST_F(RefusedFileTest, AFileThatIsNotADatabase) {
  ASSERT_TRUE(base::WriteFileAtomically(Path("notes.txt"), std::string(8192, 'x')).ok());
  ExpectRefused(Path("notes.txt"), absl::StatusCode::kFailedPrecondition,
                "not an icount history store");
}

TEST_F(RefusedFileTest, AnotherApplicationsDatabase) {
  {
    auto db = internal::Database::Open(Path("other.db"), internal::Database::kCreate);
    ASSERT_TRUE(db->Execute("CREATE TABLE mine(x)").ok());
  }
  ExpectRefused(Path("other.db"), absl::StatusCode::kFailedPrecondition, "another application");
}

TEST_F(RefusedFileTest, ANewerSchema) {
  ASSERT_TRUE(Store::OpenForWriting(Path("h.db")).ok());
  {
    auto db = internal::Database::Open(Path("h.db"), internal::Database::kReadWrite);
    ASSERT_TRUE(db->Execute("PRAGMA journal_mode=DELETE; PRAGMA user_version=99").ok());
  }
  ExpectRefused(Path("h.db"), absl::StatusCode::kFailedPrecondition,
                "schema version 99 is newer than this build reads (4)");
}

TEST_F(RefusedFileTest, ADamagedStore) {
  {
    {
      Store store = *Store::OpenForWriting(Path("h.db"));
      FakeRun run = RunAt(1);
      run.cases = 300;
      ASSERT_TRUE(store.AddRun(FakeResults(run), RunInfo()).ok());
    }
    auto db = internal::Database::Open(Path("h.db"), internal::Database::kReadWrite);
    ASSERT_TRUE(db->Execute("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE").ok());
  }
  std::string bytes = *base::ReadFileToString(Path("h.db"));
  ASSERT_GT(bytes.size(), 5 * 4096);
  for (size_t i = 3 * 4096; i < 4 * 4096; ++i) bytes[i] = static_cast<char>(0x5a);
  ASSERT_TRUE(base::WriteFileAtomically(Path("h.db"), bytes).ok());
  const std::string before = bytes;
  absl::StatusOr<Store> store = Store::OpenForWriting(Path("h.db"));
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition) << store.status();
  EXPECT_EQ(*base::ReadFileToString(Path("h.db")), before);
}

TEST_F(StoreTest, ReadingAMissingStoreCreatesNothing) {
  absl::StatusOr<Store> store = Store::OpenForReading(Path("missing.db"));
  EXPECT_EQ(store.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(store.status().message(), HasSubstr("record runs into it first"));
  EXPECT_FALSE(base::ReadFileToString(Path("missing.db")).ok());
}

TEST_F(StoreTest, ADirectoryIsNoStore) {
  ASSERT_TRUE(base::MakeDirectories(Path("dir")).ok());
  for (bool write : {false, true}) {
    absl::StatusOr<Store> store =
        write ? Store::OpenForWriting(Path("dir")) : Store::OpenForReading(Path("dir"));
    EXPECT_EQ(store.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(store.status().message(),
              absl::StrCat(Path("dir"), ": is a directory; name the history store's file (e.g. ",
                           Path("dir"), "/history.db)"));
  }
}

TEST_F(StoreTest, AnUnwritablePathFailsAtOpen) {
  // Tests run as root here, so file modes do not stop writes; a directory
  // that does not exist, and a path inside /proc, do.
  absl::StatusOr<Store> store = Store::OpenForWriting(Path("no/such/dir/h.db"));
  EXPECT_FALSE(store.ok());
  EXPECT_THAT(store.status().message(), HasSubstr(Path("no/such/dir/h.db")));
  EXPECT_THAT(store.status().message(), HasSubstr("writable"));
  EXPECT_FALSE(Store::OpenForWriting("/proc/icount-history-test.db").ok());
}

}  // namespace
}  // namespace icount::history
