#include "expand/variants.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::expand {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::vector<std::string>> Labels(const std::vector<Variant>& variants) {
  std::vector<std::vector<std::string>> labels;
  for (const Variant& v : variants) labels.push_back(v.label);
  return labels;
}

TEST(VariantsTest, SplitsBlocksAtLabels) {
  GroupedVariants group{R"(
      # @setup
      x = torch.ones((4, 4))
      y = torch.ones(
          (4, 4))

      # @add
      x + 1
      x + y

      # @sum
      x.sum()
  )",
                        R"(
      // @setup
      auto x = torch::ones({4, 4});
      auto y = torch::ones({4, 4});

      // @add
      x + 1;
      x + y;

      // @sum
      x.sum();
  )",
                        {1, 4}};
  absl::StatusOr<std::vector<Variant>> variants = ExpandVariants(group);
  ASSERT_TRUE(variants.ok()) << variants.status();
  EXPECT_THAT(Labels(*variants), ElementsAre(ElementsAre("add", "Case:  0"),
                                             ElementsAre("add", "Case:  1"), ElementsAre("sum")));
  const GroupedStmts& add1 = (*variants)[1].stmts;
  EXPECT_EQ(add1.py_stmt, "x + y");
  EXPECT_EQ(add1.cpp_stmt, "x + y;");
  EXPECT_EQ(add1.setup.py_setup, "x = torch.ones((4, 4))\ny = torch.ones(\n    (4, 4))");
  EXPECT_EQ(add1.setup.cpp_setup, "auto x = torch::ones({4, 4});\nauto y = torch::ones({4, 4});");
  EXPECT_EQ(add1.setup.global_setup, "");
  EXPECT_THAT(add1.num_threads, ElementsAre(1, 4));
  EXPECT_FALSE(add1.torchscript);
  EXPECT_FALSE(add1.autograd);
  EXPECT_EQ(add1.signature, "");
  EXPECT_EQ((*variants)[2].stmts.py_stmt, "x.sum()");
}

TEST(VariantsTest, CaseNumbersArePaddedLikeUpstream) {
  std::string block = "# @many\n";
  for (int i = 0; i < 11; ++i) block += "x + " + std::to_string(i) + "\n";
  absl::StatusOr<std::vector<Variant>> variants = ExpandVariants(GroupedVariants{block, ""});
  ASSERT_TRUE(variants.ok()) << variants.status();
  ASSERT_EQ(variants->size(), 11u);
  EXPECT_THAT((*variants)[0].label, ElementsAre("many", "Case:  0"));
  EXPECT_THAT((*variants)[10].label, ElementsAre("many", "Case: 10"));
  EXPECT_EQ((*variants)[10].stmts.py_stmt, "x + 10");
  EXPECT_EQ((*variants)[10].stmts.cpp_stmt, "");
}

TEST(VariantsTest, LinesPairByPositionAndMayBeOneLanguage) {
  // Within a label the i-th lines pair up, blank lines included; a label only
  // one block has gives cases in that language only.
  GroupedVariants group{
      "# @a\n"
      "p0\n"
      "\n"
      "p2\n"
      "# @py only\n"
      "p\n",
      "// @a\n"
      "c0;\n"
      "c1;\n"
      "// @cpp only\n"
      "c;\n"};
  absl::StatusOr<std::vector<Variant>> variants = ExpandVariants(group);
  ASSERT_TRUE(variants.ok()) << variants.status();
  ASSERT_THAT(
      Labels(*variants),
      ElementsAre(ElementsAre("a", "Case:  0"), ElementsAre("a", "Case:  1"),
                  ElementsAre("a", "Case:  2"), ElementsAre("py only"), ElementsAre("cpp only")));
  EXPECT_EQ((*variants)[0].stmts.py_stmt, "p0");
  EXPECT_EQ((*variants)[0].stmts.cpp_stmt, "c0;");
  EXPECT_EQ((*variants)[1].stmts.py_stmt, "");
  EXPECT_EQ((*variants)[1].stmts.cpp_stmt, "c1;");
  EXPECT_EQ((*variants)[2].stmts.py_stmt, "p2");
  EXPECT_EQ((*variants)[2].stmts.cpp_stmt, "");
  EXPECT_EQ((*variants)[3].stmts.cpp_stmt, "");
  EXPECT_EQ((*variants)[4].stmts.py_stmt, "");
  EXPECT_EQ((*variants)[4].stmts.cpp_stmt, "c;");
}

TEST(VariantsTest, SetupAndGlobalSetupSections) {
  // Reserved names are matched case-insensitively with spaces for
  // underscores, as upstream does ("Setup", "Global setup").
  GroupedVariants group{"",
                        R"(
      // @Global setup
      #include <torch/torch.h>
      // @Setup
      // Normal tensor
      auto s = torch::ones({3, 3});
      c10::InferenceMode guard;
      // @View
      torch::Tensor y = s.view({9});
  )"};
  absl::StatusOr<std::vector<Variant>> variants = ExpandVariants(group);
  ASSERT_TRUE(variants.ok()) << variants.status();
  ASSERT_EQ(variants->size(), 1u);
  const GroupedStmts& view = (*variants)[0].stmts;
  EXPECT_THAT((*variants)[0].label, ElementsAre("View"));
  EXPECT_EQ(view.py_stmt, "");
  EXPECT_EQ(view.cpp_stmt, "torch::Tensor y = s.view({9});");
  EXPECT_EQ(view.setup.global_setup, "#include <torch/torch.h>");
  // Setup keeps its comments: they are code in the setup's language.
  EXPECT_EQ(view.setup.cpp_setup,
            "// Normal tensor\nauto s = torch::ones({3, 3});\nc10::InferenceMode guard;");
}

TEST(VariantsTest, CommentLinesAreBlankAndTrailingCommentsAreCode) {
  GroupedVariants group{
      "# @a\n"
      "# a comment holds line 0\n"
      "x + 1  # @not a label\n",
      "// @a\n"
      "x + 0;\n"
      "x + 1;  // @not a label either\n"};
  absl::StatusOr<std::vector<Variant>> variants = ExpandVariants(group);
  ASSERT_TRUE(variants.ok()) << variants.status();
  ASSERT_EQ(variants->size(), 2u);
  EXPECT_EQ((*variants)[0].stmts.py_stmt, "");
  EXPECT_EQ((*variants)[0].stmts.cpp_stmt, "x + 0;");
  EXPECT_EQ((*variants)[1].stmts.py_stmt, "x + 1  # @not a label");
  EXPECT_EQ((*variants)[1].stmts.cpp_stmt, "x + 1;  // @not a label either");
}

TEST(VariantsTest, FromTableSplitsColumns) {
  absl::StatusOr<std::vector<Variant>> variants = ExpandVariants(GroupedVariants::FromTable(R"(
      Python                   | C++
      ------------------------ | ------------------------
      # @setup                 | // @setup
      x = torch.ones((4, 4))   | auto x = torch::ones({4, 4});
                               |
      # @max                   | // @max
      x.max()                  | x.max();
  )",
                                                                                            {2}));
  ASSERT_TRUE(variants.ok()) << variants.status();
  ASSERT_EQ(variants->size(), 1u);
  EXPECT_THAT((*variants)[0].label, ElementsAre("max"));
  EXPECT_EQ((*variants)[0].stmts.py_stmt, "x.max()");
  EXPECT_EQ((*variants)[0].stmts.cpp_stmt, "x.max();");
  EXPECT_EQ((*variants)[0].stmts.setup.cpp_setup, "auto x = torch::ones({4, 4});");
  EXPECT_THAT((*variants)[0].stmts.num_threads, ElementsAre(2));
}

TEST(VariantsTest, Errors) {
  struct Case {
    GroupedVariants group;
    const char* why;
  };
  GroupedVariants both = GroupedVariants::FromTable("Python | C++\n------ | ---\n");
  both.py_block = "# @a\nx";
  for (const Case& c : std::vector<Case>{
           {GroupedVariants{"x = 1\n# @a\nx", ""},
            "Python block: \"x = 1\" comes before the first label"},
           {GroupedVariants{"", "// @a\nx;\n// @b\ny;\n// @a\nz;"},
            "C++ block: \"// @a\" repeats a label"},
           {GroupedVariants{"# @setup\nx = 1\n# @SETUP\ny = 1\n# @a\nx", ""},
            "\"# @SETUP\" repeats a label"},
           {GroupedVariants{"# @global_setup\nimport math\n# @a\nx", ""},
            "global setup is C++ only"},
           {GroupedVariants{"# @\nx", ""}, "label line \"# @\" has no label"},
           {GroupedVariants{"# @a\n\n# @b\nx", ""}, "label \"a\" has no statements"},
           {GroupedVariants{"# @setup\nx = 1", "// @setup\nauto x = 1;"}, "defines no benchmarks"},
           {GroupedVariants{}, "defines no benchmarks"},
           {both, "both a table and separate blocks"},
           {GroupedVariants::FromTable("Python\n"), "side-by-side table"},
       }) {
    absl::StatusOr<std::vector<Variant>> variants = ExpandVariants(c.group);
    ASSERT_FALSE(variants.ok()) << c.why;
    EXPECT_EQ(variants.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(variants.status().message()), HasSubstr(c.why));
  }
}

}  // namespace
}  // namespace icount::expand
