#include "compare/text_table.h"

#include <string>

#include "gtest/gtest.h"

namespace icount::compare {
namespace {

TEST(TextTableTest, AlignsPadsAndGroups) {
  TextTable table({{"Benchmark", Align::kLeft, Align::kLeft},
                   {"n", Align::kRight, Align::kRight, 0, "  "},
                   {"µs", Align::kCenter}});
  table.AddGroup("1 thread: ");
  table.AddRow({"add", "1", "3.25"});
  table.AddRow({"matmul", "12"});  // the last cell is blank
  TextTable::TextOptions options;
  options.title = "t";
  options.group_fill = '-';
  EXPECT_EQ(table.RenderText(options),
            "[-------- t ---------]\n"
            "Benchmark   n  |   µs \n"
            "1 thread: ------------\n"
            "add         1  |  3.25\n"
            "matmul     12  |      \n");
}

TEST(TextTableTest, MinimumWidthsRulesAndPlainGroups) {
  TextTable table(
      {{"x", Align::kLeft, Align::kLeft, 4}, {"y", Align::kRight, Align::kRight, 3, " | "}});
  table.AddGroup("2 threads:");
  table.AddRow({"a", "10"});
  TextTable::TextOptions options;
  options.rule_under_header = true;
  EXPECT_EQ(table.RenderText(options),
            "x    |   y\n"
            "----------\n"
            "2 threads:\n"
            "a    |  10\n");
}

TEST(TextTableTest, ColourGoesAroundThePaddedCellAndTakesNoWidth) {
  TextTable table({{"a", Align::kLeft}, {"b", Align::kRight, Align::kCenter}});
  table.AddStyledRow({{"x", "", ""}, {"1", "\033[31m", "\033[0m"}});
  table.AddRow({"yy", "100"});
  EXPECT_EQ(table.RenderText({}),
            "a   |   b \n"
            "x   |  \033[31m  1\033[0m\n"
            "yy  |  100\n");
}

TEST(TextTableTest, Markdown) {
  TextTable table({{"case"}, {"n", Align::kRight}, {"c", Align::kCenter}});
  table.AddGroup("group");
  table.AddRow({MarkdownEscape("a|b~c\\"), "1", "x"});
  EXPECT_EQ(table.RenderMarkdown(),
            "| case | n | c |\n"
            "| :--- | ---: | :---: |\n"
            "| group |  |  |\n"
            "| a\\|b\\~c\\\\ | 1 | x |\n");
}

TEST(TextTableTest, WidthCountsCodePoints) {
  EXPECT_EQ(TextTable::Width("µs"), 2);
  EXPECT_EQ(TextTable::Width("🟢 x"), 3);
}

}  // namespace
}  // namespace icount::compare
