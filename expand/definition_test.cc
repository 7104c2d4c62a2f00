#include "expand/definition.h"

#include <string>
#include <variant>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::expand {
namespace {

using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::IsEmpty;

TEST(LabelKeyTest, Forms) {
  EXPECT_THAT(LabelKey("add").parts(), ElementsAre("add"));
  EXPECT_THAT(LabelKey(std::string("add")).parts(), ElementsAre("add"));
  EXPECT_THAT((LabelKey{"Pointwise", "Math"}).parts(), ElementsAre("Pointwise", "Math"));
  EXPECT_THAT(LabelKey().parts(), IsEmpty());
  EXPECT_THAT(LabelKey(std::vector<std::string>{"a", "b", "c"}).parts(),
              ElementsAre("a", "b", "c"));
}

TEST(DefinitionTest, AggregatesTakeUpstreamsPositionalOrder) {
  GroupedStmts stmts{"y = x * w",
                     "auto y = x * w;",
                     GroupedSetup{"x = torch.ones(())", "auto x = torch::ones({});"},
                     "f(x, w) -> y",
                     true,
                     true,
                     {1, 2}};
  EXPECT_EQ(stmts.py_stmt, "y = x * w");
  EXPECT_EQ(stmts.cpp_stmt, "auto y = x * w;");
  EXPECT_EQ(stmts.setup.cpp_setup, "auto x = torch::ones({});");
  EXPECT_EQ(stmts.setup.global_setup, "");
  EXPECT_EQ(stmts.signature, "f(x, w) -> y");
  EXPECT_TRUE(stmts.torchscript);
  EXPECT_TRUE(stmts.autograd);
  EXPECT_THAT(stmts.num_threads, ElementsAre(1, 2));

  GroupedStmts defaults{"x + 1"};
  EXPECT_EQ(defaults.cpp_stmt, "");
  EXPECT_FALSE(defaults.torchscript);
  EXPECT_THAT(defaults.num_threads, ElementsAre(1));

  GroupedModules modules{
      "model = torch.nn.ReLU()", "auto model = torch::nn::ReLU();", {}, "f(x) -> y"};
  EXPECT_EQ(modules.signature, "f(x) -> y");
  EXPECT_FALSE(modules.autograd);

  GroupedVariants table = GroupedVariants::FromTable("Python | C++", {2, 4});
  EXPECT_EQ(table.table, "Python | C++");
  EXPECT_EQ(table.py_block, "");
  EXPECT_THAT(table.num_threads, ElementsAre(2, 4));
}

TEST(DefinitionTest, TimerArgsEquality) {
  TimerArgs a{"x + 1", "x = torch.ones(())"};
  TimerArgs b = a;
  EXPECT_EQ(a, b);
  b.torchscript_artifact = "k";
  EXPECT_NE(a, b);
  b = a;
  b.language = timer::Language::kCpp;
  EXPECT_NE(a, b);
}

TEST(BenchmarkTreeTest, ReadsLikeNestedDicts) {
  const int line = __LINE__ + 2;
  BenchmarkTree tree = {
      {"Empty",
       BenchmarkTree{
           {"no allocation", GroupedStmts{"torch.empty(())", "torch::empty({0});"}},
       }},
      {{"Pointwise", "Math"}, GroupedVariants{"# @add\nx + 1", ""}},
      {LabelKey{}, TimerArgs{"pass"}},
  };
  ASSERT_EQ(tree.entries().size(), 3u);
  const BenchmarkTree::Entry& empty = tree.entries()[0];
  EXPECT_THAT(empty.key.parts(), ElementsAre("Empty"));
  ASSERT_TRUE(std::holds_alternative<BenchmarkTree>(empty.value));
  const BenchmarkTree& subtree = std::get<BenchmarkTree>(empty.value);
  ASSERT_EQ(subtree.entries().size(), 1u);
  EXPECT_TRUE(std::holds_alternative<GroupedStmts>(subtree.entries()[0].value));
  EXPECT_EQ(std::get<GroupedStmts>(subtree.entries()[0].value).cpp_stmt, "torch::empty({0});");

  EXPECT_THAT(tree.entries()[1].key.parts(), ElementsAre("Pointwise", "Math"));
  EXPECT_TRUE(std::holds_alternative<GroupedVariants>(tree.entries()[1].value));
  EXPECT_THAT(tree.entries()[2].key.parts(), IsEmpty());
  EXPECT_TRUE(std::holds_alternative<TimerArgs>(tree.entries()[2].value));

  // Entries record a location in this file; inside a braced tree it may be
  // the end of the whole initializer, so only its range is certain.
  EXPECT_THAT(empty.where.file, EndsWith("definition_test.cc"));
  EXPECT_GE(empty.where.line, line);
  EXPECT_LE(empty.where.line, line + 6);
}

TEST(SourceLocationTest, DefinitionsRecordTheLineOfTheirInitializer) {
  const int line = __LINE__ + 2;
  BenchmarkTree tree = {
      {"a", GroupedStmts{"x"}},
      {"b", GroupedModules{"model = f", "", {}, "f(x) -> y"}},
      {"c", GroupedVariants{"# @v\nx", ""}},
      {"d", GroupedVariants::FromTable("Python | C++\n------ | ---\n# @v   | // @v\nx")},
  };
  EXPECT_THAT(std::get<GroupedStmts>(tree.entries()[0].value).where.file,
              EndsWith("definition_test.cc"));
  EXPECT_EQ(std::get<GroupedStmts>(tree.entries()[0].value).where.line, line);
  EXPECT_EQ(std::get<GroupedModules>(tree.entries()[1].value).where.line, line + 1);
  EXPECT_EQ(std::get<GroupedVariants>(tree.entries()[2].value).where.line, line + 2);
  EXPECT_EQ(std::get<GroupedVariants>(tree.entries()[3].value).where.line, line + 3);
  EXPECT_THAT(std::get<GroupedVariants>(tree.entries()[3].value).where.file,
              EndsWith("definition_test.cc"));
}

TEST(BenchmarkTreeTest, AddAppendsInOrderAndRecordsTheCaller) {
  BenchmarkTree tree;
  EXPECT_TRUE(tree.empty());
  const int line = __LINE__ + 1;
  tree.Add("a", GroupedStmts{"x"})
      .Add({"b", "c"}, GroupedModules{"model = f", "", {}, "f(x) -> y"})
      .Add("d", GroupedVariants{"# @v\nx", ""})
      .Add("e", TimerArgs{"x"})
      .Add("f", BenchmarkTree{{"g", GroupedStmts{"y"}}});
  ASSERT_EQ(tree.entries().size(), 5u);
  EXPECT_THAT(tree.entries()[1].key.parts(), ElementsAre("b", "c"));
  EXPECT_TRUE(std::holds_alternative<GroupedModules>(tree.entries()[1].value));
  EXPECT_TRUE(std::holds_alternative<BenchmarkTree>(tree.entries()[4].value));
  for (const BenchmarkTree::Entry& entry : tree.entries()) {
    EXPECT_THAT(entry.where.file, EndsWith("definition_test.cc"));
    EXPECT_GE(entry.where.line, line);
    EXPECT_LE(entry.where.line, line + 4);
  }
}

}  // namespace
}  // namespace icount::expand
