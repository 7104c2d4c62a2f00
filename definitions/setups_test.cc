#include "definitions/setups.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "re2/re2.h"

namespace icount::definitions {
namespace {

// The variables a setup defines at top level: `name = ...` in Python,
// `auto name = ...` in C++. The two languages must agree, or a benchmark
// using the setup breaks in one of them.
std::set<std::string> PythonNames(const std::string& code) {
  std::set<std::string> names;
  std::string name;
  for (absl::string_view line : absl::StrSplit(code, '\n')) {
    if (RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), R"(^\s*(\w+) = )", &name)) {
      names.insert(name);
    }
  }
  return names;
}

std::set<std::string> CppNames(const std::string& code) {
  std::set<std::string> names;
  std::string name;
  for (absl::string_view line : absl::StrSplit(code, '\n')) {
    if (RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), R"(^\s*auto (\w+) = )",
                          &name)) {
      names.insert(name);
    }
  }
  return names;
}

struct Named {
  const char* name;
  expand::GroupedSetup setup;
  std::set<std::string> variables;
  bool needs_torch_nn;
};

TEST(SetupsTest, BothLanguagesDefineTheSameVariables) {
  for (const Named& n : {
           Named{"Trivial2D", Trivial2D(), {"x"}, false},
           Named{"Trivial3D", Trivial3D(), {"x"}, false},
           Named{"Trivial4D", Trivial4D(), {"x"}, false},
           Named{"Training", Training(), {"x", "y", "w0", "w1", "w2"}, true},
           Named{"Generic", Generic(), {"x", "y_float", "y_int"}, true},
           Named{"Indexing", Indexing(), {"x", "y", "a", "b"}, true},
           Named{"Mesoscale", Mesoscale(), {"x", "y", "bias", "eye_4"}, true},
       }) {
    EXPECT_EQ(PythonNames(n.setup.py_setup), n.variables) << n.name;
    EXPECT_EQ(CppNames(n.setup.cpp_setup), n.variables) << n.name;
    // torch::nn and torch::manual_seed need the C++ frontend's header.
    EXPECT_EQ(n.setup.global_setup, n.needs_torch_nn ? kTorchNNInclude : "") << n.name;
  }
}

TEST(SetupsTest, TrainingWeightsRequireGrad) {
  expand::GroupedSetup training = Training();
  for (const char* w : {"w0", "w1", "w2"}) {
    EXPECT_TRUE(
        RE2::PartialMatch(training.cpp_setup, std::string(w) + R"(\.set_requires_grad\(true\);)"))
        << w;
  }
  std::vector<std::string> lines = absl::StrSplit(training.py_setup, '\n');
  int requires_grad = 0;
  for (const std::string& line : lines) {
    requires_grad += line.find("requires_grad=True") != std::string::npos;
  }
  EXPECT_EQ(requires_grad, 3);
}

TEST(SetupsTest, WithTorchNN) {
  expand::GroupedSetup setup = WithTorchNN(Trivial2D());
  EXPECT_EQ(setup.global_setup, "#include <torch/torch.h>");
  EXPECT_EQ(setup.py_setup, Trivial2D().py_setup);
  EXPECT_EQ(setup.cpp_setup, Trivial2D().cpp_setup);
  EXPECT_EQ(Trivial4D().cpp_setup, "auto x = torch::ones({4, 4, 4, 4});");
}

}  // namespace
}  // namespace icount::definitions
