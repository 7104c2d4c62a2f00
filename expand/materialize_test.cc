#include "expand/materialize.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "expand/definition.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::expand {
namespace {

using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<MaterializedBenchmark> MustMaterialize(const BenchmarkTree& tree) {
  absl::StatusOr<std::vector<MaterializedBenchmark>> cases = Materialize(tree);
  EXPECT_TRUE(cases.ok()) << cases.status();
  return cases.ok() ? *std::move(cases) : std::vector<MaterializedBenchmark>{};
}

std::vector<std::string> Keys(const std::vector<MaterializedBenchmark>& cases) {
  std::vector<std::string> keys;
  for (const MaterializedBenchmark& c : cases) keys.push_back(CaseKey(c));
  return keys;
}

std::string ErrorOf(const BenchmarkTree& tree) {
  absl::StatusOr<std::vector<MaterializedBenchmark>> cases = Materialize(tree);
  if (cases.ok()) return "OK";
  EXPECT_EQ(cases.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(cases.status().message());
}

TEST(MaterializeTest, EagerStatementsInBothLanguages) {
  std::vector<MaterializedBenchmark> cases = MustMaterialize({
      {"add", GroupedStmts{R"(
          x + 1
      )",
                           "  x + 1;  ",
                           GroupedSetup{"x = torch.ones((4, 4))", "auto x = torch::ones({4, 4});",
                                        "#include <cmath>"}}},
  });
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_THAT(cases[0].label, ElementsAre("add"));
  EXPECT_EQ(cases[0].auto_labels,
            (AutoLabels{RUNTIME_EAGER, AUTOGRAD_FORWARD, timer::Language::kPython}));
  EXPECT_EQ(cases[0].num_threads, 1);
  // Snippets are normalised: dedented and trimmed.
  EXPECT_EQ(cases[0].timer_args.stmt, "x + 1");
  EXPECT_EQ(cases[0].timer_args.setup, "x = torch.ones((4, 4))");
  // global_setup is C++: Python cases do not get it, C++ cases do.
  EXPECT_EQ(cases[0].timer_args.global_setup, "");
  EXPECT_EQ(cases[0].timer_args.language, timer::Language::kPython);
  EXPECT_EQ(cases[0].timer_args.torchscript_artifact, "");

  EXPECT_EQ(cases[1].auto_labels.language, timer::Language::kCpp);
  EXPECT_EQ(cases[1].timer_args.language, timer::Language::kCpp);
  EXPECT_EQ(cases[1].timer_args.stmt, "x + 1;");
  EXPECT_EQ(cases[1].timer_args.setup, "auto x = torch::ones({4, 4});");
  EXPECT_EQ(cases[1].timer_args.global_setup, "#include <cmath>");
}

TEST(MaterializeTest, OneLanguageOnly) {
  std::vector<MaterializedBenchmark> cases = MustMaterialize({
      {"py", GroupedStmts{"x"}},
      {"cpp", GroupedStmts{"", "x;"}},
  });
  EXPECT_THAT(Keys(cases), ElementsAre("py|Eager|Forward|Python|1", "cpp|Eager|Forward|C++|1"));
}

// The full product, for a statement with every option.
class TrainingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cases_ = MustMaterialize({
        {{"training", "simple"},
         GroupedStmts{"y = x * w",
                      "auto y = x * w;",
                      GroupedSetup{"x = torch.ones((4,))\n"
                                   "w = torch.ones((4,), requires_grad=True)",
                                   "auto x = torch::ones({4});\n"
                                   "auto w = torch::ones({4}).requires_grad_();",
                                   "#include <cmath>"},
                      "f(x, w) -> y",
                      /*torchscript=*/true,
                      /*autograd=*/true,
                      {1, 2}}},
    });
  }

  const MaterializedBenchmark& Find(const std::string& key) {
    for (const MaterializedBenchmark& c : cases_) {
      if (CaseKey(c) == key) return c;
    }
    ADD_FAILURE() << "no case " << key;
    static const MaterializedBenchmark* const kNone = new MaterializedBenchmark;
    return *kNone;
  }

  std::vector<MaterializedBenchmark> cases_;
};

TEST_F(TrainingTest, UpstreamsOrder) {
  EXPECT_THAT(Keys(cases_), ElementsAre("training/simple|Eager|Forward|Python|1",
                                        "training/simple|Eager|Forward|Python|2",
                                        "training/simple|Eager|Forward|C++|1",
                                        "training/simple|Eager|Forward|C++|2",
                                        "training/simple|Eager|ForwardBackward|Python|1",
                                        "training/simple|Eager|ForwardBackward|Python|2",
                                        "training/simple|Eager|ForwardBackward|C++|1",
                                        "training/simple|Eager|ForwardBackward|C++|2",
                                        "training/simple|TorchScript|Forward|Python|1",
                                        "training/simple|TorchScript|Forward|Python|2",
                                        "training/simple|TorchScript|Forward|C++|1",
                                        "training/simple|TorchScript|Forward|C++|2",
                                        "training/simple|TorchScript|ForwardBackward|Python|1",
                                        "training/simple|TorchScript|ForwardBackward|Python|2",
                                        "training/simple|TorchScript|ForwardBackward|C++|1",
                                        "training/simple|TorchScript|ForwardBackward|C++|2"));
  for (const MaterializedBenchmark& c : cases_) {
    EXPECT_EQ(c.num_threads, c.timer_args.num_threads);
    EXPECT_EQ(c.timer_args.language, c.auto_labels.language);
  }
}

TEST_F(TrainingTest, BackwardIsAppended) {
  EXPECT_EQ(Find("training/simple|Eager|ForwardBackward|Python|1").timer_args.stmt,
            "y = x * w\ny.backward()");
  const TimerArgs& cpp = Find("training/simple|Eager|ForwardBackward|C++|2").timer_args;
  EXPECT_EQ(cpp.stmt, "auto y = x * w;\ny.backward();");
  EXPECT_EQ(cpp.num_threads, 2);
  // Eager setup is the definition's setup; nothing to load.
  EXPECT_EQ(cpp.setup, "auto x = torch::ones({4});\nauto w = torch::ones({4}).requires_grad_();");
  EXPECT_EQ(cpp.global_setup, "#include <cmath>");
  EXPECT_EQ(cpp.torchscript_artifact, "");
  EXPECT_EQ(cpp.torchscript_model_source, "");
}

TEST_F(TrainingTest, TorchScriptPython) {
  const TimerArgs& fwd = Find("training/simple|TorchScript|Forward|Python|1").timer_args;
  EXPECT_EQ(fwd.stmt, "y = jit_model(x, w)");
  EXPECT_EQ(fwd.setup,
            "x = torch.ones((4,))\n"
            "w = torch.ones((4,), requires_grad=True)\n"
            "jit_model = torch.jit.load(ICOUNT_ARTIFACT_PATH)\n"
            "\n"
            "# Warm up: the first calls profile and optimise the graph.\n"
            "for _ in range(3):\n"
            "    y = jit_model(x, w)");
  EXPECT_EQ(fwd.global_setup, "");
  EXPECT_EQ(fwd.torchscript_artifact, "training_simple");
  EXPECT_EQ(fwd.torchscript_model_source,
            "def model(x, w):\n"
            "    y = x * w\n"
            "    return y");

  const TimerArgs& bwd = Find("training/simple|TorchScript|ForwardBackward|Python|2").timer_args;
  EXPECT_EQ(bwd.stmt, "y = jit_model(x, w)\ny.backward()");
  EXPECT_THAT(bwd.setup, EndsWith("for _ in range(3):\n    y = jit_model(x, w)\n    y.backward()"));
  EXPECT_EQ(bwd.torchscript_artifact, "training_simple");
}

TEST_F(TrainingTest, TorchScriptCpp) {
  const TimerArgs& fwd = Find("training/simple|TorchScript|Forward|C++|1").timer_args;
  EXPECT_EQ(fwd.stmt,
            "std::vector<torch::jit::IValue> ivalue_inputs({torch::jit::IValue(x), "
            "torch::jit::IValue(w)});\n"
            "auto y = jit_model.forward(ivalue_inputs);");
  EXPECT_EQ(fwd.global_setup,
            "#include <string>\n#include <vector>\n#include <torch/script.h>\n#include <cmath>");

  const TimerArgs& bwd = Find("training/simple|TorchScript|ForwardBackward|C++|1").timer_args;
  // forward() returns an IValue.
  EXPECT_THAT(bwd.stmt, EndsWith("auto y = jit_model.forward(ivalue_inputs);\n"
                                 "y.toTensor().backward();"));
  EXPECT_EQ(bwd.setup,
            "auto x = torch::ones({4});\n"
            "auto w = torch::ones({4}).requires_grad_();\n"
            "auto jit_model = torch::jit::load(ICOUNT_ARTIFACT_PATH);\n"
            "\n"
            "// Warm up: the first calls profile and optimise the graph.\n"
            "for (int i = 0; i < 3; i++) {\n"
            "    std::vector<torch::jit::IValue> ivalue_inputs({torch::jit::IValue(x), "
            "torch::jit::IValue(w)});\n"
            "    auto y = jit_model.forward(ivalue_inputs);\n"
            "    y.toTensor().backward();\n"
            "}");
  // Both languages load the same artifact.
  EXPECT_EQ(bwd.torchscript_artifact, "training_simple");
  const TimerArgs& py = Find("training/simple|TorchScript|Forward|Python|1").timer_args;
  EXPECT_EQ(bwd.torchscript_model_source, py.torchscript_model_source);
}

TEST_F(TrainingTest, OneArtifact) {
  std::vector<TorchScriptArtifact> artifacts = TorchScriptArtifacts(cases_);
  ASSERT_EQ(artifacts.size(), 1u);
  EXPECT_EQ(artifacts[0].key, "training_simple");
  EXPECT_THAT(artifacts[0].model_source, StartsWith("def model(x, w):"));
}

TEST(MaterializeTest, NoneOutputAndZeroArguments) {
  std::vector<MaterializedBenchmark> cases = MustMaterialize({
      {"in place", GroupedStmts{"x += y", "x += y;", {}, "f(x, y) -> None", true}},
      {"no args",
       GroupedStmts{"z = torch.ones(())", "auto z = torch::ones({});", {}, "f() -> z", true}},
  });
  ASSERT_EQ(cases.size(), 8u);
  // "-> None": the call's result is not assigned.
  EXPECT_EQ(cases[2].timer_args.stmt, "jit_model(x, y)");
  EXPECT_EQ(cases[3].timer_args.stmt,
            "std::vector<torch::jit::IValue> ivalue_inputs({torch::jit::IValue(x), "
            "torch::jit::IValue(y)});\n"
            "jit_model.forward(ivalue_inputs);");
  EXPECT_EQ(cases[2].timer_args.torchscript_model_source, "def model(x, y):\n    x += y");
  // No arguments: an empty input vector (not one None IValue, as upstream's
  // split of "" gives).
  EXPECT_EQ(cases[6].timer_args.stmt, "z = jit_model()");
  EXPECT_EQ(cases[7].timer_args.stmt,
            "std::vector<torch::jit::IValue> ivalue_inputs;\n"
            "auto z = jit_model.forward(ivalue_inputs);");
  EXPECT_EQ(cases[6].timer_args.torchscript_model_source,
            "def model():\n    z = torch.ones(())\n    return z");
  EXPECT_EQ(cases[6].timer_args.torchscript_artifact, "no_args");
  EXPECT_EQ(cases[2].timer_args.torchscript_artifact, "in_place");
}

TEST(MaterializeTest, SignatureWithoutTorchScriptOrAutogradAddsNothing) {
  std::vector<MaterializedBenchmark> cases =
      MustMaterialize({{"a", GroupedStmts{"y = x", "auto y = x;", {}, "f(x) -> y"}}});
  EXPECT_THAT(Keys(cases), ElementsAre("a|Eager|Forward|Python|1", "a|Eager|Forward|C++|1"));
}

TEST(MaterializeTest, Modules) {
  GroupedSetup setup{"x = torch.ones((4, 4))", "auto x = torch::ones({4, 4});",
                     "#include <torch/torch.h>"};
  std::vector<MaterializedBenchmark> cases = MustMaterialize({
      {{"nn Modules", "Linear"},
       GroupedModules{"model = torch.nn.Linear(4, 2)", "auto model = torch::nn::Linear(4, 2);",
                      setup, "f(x) -> y", /*torchscript=*/true, /*autograd=*/true}},
  });
  ASSERT_EQ(cases.size(), 8u);
  const TimerArgs& py = cases[0].timer_args;
  EXPECT_EQ(py.stmt, "y = model(x)");
  EXPECT_EQ(py.setup, "x = torch.ones((4, 4))\nmodel = torch.nn.Linear(4, 2)");
  const TimerArgs& cpp = cases[1].timer_args;
  EXPECT_EQ(cpp.stmt, "auto y = model->forward(x);");
  EXPECT_EQ(cpp.setup, "auto x = torch::ones({4, 4});\nauto model = torch::nn::Linear(4, 2);");
  EXPECT_EQ(cpp.global_setup, "#include <torch/torch.h>");
  EXPECT_EQ(cases[3].timer_args.stmt, "auto y = model->forward(x);\ny.backward();");

  const TimerArgs& jit_py = cases[4].timer_args;
  EXPECT_EQ(jit_py.stmt, "y = jit_model(x)");
  // The scripted model replaces the eager one: the setup does not build it.
  EXPECT_EQ(jit_py.setup,
            "x = torch.ones((4, 4))\n"
            "jit_model = torch.jit.load(ICOUNT_ARTIFACT_PATH)\n"
            "\n"
            "# Warm up: the first calls profile and optimise the graph.\n"
            "for _ in range(3):\n"
            "    y = jit_model(x)");
  // The model is built after the Python setup, as in the eager case.
  EXPECT_EQ(jit_py.torchscript_model_source,
            "x = torch.ones((4, 4))\nmodel = torch.nn.Linear(4, 2)");
  EXPECT_EQ(jit_py.torchscript_artifact, "nn_modules_linear");
  const TimerArgs& jit_cpp = cases[5].timer_args;
  EXPECT_EQ(jit_cpp.global_setup,
            "#include <string>\n#include <vector>\n#include <torch/script.h>\n"
            "#include <torch/torch.h>");
  EXPECT_THAT(jit_cpp.setup,
              StartsWith("auto x = torch::ones({4, 4});\n"
                         "auto jit_model = torch::jit::load(ICOUNT_ARTIFACT_PATH);"));
  EXPECT_EQ(cases[7].timer_args.stmt,
            "std::vector<torch::jit::IValue> ivalue_inputs({torch::jit::IValue(x)});\n"
            "auto y = jit_model.forward(ivalue_inputs);\n"
            "y.toTensor().backward();");
}

TEST(MaterializeTest, TorchScriptCasesOnlyForLanguagesWithCode) {
  std::vector<MaterializedBenchmark> cases = MustMaterialize({
      {"relu", GroupedModules{"model = torch.nn.ReLU()", "", {}, "f(x) -> y", true}},
  });
  EXPECT_THAT(Keys(cases),
              ElementsAre("relu|Eager|Forward|Python|1", "relu|TorchScript|Forward|Python|1"));
}

TEST(MaterializeTest, ModelDefinitionRules) {
  // Python: a top-level assignment, annotated assignment or def.
  for (const char* py :
       {"model = torch.nn.ReLU()", "model=torch.nn.ReLU()",
        "model: torch.nn.Module = torch.nn.ReLU()", "def model(x):\n    return x.relu()",
        "import torch.nn as nn\n\nmodel = nn.Sequential(\n    nn.ReLU())"}) {
    EXPECT_EQ(ErrorOf({{"m", GroupedModules{py, "", {}, "f(x) -> y"}}}), "OK") << py;
  }
  for (const char* py : {"net = torch.nn.ReLU()", "if True:\n    model = torch.nn.ReLU()",
                         "model == 1", "my_model = torch.nn.ReLU()", "print(model)"}) {
    EXPECT_THAT(ErrorOf({{"m", GroupedModules{py, "", {}, "f(x) -> y"}}}),
                HasSubstr("py_model_setup never defines `model`"))
        << py;
  }
  // C++: a declaration of `model` with an initializer.
  for (const char* cpp : {"auto model = torch::nn::ReLU();", "torch::nn::Linear model(4, 2);",
                          "std::shared_ptr<Net> model{std::make_shared<Net>()};",
                          "auto& model = shared;", "const auto model = torch::nn::ReLU();",
                          "torch::manual_seed(0); auto model = torch::nn::Linear(\n    4, 2);",
                          "torch::nn::Sequential model(\n    torch::nn::ReLU());"}) {
    EXPECT_EQ(ErrorOf({{"m", GroupedModules{"", cpp, {}, "f(x) -> y"}}}), "OK") << cpp;
  }
  for (const char* cpp :
       {"model = torch::nn::ReLU();", "auto net = torch::nn::ReLU();", "return model(x);",
        "auto y = model->forward(x);", "auto my_model = torch::nn::ReLU();", "f(model);",
        "if (true) { auto model = torch::nn::ReLU(); }"}) {
    EXPECT_THAT(ErrorOf({{"m", GroupedModules{"", cpp, {}, "f(x) -> y"}}}),
                HasSubstr("cpp_model_setup never defines `model`"))
        << cpp;
  }
}

TEST(MaterializeTest, ExplicitTimerArgsPassThrough) {
  TimerArgs args{"x.sum();", "auto x = torch::ones({4});", "#include <cmath>", 4,
                 timer::Language::kCpp};
  std::vector<MaterializedBenchmark> cases = MustMaterialize({{"explicit", args}});
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].timer_args, args);
  EXPECT_EQ(cases[0].auto_labels,
            (AutoLabels{RUNTIME_EXPLICIT, AUTOGRAD_EXPLICIT, timer::Language::kCpp}));
  EXPECT_EQ(cases[0].num_threads, 4);
  EXPECT_EQ(CaseKey(cases[0]), "explicit|Explicit|Explicit|C++|4");
}

TEST(MaterializeTest, NestedLabels) {
  BenchmarkTree inner = {{"b", GroupedStmts{"b"}}};
  std::vector<MaterializedBenchmark> cases = MustMaterialize({
      {"A",
       BenchmarkTree{
           {"one", GroupedStmts{"1"}},
           {{"two", "deep"}, GroupedStmts{"2"}},
           {LabelKey{}, GroupedStmts{"base"}},  // upstream's None key
       }},
      {{"P", "Q"}, GroupedVariants{"# @v\nx\ny\n# @w\nz", ""}},
      {LabelKey{}, inner},  // a tree spliced in without a label of its own
  });
  std::vector<std::vector<std::string>> labels;
  for (const MaterializedBenchmark& c : cases) labels.push_back(c.label);
  EXPECT_THAT(labels, ElementsAre(ElementsAre("A", "one"), ElementsAre("A", "two", "deep"),
                                  ElementsAre("A"), ElementsAre("P", "Q", "v", "Case:  0"),
                                  ElementsAre("P", "Q", "v", "Case:  1"),
                                  ElementsAre("P", "Q", "w"), ElementsAre("b")));
  EXPECT_EQ(cases[4].timer_args.stmt, "y");
}

TEST(MaterializeTest, VariantsCarryGlobalSetupAndThreads) {
  std::vector<MaterializedBenchmark> cases = MustMaterialize({
      {"v", GroupedVariants{"", "// @global_setup\n#include <torch/torch.h>\n// @a\nx;", {1, 3}}},
  });
  EXPECT_THAT(Keys(cases), ElementsAre("v/a|Eager|Forward|C++|1", "v/a|Eager|Forward|C++|3"));
  EXPECT_EQ(cases[0].timer_args.global_setup, "#include <torch/torch.h>");
}

TEST(MaterializeTest, MinLibTorchVersionReachesEveryCase) {
  GroupedStmts scripted{"y = x + 1",       "auto y = x + 1;",     {},
                        "f(x) -> y",       /*torchscript=*/true,
                        /*autograd=*/true, /*num_threads=*/{1, 2}};
  scripted.min_libtorch_version = "1.9";
  GroupedVariants variants{"# @a\nx\ny", "// @a\nx;\ny;"};
  variants.min_libtorch_version = "1.5.1";
  GroupedModules modules{"model = torch.nn.ReLU()", "", {}, "f(x) -> y"};
  modules.min_libtorch_version = "2.0";
  TimerArgs explicit_args{"x"};
  explicit_args.min_libtorch_version = "1.13";
  std::vector<MaterializedBenchmark> cases = MustMaterialize({
      {"scripted", scripted},
      {"variants", variants},
      {"modules", modules},
      {"explicit", explicit_args},
      {"any", GroupedStmts{"x", "x;"}},
  });
  std::map<std::string, std::set<std::string>> versions;  // first label part -> versions
  for (const MaterializedBenchmark& c : cases) {
    versions[c.label[0]].insert(c.timer_args.min_libtorch_version);
  }
  EXPECT_EQ(cases.size(), 16u + 4u + 1u + 1u + 2u);
  EXPECT_THAT(versions["scripted"], ElementsAre("1.9"));
  EXPECT_THAT(versions["variants"], ElementsAre("1.5.1"));
  EXPECT_THAT(versions["modules"], ElementsAre("2.0"));
  EXPECT_THAT(versions["explicit"], ElementsAre("1.13"));
  EXPECT_THAT(versions["any"], ElementsAre(""));
}

TEST(MaterializeTest, ErrorsNameTheLabelAndLocation) {
  const int line = __LINE__ + 1;
  std::string error = ErrorOf({{{"Group", "bad"}, GroupedStmts{"x", "x;", {}, "f(x -> y"}}});
  EXPECT_THAT(error, StartsWith("Group / bad ("));
  EXPECT_THAT(error, HasSubstr("materialize_test.cc:" + std::to_string(line) + "): "));
  EXPECT_THAT(error, HasSubstr("invalid signature \"f(x -> y\""));
}

TEST(MaterializeTest, Errors) {
  TimerArgs python_global{"x", "", "#include <cmath>"};
  TimerArgs half_artifact{"x"};
  half_artifact.torchscript_artifact = "k";
  TimerArgs bad_version{"x"};
  bad_version.min_libtorch_version = "1.9+cpu";
  GroupedStmts bad_stmts_version{"x"};
  bad_stmts_version.min_libtorch_version = "nine";
  GroupedVariants bad_variants_version{"# @v\nx", ""};
  bad_variants_version.min_libtorch_version = "1";
  TimerArgs bad_key = half_artifact;
  bad_key.torchscript_artifact = "a/b";
  bad_key.torchscript_model_source = "model = f";
  struct Message {
    BenchmarkTree tree;
    const char* label;
    const char* message;
  };
  for (const Message& m : std::vector<Message>{
           {{{"s", GroupedStmts{"y = x", "", {}, "f(x)"}}}, "s", "invalid signature \"f(x)\""},
           {{{"s", GroupedStmts{"y = x", "", {}, "", true}}},
            "s",
            "torchscript=true needs a signature"},
           {{{"s", GroupedStmts{"y = x", "", {}, "", false, true}}},
            "s",
            "autograd=true needs a signature"},
           {{{"s", GroupedStmts{"x += 1", "", {}, "f(x) -> None", false, true}}},
            "s",
            "autograd=true needs an output to call backward() on, but the signature \"f(x) -> "
            "None\" returns None"},
           {{{"s", GroupedStmts{"", "auto y = x;", {}, "f(x) -> y", true}}},
            "s",
            "torchscript=true scripts the Python statement into a function, but py_stmt is "
            "empty"},
           {{{"s", GroupedStmts{"\n  \n"}}}, "s", "neither a py_stmt nor a cpp_stmt"},
           {{{"s", GroupedStmts{"x", "", {}, "", false, false, {}}}}, "s", "num_threads is empty"},
           {{{"s", GroupedStmts{"x", "", {}, "", false, false, {1, 0}}}}, "s", "num_threads has 0"},
           {{{"m", GroupedModules{"model = f"}}}, "m", "GroupedModules needs a signature"},
           {{{"m", GroupedModules{"", "", {}, "f(x) -> y"}}},
            "m",
            "neither a py_model_setup nor a cpp_model_setup"},
           {{{"m", GroupedModules{"", "auto model = f;", {}, "f(x) -> y", true}}},
            "m",
            "torchscript=true scripts the Python model, but py_model_setup is empty"},
           {{{"v", GroupedVariants{"x = 1", ""}}}, "v", "comes before the first label"},
           {{{"v", GroupedVariants::FromTable("Python | C++\n")}}, "v", "side-by-side table"},
           {{{"a", BenchmarkTree{{"b", GroupedStmts{"x"}}}}, {{"a", "b"}, GroupedStmts{"y"}}},
            "a / b",
            "this label is defined twice"},
           {{{"a", GroupedVariants{"# @v\nx", ""}}, {{"a", "v"}, GroupedStmts{"y"}}},
            "a / v",
            "this label is defined twice"},
           {{{LabelKey{}, GroupedStmts{"x"}}}, "(no label)", "a benchmark needs a label"},
           {{{"a", BenchmarkTree{{"", GroupedStmts{"x"}}}}}, "a", "a label part is the empty"},
           {{{"t", python_global}}, "t", "global_setup is C++ only"},
           {{{"t", TimerArgs{"", "x = 1"}}}, "t", "TimerArgs has an empty stmt"},
           {{{"t", TimerArgs{"x", "", "", 0}}}, "t", "TimerArgs has num_threads 0"},
           {{{"t", half_artifact}}, "t", "go together"},
           {{{"t", bad_key}}, "t", "must be a file name stem"},
           {{{"t", bad_version}},
            "t",
            "min_libtorch_version: \"1.9+cpu\" is not a LibTorch version"},
           {{{"s", bad_stmts_version}}, "s", "min_libtorch_version: \"nine\" is not"},
           {{{"v", bad_variants_version}}, "v / v", "min_libtorch_version: \"1\" is not"},
       }) {
    std::string error = ErrorOf(m.tree);
    EXPECT_THAT(error, StartsWith(std::string(m.label) + " (")) << m.message;
    EXPECT_THAT(error, HasSubstr(m.message)) << error;
  }
}

TEST(MaterializeTest, ArtifactKeysAreStableAndUnique) {
  auto scripted = [](const char* stmt) {
    return GroupedStmts{stmt, "", {}, "f(x) -> y", /*torchscript=*/true};
  };
  std::vector<MaterializedBenchmark> cases = MustMaterialize({
      {{"Pointwise", "Math", "add"}, scripted("y = x + 1")},
      {"a-b", scripted("y = x + 2")},
      {"a b", scripted("y = x + 3")},
      {"Ünïcode (x)", scripted("y = x + 4")},
  });
  std::vector<TorchScriptArtifact> artifacts = TorchScriptArtifacts(cases);
  ASSERT_EQ(artifacts.size(), 4u);
  EXPECT_EQ(artifacts[0].key, "pointwise_math_add");
  // "a-b" and "a b" sanitise alike, so both get a hash of their exact label;
  // neither key depends on which was defined first.
  EXPECT_THAT(artifacts[1].key, StartsWith("a_b_"));
  EXPECT_THAT(artifacts[2].key, StartsWith("a_b_"));
  EXPECT_EQ(artifacts[1].key.size(), std::string("a_b_").size() + 8);
  EXPECT_NE(artifacts[1].key, artifacts[2].key);
  std::vector<MaterializedBenchmark> alone =
      MustMaterialize({{"a b", scripted("y = x + 3")}, {"a-b", scripted("y = x + 2")}});
  EXPECT_EQ(TorchScriptArtifacts(alone)[0].key, artifacts[2].key);
  EXPECT_EQ(TorchScriptArtifacts(alone)[1].key, artifacts[1].key);
  EXPECT_EQ(artifacts[3].key, "n_code_x");

  // An explicit TimerArgs may not reuse a generated key for another model.
  TimerArgs clash{"y = jit_model(x)"};
  clash.torchscript_artifact = "pointwise_math_add";
  clash.torchscript_model_source = "model = torch.nn.ReLU()";
  EXPECT_THAT(ErrorOf({{{"Pointwise", "Math", "add"}, scripted("y = x + 1")}, {"clash", clash}}),
              HasSubstr("TorchScript artifact \"pointwise_math_add\" is also used, with a "
                        "different model, by \"Pointwise / Math / add\""));
}

TEST(MaterializeTest, KeysAndLines) {
  MaterializedBenchmark c;
  c.label = {"Pointwise", "Math", "add", "Case:  0"};
  c.auto_labels =
      AutoLabels{RUNTIME_TORCHSCRIPT, AUTOGRAD_FORWARD_BACKWARD, timer::Language::kCpp};
  c.num_threads = 2;
  EXPECT_EQ(CaseKey(c), "Pointwise/Math/add/Case:  0|TorchScript|ForwardBackward|C++|2");
  EXPECT_EQ(CiKey(c),
            "{\"label\": [\"Pointwise\", \"Math\", \"add\", \"Case:  0\"], \"autolabels\": "
            "{\"runtime\": \"TorchScript\", \"autograd\": \"Forward + Backward\", \"language\": "
            "\"C++\"}, \"num_threads\": 2}");
  EXPECT_EQ(ListLine(c),
            "Pointwise / Math / add / Case:  0 | TorchScript | Forward + Backward | C++ | 2 "
            "threads");

  c.label = {"a/b", "c|d\\"};
  c.auto_labels =
      AutoLabels{RUNTIME_EXPLICIT, AUTOGRAD_EXPLICIT, timer::Language::kPython};
  c.num_threads = 1;
  EXPECT_EQ(CaseKey(c), "a\\/b/c\\|d\\\\|Explicit|Explicit|Python|1");
  EXPECT_EQ(ListLine(c), "a/b / c|d\\ | Explicit | Explicit | Python | 1 thread");
  EXPECT_EQ(CiKey(c),
            "{\"label\": [\"a/b\", \"c|d\\\\\"], \"autolabels\": {\"runtime\": \"\", "
            "\"autograd\": \"\", \"language\": \"Python\"}, \"num_threads\": 1}");

  // json.dumps escapes quotes, control characters and all non-ASCII.
  c.label = {"\"q\"\n\t\x01", "\xC3\xA9", "\xF0\x9F\x98\x80", "\x7F"};
  EXPECT_EQ(CiKey(c),
            "{\"label\": [\"\\\"q\\\"\\n\\t\\u0001\", \"\\u00e9\", \"\\ud83d\\ude00\", "
            "\"\\u007f\"], \"autolabels\": {\"runtime\": \"\", \"autograd\": \"\", "
            "\"language\": \"Python\"}, \"num_threads\": 1}");
}

TEST(MaterializeTest, ArtifactPathName) {
  EXPECT_STREQ(timer::kArtifactPathName, "ICOUNT_ARTIFACT_PATH");
}

TEST(MaterializeTest, CasesRecordTheirDefinition) {
  const int line = __LINE__ + 1;
  std::vector<MaterializedBenchmark> cases = MustMaterialize({{"a", GroupedStmts{"x", "x;"}}});
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_THAT(cases[1].where.file, EndsWith("materialize_test.cc"));
  EXPECT_EQ(cases[1].where.line, line);
}

}  // namespace
}  // namespace icount::expand
