// Expected tables are written out in full: they are icount's own format
// (there is no reference to derive them from), checked by hand when they
// were written: e.g. (79,088 - 80,112) / 80,112 = -1.28%; the Python Eager
// medians are 1.04 and 1.54 us (+48.1%) with disjoint interquartile ranges
// (1.015 to 1.07 us, 1.515 to 1.57 us), while the C++ Eager ranges overlap
// (1.015 to 1.07 us, 1.0275 to 1.0825 us), so that change is noise.
#include "compare/delta_table.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "timer/measurement.h"

namespace icount::compare {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

timer::Measurement Times(std::vector<double> per_run_us) {
  std::vector<double> raw;
  for (double us : per_run_us) raw.push_back(us * 1e-6 * 100);
  timer::TaskSpec spec;
  spec.stmt = "x";
  return timer::Measurement(/*number_per_run=*/100, raw, spec);
}

// The suite's columns in reading order: Python before C++, eager before
// TorchScript.
std::vector<std::string> SuiteColumns() {
  return {DeltaColumn(timer::Language::kPython, "Eager"),
          DeltaColumn(timer::Language::kPython, "TorchScript"),
          DeltaColumn(timer::Language::kCpp, "Eager"),
          DeltaColumn(timer::Language::kCpp, "TorchScript")};
}

// Every kind of cell: equal, changed by each colour band, fractional counts,
// one-sided, wall times with and without noise, several threads and autograd
// modes, a row without autograd, and columns added out of display order.
DeltaTable Example() {
  DeltaTable table("Instruction counts per run", SuiteColumns());
  const std::string py = DeltaColumn(timer::Language::kPython, "Eager");
  const std::string py_ts = DeltaColumn(timer::Language::kPython, "TorchScript");
  const std::string cpp = DeltaColumn(timer::Language::kCpp, "Eager");
  const std::vector<std::string> add = {"Pointwise", "Math", "add"};
  DeltaValues& cpp_add = table.Entry({add, 1, "Forward", cpp});
  cpp_add.a_instructions = 4981;
  cpp_add.b_instructions = 5093;
  DeltaValues& py_add = table.Entry({add, 1, "Forward", py});
  py_add.a_instructions = 25430;
  py_add.b_instructions = 25430;
  DeltaValues& py_add_backward = table.Entry({add, 1, "Forward + Backward", py});
  py_add_backward.a_instructions = 80112;
  py_add_backward.b_instructions = 79088;
  table.Entry({{"Pointwise", "Math", "mul"}, 1, "Forward", py}).b_instructions = 26001;
  DeltaValues& py_add_4 = table.Entry({add, 4, "Forward", py});
  py_add_4.a_instructions = 1000;
  py_add_4.b_instructions = 2100.5;
  DeltaValues& py_ts_add = table.Entry({add, 1, "Forward", py_ts});
  py_ts_add.a_instructions = 1234567;
  py_ts_add.b_instructions = 1234567.3;
  table.Entry({{"Indexing", "select"}, 1, "", cpp}).a_instructions = 3000;
  // Times for entries that already have counts, filled in separately.
  py_add.a_time = Times({1.0, 1.1, 1.06, 1.02});
  py_add.b_time = Times({1.5, 1.6, 1.56, 1.52});
  cpp_add.a_time = Times({1.0, 1.1, 1.06, 1.02});
  cpp_add.b_time = Times({1.02, 1.12, 1.07, 1.03});
  return table;
}

TEST(DeltaTableTest, RendersPlainText) {
  EXPECT_EQ(Example().Render(/*colorize=*/false),
            "[--------------------------------------------------------------------------------- "
            "Instruction counts per run "
            "--------------------------------------------------------------------------------]\n"
            "Benchmark               Threads  Autograd            |        Python Eager       |    "
            " Python TorchScript    |      C++ Eager       |     Python Eager (time)     |       "
            "C++ Eager (time)     \n"
            "Pointwise / Math / add        1  Forward             |                      ...  |  "
            "+0.3  1,234,567  +0.00%  |  +112  5,093  +2.2%  |  +0.50 us  1.54 us  +48.1%  |  "
            "+0.01 us  1.05 us  ~+0.96%\n"
            "                              1  Forward + Backward  |  -1,024  79,088    -1.3%  |    "
            "                       |                      |                             |         "
            "                   \n"
            "                              4  Forward             |  +1,101   2,101  +110.0%  |    "
            "                       |                      |                             |         "
            "                   \n"
            "Pointwise / Math / mul        1  Forward             |           B only: 26,001  |    "
            "                       |                      |                             |         "
            "                   \n"
            "Indexing / select             1                      |                           |    "
            "                       |       A only: 3,000  |                             |         "
            "                   \n"
            "\n"
            "Instructions per run: B - A, B, (B - A) / A; \"...\" where A and B are equal.\n"
            "Wall time, median per run: B - A, B, (B - A) / A; \"...\" where A and B are equal.\n"
            "~: within noise; the interquartile ranges overlap or a side has fewer than 4 times.\n"
            "A only, B only: measured on one side only.\n");
}

TEST(DeltaTableTest, RendersAnsiColours) {
  EXPECT_EQ(
      Example().Render(/*colorize=*/true),
      "[--------------------------------------------------------------------------------- "
      "Instruction counts per run "
      "--------------------------------------------------------------------------------]\n"
      "Benchmark               Threads  Autograd            |        Python Eager       |     "
      "Python TorchScript    |      C++ Eager       |     Python Eager (time)     |       C++ "
      "Eager (time)     \n"
      "Pointwise / Math / add        1  Forward             |                      ...  |  +0.3  "
      "1,234,567  +0.00%  |  \033[33m+112  5,093  +2.2%\033[0m  |  \033[91m+0.50 us  1.54 us  "
      "+48.1%\033[0m  |  \033[90m+0.01 us  1.05 us  ~+0.96%\033[0m\n"
      "                              1  Forward + Backward  |  \033[32m-1,024  79,088    "
      "-1.3%\033[0m  |                           |                      |                          "
      "   |                            \n"
      "                              4  Forward             |  \033[1m\033[7m\033[91m+1,101   "
      "2,101  +110.0%\033[0m  |                           |                      |                 "
      "            |                            \n"
      "Pointwise / Math / mul        1  Forward             |           B only: 26,001  |          "
      "                 |                      |                             |                     "
      "       \n"
      "Indexing / select             1                      |                           |          "
      "                 |       A only: 3,000  |                             |                     "
      "       \n"
      "\n"
      "Instructions per run: B - A, B, (B - A) / A; \"...\" where A and B are equal.\n"
      "Wall time, median per run: B - A, B, (B - A) / A; \"...\" where A and B are equal.\n"
      "~ (grey): within noise; the interquartile ranges overlap or a side has fewer than 4 times.\n"
      "A only, B only: measured on one side only.\n"
      "Colours: faster by >=0.5% green (>=10% bold); slower by >=0.5% yellow, >=2.5% bright "
      "yellow, >=10% red, >=25% bright red, >=50% bold red, >=100% reversed.\n");
}

TEST(DeltaTableTest, RendersMarkdown) {
  EXPECT_EQ(
      Example().RenderMarkdown(),
      "**Instruction counts per run**\n"
      "\n"
      "| Benchmark | Threads | Autograd | Python Eager | Python TorchScript | C++ Eager | Python "
      "Eager (time) | C++ Eager (time) |\n"
      "| :--- | ---: | :--- | ---: | ---: | ---: | ---: | ---: |\n"
      "| Pointwise / Math / add | 1 | Forward | ... | +0.3 (1,234,567, +0.00%) | 🟡 +112 (5,093, "
      "+2.2%) | 🔴 +0.50 us (1.54 us, +48.1%) | _+0.01 us (1.05 us, \\~+0.96%)_ |\n"
      "|  | 1 | Forward + Backward | 🟢 -1,024 (79,088, -1.3%) |  |  |  |  |\n"
      "|  | 4 | Forward | 🔴 **+1,101 (2,101, +110.0%)** |  |  |  |  |\n"
      "| Pointwise / Math / mul | 1 | Forward | B only: 26,001 |  |  |  |  |\n"
      "| Indexing / select | 1 |  |  |  | A only: 3,000 |  |  |\n"
      "\n"
      "- Instructions per run: B - A (B, (B - A) / A); \"...\" where A and B are equal.\n"
      "- Wall time, median per run: B - A (B, (B - A) / A); \"...\" where A and B are equal.\n"
      "- \\~ (italics): within noise; the interquartile ranges overlap or a side has fewer than 4 "
      "times.\n"
      "- A only, B only: measured on one side only.\n"
      "- 🟢 faster by >=0.5%; 🟡 slower by >=0.5%; 🔴 slower by >=10% (bold from 50%).\n");
}

TEST(DeltaColorTest, ThresholdsAtHalfTwoAndAHalfTenTwentyFiveFiftyAndAHundredPercent) {
  EXPECT_EQ(DeltaColor(0), "");
  EXPECT_EQ(DeltaColor(0.49), "");
  EXPECT_EQ(DeltaColor(-0.49), "");
  EXPECT_EQ(DeltaColor(0.5), "\033[33m");
  EXPECT_EQ(DeltaColor(2.49), "\033[33m");
  EXPECT_EQ(DeltaColor(2.5), "\033[93m");
  EXPECT_EQ(DeltaColor(9.99), "\033[93m");
  EXPECT_EQ(DeltaColor(10), "\033[31m");
  EXPECT_EQ(DeltaColor(24.99), "\033[31m");
  EXPECT_EQ(DeltaColor(25), "\033[91m");
  EXPECT_EQ(DeltaColor(49.99), "\033[91m");
  EXPECT_EQ(DeltaColor(50), "\033[1m\033[91m");
  EXPECT_EQ(DeltaColor(99.99), "\033[1m\033[91m");
  EXPECT_EQ(DeltaColor(100), "\033[1m\033[7m\033[91m");
  EXPECT_EQ(DeltaColor(1e9), "\033[1m\033[7m\033[91m");
  EXPECT_EQ(DeltaColor(-0.5), "\033[32m");
  EXPECT_EQ(DeltaColor(-9.99), "\033[32m");
  EXPECT_EQ(DeltaColor(-10), "\033[1m\033[92m");
  EXPECT_EQ(DeltaColor(-100), "\033[1m\033[92m");
}

TEST(WithinNoiseTest, OverlappingInterquartileRangesAreNoise) {
  // IQRs: 1.015 to 1.0625 us and 1.0275 to 1.075 us.
  EXPECT_TRUE(WithinNoise(Times({1.0, 1.1, 1.05, 1.02}), Times({1.02, 1.12, 1.06, 1.03})));
  // IQRs: 1.015 to 1.0625 us and 1.515 to 1.5625 us.
  EXPECT_FALSE(WithinNoise(Times({1.0, 1.1, 1.05, 1.02}), Times({1.5, 1.6, 1.55, 1.52})));
  EXPECT_FALSE(WithinNoise(Times({1.5, 1.6, 1.55, 1.52}), Times({1.0, 1.1, 1.05, 1.02})));
  // Touching ranges count as overlapping.
  EXPECT_TRUE(WithinNoise(Times({1, 1, 2, 2}), Times({2, 2, 3, 3})));
}

TEST(WithinNoiseTest, FewerThanFourTimesAreAlwaysNoise) {
  EXPECT_TRUE(WithinNoise(Times({1, 1, 1}), Times({5, 5, 5, 5})));
  EXPECT_TRUE(WithinNoise(Times({1, 1, 1, 1}), Times({5})));
}

TEST(DeltaTableTest, NothingToShowRendersEmpty) {
  DeltaTable table("title");
  EXPECT_EQ(table.Render(), "");
  table.Entry({{"add"}, 1, "Forward", "Python Eager"});  // no values
  EXPECT_EQ(table.Render(), "");
  EXPECT_EQ(table.RenderMarkdown(), "");
}

TEST(DeltaTableTest, RowsFollowTheirLabelThenThreadCount) {
  DeltaTable table("");
  table.Entry({{"b"}, 4, "", "x"}).a_instructions = 1;
  table.Entry({{"a"}, 1, "", "x"}).a_instructions = 2;
  table.Entry({{"b"}, 1, "", "x"}).a_instructions = 3;
  table.Entry({{"b"}, 4, "", "x"}).b_instructions = 4;  // the first entry again
  EXPECT_EQ(table.Render(false),
            "Benchmark  Threads  |        x       \n"
            "b                1  |       A only: 3\n"
            "                 4  |  +3  4  +300.0%\n"
            "a                1  |       A only: 2\n"
            "\n"
            "Instructions per run: B - A, B, (B - A) / A; \"...\" where A and B are equal.\n"
            "A only, B only: measured on one side only.\n");
}

TEST(DeltaTableTest, ColumnsFollowTheGivenOrderThenFirstUse) {
  DeltaTable table("", SuiteColumns());
  const std::vector<std::string> label = {"add"};
  table.Entry({label, 1, "", "Other"}).a_instructions = 1;
  table.Entry({label, 1, "", DeltaColumn(timer::Language::kCpp, "TorchScript")}).a_instructions = 1;
  table.Entry({label, 1, "", DeltaColumn(timer::Language::kPython, "Eager")}).a_instructions = 1;
  EXPECT_THAT(table.RenderMarkdown(),
              HasSubstr("| Benchmark | Threads | Python Eager | C++ TorchScript | Other |\n"));
}

TEST(DeltaTableTest, TimeOnlyTablesNameColumnsPlainly) {
  DeltaTable table("Wall time");
  DeltaValues& values = table.Entry({{"add", "4x4"}, 1, "", "float"});
  values.a_time = Times({1.0, 1.1, 1.06, 1.02});
  EXPECT_EQ(table.Render(false),
            "[------------ Wall time -------------]\n"
            "Benchmark  Threads  |       float     \n"
            "add / 4x4        1  |  A only: 1.04 us\n"
            "\n"
            "Wall time, median per run: B - A, B, (B - A) / A; \"...\" where A and B are equal.\n"
            "A only, B only: measured on one side only.\n");
}

TEST(DeltaTableTest, MeasurementsWithoutTimesCountAsMissing) {
  DeltaTable table("");
  timer::TaskSpec spec;
  spec.stmt = "x";
  DeltaValues& values = table.Entry({{"add"}, 1, "", "t"});
  values.a_time = timer::Measurement(1, {}, spec);
  EXPECT_EQ(table.Render(false), "");
  values.b_time = Times({2, 2, 2, 2});
  EXPECT_THAT(table.Render(false), HasSubstr("add              1  |  B only: 2.00 us\n"));
}

TEST(DeltaTableTest, GrowthFromZeroHasNoPercentage) {
  DeltaTable table("");
  DeltaValues& values = table.Entry({{"add"}, 1, "", "c"});
  values.a_instructions = 0;
  values.b_instructions = 5;
  // Infinitely worse: the strongest regression colour.
  EXPECT_THAT(table.Render(true), HasSubstr("|  \033[1m\033[7m\033[91m+5  5  n/a\033[0m\n"));
}

TEST(DeltaTableTest, MarkdownEscapesTableSyntaxInLabels) {
  DeltaTable table("a | b");
  DeltaValues& values = table.Entry({{"x|y"}, 1, "", "c|d"});
  values.a_instructions = 10;
  values.b_instructions = 10;
  const std::string markdown = table.RenderMarkdown();
  EXPECT_THAT(markdown, HasSubstr("**a \\| b**\n"));
  EXPECT_THAT(markdown, HasSubstr("| Benchmark | Threads | c\\|d |\n"));
  EXPECT_THAT(markdown, HasSubstr("| x\\|y | 1 | ... |\n"));
  EXPECT_THAT(markdown, Not(HasSubstr("🟢")));  // no change, no marker legend
}

// Paired rounds (ab_test): the change with its interval, "*" when
// significant, "~" when not, and the reason when there is no verdict; the
// legend explains all three.
TEST(DeltaTableTest, PairedRoundsShowIntervalsAndSignificance) {
  const std::vector<TimeComparison> verdicts = CompareWallTimes({
      {{1.00e-6, 1.02e-6, 0.99e-6}, {1.10e-6, 1.11e-6, 1.09e-6}},
      {{2.0e-6, 2.1e-6, 1.9e-6}, {2.0e-6, 1.9e-6, 2.1e-6}},
      {{1e-6, 1e-6}, {1e-6, 1e-6}},
  });
  DeltaTable table("Wall time", SuiteColumns());
  const std::string py = DeltaColumn(timer::Language::kPython, "Eager");
  for (int i = 0; i < 3; ++i) {
    table.Entry({{"Case", std::to_string(i)}, 1, "Forward", py}).time_comparison = verdicts[i];
  }
  const std::string text = table.Render(/*colorize=*/false);
  EXPECT_THAT(text, HasSubstr("+0.10 us  1.10 us   +9.6% [+7.9, +11.4] *"));
  EXPECT_THAT(text, HasSubstr("~"));
  EXPECT_THAT(text, HasSubstr("too few rounds (2 of 3 needed)"));
  EXPECT_THAT(text, HasSubstr("Wall time over paired rounds (up to 3)"));
  EXPECT_THAT(text, HasSubstr("* significant: the change passes Benjamini-Hochberg"));
  EXPECT_THAT(text, HasSubstr("too few rounds, unusable: no verdict for that case"));
  EXPECT_THAT(text, Not(HasSubstr("interquartile")));
  const std::string markdown = table.RenderMarkdown();
  EXPECT_THAT(markdown, HasSubstr("🟡 +0.10 us (1.10 us, +9.6% [+7.9, +11.4] *)"));
  EXPECT_THAT(markdown, HasSubstr("_"));  // the change that is not significant
}

TEST(FormatAllocationsTest, WholeNumbersWithoutDecimals) {
  EXPECT_EQ(FormatAllocations(4), "4");
  EXPECT_EQ(FormatAllocations(0), "0");
  EXPECT_EQ(FormatAllocations(-0.0001), "0");
  EXPECT_EQ(FormatAllocations(0.5), "0.5");
  EXPECT_EQ(FormatAllocations(1.01), "1.01");
  EXPECT_EQ(FormatAllocations(-2), "-2");
  EXPECT_EQ(FormatAllocations(120), "120");
}

}  // namespace
}  // namespace icount::compare
