// The golden tables in testdata/*.txt are torch.utils.benchmark.Compare's
// output (python3-torch 1.13) for the measurements in testdata/*.json;
// testdata/make_goldens.py regenerates them and lists the reference calls of
// each case, which kGoldenCases below mirrors.
#include "compare/compare.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "timer/measurement.h"
#include "timer/measurement_io.h"

namespace icount::compare {
namespace {

std::string TestDataPath(const std::string& name) {
  // Under `bazel test` the runfiles tree is the working directory, but
  // TEST_SRCDIR is the documented way to reach it.
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  const std::string root =
      srcdir && workspace ? absl::StrCat(srcdir, "/", workspace, "/") : std::string();
  return absl::StrCat(root, "compare/testdata/", name);
}

std::vector<timer::Measurement> LoadMeasurements(const std::string& name) {
  absl::StatusOr<timer::ResultsFile> results = timer::ReadResultsFile(TestDataPath(name));
  EXPECT_TRUE(results.ok()) << results.status();
  return results.ok() ? results->measurements : std::vector<timer::Measurement>{};
}

std::string LoadGolden(const std::string& name) {
  absl::StatusOr<std::string> text = base::ReadFileToString(TestDataPath(name + ".txt"));
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

// The reference's Compare methods, called in order as in make_goldens.py.
enum Call { kTrim, kColumnwise, kRowwise, kWarnings };

struct GoldenCase {
  std::string golden;
  std::string input;
  std::vector<Call> calls;
};

const GoldenCase kGoldenCases[] = {
    {"mixed_plain", "mixed.json", {}},
    {"mixed_trim", "mixed.json", {kTrim}},
    {"mixed_columnwise", "mixed.json", {kColumnwise}},
    {"mixed_rowwise", "mixed.json", {kRowwise}},
    {"mixed_warnings", "mixed.json", {kWarnings}},
    {"mixed_all", "mixed.json", {kTrim, kRowwise, kWarnings}},
    {"mixed_trim_columnwise_warnings", "mixed.json", {kTrim, kColumnwise, kWarnings}},
    {"units_plain", "units.json", {}},
    {"units_trim_warnings", "units.json", {kTrim, kWarnings}},
    {"units_columnwise", "units.json", {kColumnwise}},
    {"units_rowwise_warnings", "units.json", {kRowwise, kWarnings}},
    {"fallbacks_columnwise", "fallbacks.json", {kColumnwise}},
};

class GoldenTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenTest, MatchesReferenceByteForByte) {
  const GoldenCase& c = GetParam();
  Compare compare(LoadMeasurements(c.input));
  for (Call call : c.calls) {
    switch (call) {
      case kTrim:
        compare.TrimSignificantFigures();
        break;
      case kColumnwise:
        compare.Colorize();
        break;
      case kRowwise:
        compare.Colorize(/*rowwise=*/true);
        break;
      case kWarnings:
        compare.HighlightWarnings();
        break;
    }
  }
  EXPECT_EQ(compare.Render(), LoadGolden(c.golden));
}

INSTANTIATE_TEST_SUITE_P(Reference, GoldenTest, ::testing::ValuesIn(kGoldenCases),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) {
                           return info.param.golden;
                         });

TEST(CompareTest, OptionsMatchTheReferenceSwitches) {
  Compare compare(LoadMeasurements("mixed.json"));
  CompareOptions options;
  options.trim_significant_figures = true;
  options.colorize = Colorize::kRowwise;
  options.highlight_warnings = true;
  compare.set_options(options);
  EXPECT_EQ(compare.Render(), LoadGolden("mixed_all"));
}

TEST(CompareTest, ExtendResultsRendersAllMeasurements) {
  std::vector<timer::Measurement> all = LoadMeasurements("mixed.json");
  ASSERT_GT(all.size(), 4u);
  Compare compare(std::vector<timer::Measurement>(all.begin(), all.begin() + 4));
  compare.ExtendResults(std::vector<timer::Measurement>(all.begin() + 4, all.end()));
  EXPECT_EQ(compare.Render(), LoadGolden("mixed_plain"));
}

TEST(CompareTest, PrintWritesRenderAndANewline) {
  Compare compare(LoadMeasurements("units.json"));
  ::testing::internal::CaptureStdout();
  compare.Print();
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), LoadGolden("units_plain") + "\n");
}

TEST(CompareTest, NothingToShowRendersEmpty) {
  EXPECT_EQ(Compare().Render(), "");
  timer::TaskSpec spec;
  spec.label = "add";
  spec.stmt = "x + y";
  // A measurement without times has no median; it is left out.
  EXPECT_EQ(Compare({timer::Measurement(1, {}, spec)}).Render(), "");
}

TEST(CompareTest, ZeroMedianShowsAsZeroInTheUnitOfTheOthers) {
  // The reference fails on log10(0) here.
  timer::TaskSpec spec;
  spec.label = "z";
  spec.description = "d";
  spec.sub_label = "a";
  const timer::Measurement zero(1, {0, 0}, spec);
  spec.sub_label = "b";
  const timer::Measurement two_us(1, {2e-6, 2e-6}, spec);
  Compare compare({zero, two_us});
  EXPECT_EQ(compare.Render(),
            "[----- z -----]\n"
            "         |   d \n"
            "1 threads: ----\n"
            "      a  |  0.0\n"
            "      b  |  2.0\n"
            "\n"
            "Times are in microseconds (us).\n");
  compare.TrimSignificantFigures();
  EXPECT_THAT(compare.Render(), ::testing::HasSubstr("      a  |  0\n      b  |  2\n"));
}

// main's tables: 50 blocks of 1,000 runs, 212 and 214 ns a run, support two
// figures, which the reference's 25 ns floor cuts to one.
TEST(CompareTest, TrimmingByBlocksKeepsWhatTheBlocksResolve) {
  timer::TaskSpec spec;
  spec.label = "add";
  spec.description = "C++";
  spec.sub_label = "x + y";
  std::vector<double> blocks;
  for (int i = 0; i < 50; ++i) blocks.push_back(i % 2 ? 214e-6 : 212e-6);
  Compare by_reference({timer::Measurement(1000, blocks, spec)});
  by_reference.TrimSignificantFigures();
  EXPECT_THAT(by_reference.Render(), ::testing::HasSubstr("x + y  |  200\n"));
  Compare by_blocks({timer::Measurement(1000, blocks, spec)});
  by_blocks.TrimSignificantFigures(timer::FiguresRule::kBlocks);
  EXPECT_THAT(by_blocks.Render(), ::testing::HasSubstr("x + y  |  210\n"));
}

}  // namespace
}  // namespace icount::compare
