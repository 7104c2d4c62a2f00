#include "history/import.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/proto_json.h"
#include "compare/comparison_file.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "history/testing/fake_results.h"

namespace icount::history {
namespace {

using ::testing::HasSubstr;

// `contents` in a new file of the test's temporary directory.
std::string FileWith(const std::string& name, const std::string& contents) {
  const std::string path =
      absl::StrCat(base::MakeTemporaryDirectory("import-test").value(), "/", name);
  EXPECT_TRUE(base::WriteFileAtomically(path, contents).ok());
  return path;
}

TEST(ReadRunsToImportTest, AResultsFileIsOneRun) {
  const std::string path = FileWith("run.json", timer::ResultsToJson(testing::FakeResults({})));
  absl::StatusOr<std::vector<ImportedRun>> runs = ReadRunsToImport(path);
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].info.source, "import");
  EXPECT_EQ((*runs)[0].info.command, path);
  EXPECT_EQ((*runs)[0].label_suffix, "");
  EXPECT_EQ((*runs)[0].results.instruction_counts.size(), 3u);
}

// As ab_test writes it: compare's AbTestFileProto with every field printed.
TEST(ReadRunsToImportTest, AnAbTestFileIsARunPerSide) {
  testing::FakeRun b_run;
  b_run.count = [](int k) { return 2000.0 * (k + 1); };
  compare::AbTestFileProto file;
  *file.mutable_a() = timer::ResultsToProto(testing::FakeResults({}));
  *file.mutable_b() = timer::ResultsToProto(testing::FakeResults(b_run));
  file.mutable_libtorch()->mutable_a()->set_version("1.13.1");
  file.mutable_libtorch()->mutable_b()->set_version("2.11.0");
  file.add_comparisons()->set_case_("ignored");
  const std::string path = FileWith("ab.json", base::ProtoToJsonAllFields(file) + "\n");
  absl::StatusOr<std::vector<ImportedRun>> runs = ReadRunsToImport(path);
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].info.side, "A");
  EXPECT_EQ((*runs)[0].label_suffix, " A");
  EXPECT_EQ((*runs)[0].info.libtorch_version, "1.13.1");
  EXPECT_EQ((*runs)[1].info.side, "B");
  EXPECT_EQ((*runs)[1].info.libtorch_version, "2.11.0");
  EXPECT_EQ((*runs)[1].info.source, "import (ab_test B)");
  ASSERT_EQ((*runs)[1].results.instruction_counts.size(), 3u);
  EXPECT_EQ((*runs)[1].results.instruction_counts[0].counts_per_run, 2000.0);
}

// Files of earlier versions wrote null for what was not measured, and
// members this version does not know; their runs are not lost.
TEST(ReadRunsToImportTest, OlderAbTestFilesStillImport) {
  const std::string side = timer::ResultsToJson(testing::FakeResults({}));
  const std::string path = FileWith(
      "old.json",
      absl::StrCat(
          "{\"A\": ", side, ", \"B\": ", side,
          ", \"libtorch\": {\"A\": {\"version\": \"1.13.1\", \"source\": \"at::show_config()\"}, "
          "\"B\": {\"version\": \"1.13.1\", \"source\": \"at::show_config()\"}}, "
          "\"comparisons\": [{\"case\": \"k\", \"counts_delta_pct\": 0, \"allocations_delta\": "
          "null, \"time_delta_pct\": null, \"time_ci_pct\": null, \"time_significant\": false}], "
          "\"summary\": {\"instructions\": {\"cases\": 0, \"geomean_change_pct\": null, "
          "\"ci_pct\": null, \"up\": 0}}, \"skipped_by_backtesting\": [], \"node_warnings\": [], "
          "\"a_member_of_a_later_version\": 1}\n"));
  absl::StatusOr<std::vector<ImportedRun>> runs = ReadRunsToImport(path);
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[1].info.libtorch_version, "1.13.1");
  EXPECT_EQ((*runs)[1].results.instruction_counts.size(), 3u);
}

// As ab_test --sides writes it: a run per side, labelled with its name.
TEST(ReadRunsToImportTest, AnAbTestSidesFileIsARunPerSide) {
  compare::AbTestSidesFileProto file;
  for (const char* name : {"bookworm", "trixie", "sid"}) {
    compare::AbTestSideProto* side = file.add_sides();
    side->set_name(name);
    side->mutable_libtorch()->set_version(absl::StrCat(name, "'s torch"));
    *side->mutable_results() = timer::ResultsToProto(testing::FakeResults({}));
  }
  const std::string path = FileWith("sides.json", base::ProtoToJsonAllFields(file) + "\n");
  absl::StatusOr<std::vector<ImportedRun>> runs = ReadRunsToImport(path);
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_EQ(runs->size(), 3u);
  EXPECT_EQ((*runs)[2].info.side, "sid");
  EXPECT_EQ((*runs)[2].label_suffix, " sid");
  EXPECT_EQ((*runs)[2].info.libtorch_version, "sid's torch");
  EXPECT_EQ((*runs)[2].info.source, "import (ab_test --sides sid)");
  EXPECT_EQ((*runs)[2].results.instruction_counts.size(), 3u);
}

TEST(ReadRunsToImportTest, OtherFilesAreRefusedSayingWhatIsRead) {
  absl::StatusOr<std::vector<ImportedRun>> runs =
      ReadRunsToImport(FileWith("other.json", "{\"sides\": []}\n"));
  ASSERT_FALSE(runs.ok());
  EXPECT_EQ(runs.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(runs.status().message(),
              HasSubstr("(results files of main, ci, timeit, merge_results and the library, and "
                        "ab_test's --json files, are read)"));
}

}  // namespace
}  // namespace icount::history
