#include "expand/columns.h"

#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::expand {
namespace {

using ::testing::HasSubstr;

TEST(ColumnsTest, SplitsPythonFromCpp) {
  absl::StatusOr<Columns> columns = SplitColumns(R"(
        Python                   | C++
        ------------------------ | ------------------------
        # @setup                 | // @setup
                                 | using namespace torch::indexing;
        x = torch.ones((4, 4))   | auto x = torch::ones({4, 4});
        y = torch.ones(          | auto y = torch::ones({4});
            (4,))                |

        # @sum                   | // @sum
        x.sum()                  | x.sum();
  )");
  ASSERT_TRUE(columns.ok()) << columns.status();
  EXPECT_EQ(columns->python,
            "# @setup\n"
            "\n"
            "x = torch.ones((4, 4))\n"
            "y = torch.ones(\n"
            "    (4,))\n"
            "\n"
            "# @sum\n"
            "x.sum()");
  EXPECT_EQ(columns->cpp,
            "// @setup\n"
            "using namespace torch::indexing;\n"
            "auto x = torch::ones({4, 4});\n"
            "auto y = torch::ones({4});\n"
            "\n"
            "\n"
            "// @sum\n"
            "x.sum();");
}

TEST(ColumnsTest, AcceptsUpstreamsFortyCharacterColumns) {
  absl::StatusOr<Columns> columns = SplitColumns(R"(
    Python                                   | C++
    ---------------------------------------- | ----------------------------------------
    a0 = torch.nn.functional.relu(x * w0)    | auto a0 = torch::nn::functional::relu(x * w0);
    z = torch.nn.functional.normalize(       | auto z = torch::nn::functional::normalize(
        torch.cat([a0, a1]),                 |     torch::cat({a0, a1}),
    ).dot(w2)                                | ).dot(w2);
  )");
  ASSERT_TRUE(columns.ok()) << columns.status();
  EXPECT_EQ(columns->python,
            "a0 = torch.nn.functional.relu(x * w0)\n"
            "z = torch.nn.functional.normalize(\n"
            "    torch.cat([a0, a1]),\n"
            ").dot(w2)");
  EXPECT_EQ(columns->cpp,
            "auto a0 = torch::nn::functional::relu(x * w0);\n"
            "auto z = torch::nn::functional::normalize(\n"
            "    torch::cat({a0, a1}),\n"
            ").dot(w2);");
}

TEST(ColumnsTest, BareSeparatorMeansNoCpp) {
  absl::StatusOr<Columns> columns = SplitColumns(
      "Python | C++\n"
      "------ | ---\n"
      "x = 1  |\n"
      "y = 2");
  ASSERT_TRUE(columns.ok()) << columns.status();
  EXPECT_EQ(columns->python, "x = 1\ny = 2");
  EXPECT_EQ(columns->cpp, "\n");
}

TEST(ColumnsTest, ErrorsNameTheLine) {
  struct Case {
    const char* table;
    const char* why;
  };
  for (const Case& c : {
           Case{"", "expected a \"Python | C++\" header"},
           Case{"Python | C++", "expected a \"Python | C++\" header"},
           Case{"C++ | Python\n--- | ------\n", "line 1 \"C++ | Python\": the header"},
           Case{"Python | C++\n------ |----\n", "line 2 \"------ |----\": expected dashes"},
           Case{"Python | C++\n--- | ---\n", "line 2 \"--- | ---\": expected dashes"},
           Case{"Python | C++\n------ | ---\nx = torch.ones(4) | auto x;",
                "line 3 \"x = torch.ones(4) | auto x;\": expected \" | \" at column 8 (is the "
                "Python code wider"},
           Case{"Python | C++\n------ | ---\nx = 1  |y", "expected a space after"},
       }) {
    absl::StatusOr<Columns> columns = SplitColumns(c.table);
    ASSERT_FALSE(columns.ok()) << c.table;
    EXPECT_EQ(columns.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(columns.status().message()), HasSubstr(c.why)) << c.table;
  }
}

}  // namespace
}  // namespace icount::expand
