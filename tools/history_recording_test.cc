#include "tools/history_recording.h"

#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "history/store.h"
#include "timer/measurement_io.h"

namespace icount::tools {
namespace {

using ::testing::EndsWith;

timer::ResultsFile OneCount() {
  return timer::ParseResultsJson(
             R"({"schema_version": 1, "start_time": "2026-01-01T00:00:00Z",
                 "end_time": "2026-01-01T00:01:00Z",
                 "instruction_counts": [{"stmt": "x", "number_per_run": 1, "counts": ["5"],
                                         "counts_per_run": 5}]})",
             "one.json")
      .value();
}

class RecordHistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = base::MakeTemporaryDirectory("history").value() + "/h.db";
    absl::SetFlag(&FLAGS_history, db_);
  }
  void TearDown() override { absl::SetFlag(&FLAGS_history_label, ""); }
  std::string db_;
};

// A side's run that cannot be recorded says how to import the A/B file
// later: with the label the run was given, which import completes with
// each side's name.
TEST_F(RecordHistoryTest, AFailedSideSaysHowToImportTheFileLater) {
  absl::SetFlag(&FLAGS_history_label, "nightly");
  history::Store store = OpenHistoryFlags().value().value();
  const timer::ResultsFile results = OneCount();
  ASSERT_TRUE(RecordHistory(store, results, "ab_test B", "B", nullptr, "/r/ab.json").ok());
  const absl::Status again = RecordHistory(store, results, "ab_test B", "B", nullptr, "/r/ab.json");
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(again.message()),
              EndsWith(absl::StrCat("(the results are in /r/ab.json; `history --db=", db_,
                                    " import /r/ab.json --label=\"nightly\"` records them later, "
                                    "each side as its own run)")));
}

TEST_F(RecordHistoryTest, AFailedRunSaysHowToImportItsResultsLater) {
  history::Store store = OpenHistoryFlags().value().value();
  const timer::ResultsFile results = OneCount();
  ASSERT_TRUE(RecordHistory(store, results, "main", "", nullptr, "/r/run.json").ok());
  const absl::Status again = RecordHistory(store, results, "main", "", nullptr, "/r/run.json");
  EXPECT_THAT(std::string(again.message()),
              EndsWith(absl::StrCat("(the results are in /r/run.json; `history --db=", db_,
                                    " import /r/run.json --label=\"2026-01-01T00:00:00Z\"` records "
                                    "them later)")));
}

TEST_F(RecordHistoryTest, ALabelNeedsAStore) {
  absl::SetFlag(&FLAGS_history, "");
  absl::SetFlag(&FLAGS_history_label, "nightly");
  EXPECT_EQ(OpenHistoryFlags().status().message(),
            "--history_label names the run in a --history store: give --history=DB too, or "
            "drop it");
}

}  // namespace
}  // namespace icount::tools
