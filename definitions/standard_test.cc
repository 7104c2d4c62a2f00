#include "definitions/standard.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "definitions/setups.h"
#include "expand/materialize.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::definitions {
namespace {

using expand::MaterializedBenchmark;
using Label = std::vector<std::string>;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

std::vector<MaterializedBenchmark> MustMaterialize(const expand::BenchmarkTree& tree) {
  absl::StatusOr<std::vector<MaterializedBenchmark>> cases = expand::Materialize(tree);
  EXPECT_TRUE(cases.ok()) << cases.status();
  return cases.ok() ? *std::move(cases) : std::vector<MaterializedBenchmark>{};
}

// Distinct labels in order of first appearance.
std::vector<Label> Labels(const std::vector<MaterializedBenchmark>& cases) {
  std::vector<Label> labels;
  for (const MaterializedBenchmark& c : cases) {
    if (labels.empty() || labels.back() != c.label) labels.push_back(c.label);
  }
  return labels;
}

// {prefix..., "Case:  0"}, ..., {prefix..., "Case:  <n-1>"}.
void AddCases(std::vector<Label>& labels, const Label& prefix, int n) {
  for (int i = 0; i < n; ++i) {
    Label label = prefix;
    label.push_back(std::string("Case: ") + (i < 10 ? " " : "") + std::to_string(i));
    labels.push_back(label);
  }
}

std::vector<Label> ExpectedStandardLabels() {
  std::vector<Label> l = {{"Empty", "no allocation"}, {"Empty", "with allocation"}};
  AddCases(l, {"Empty", "overloads", "TensorOptions overload"}, 3);
  AddCases(l, {"Empty", "overloads", "Faithful overload"}, 3);
  AddCases(l, {"Pointwise", "Math", "add"}, 7);
  AddCases(l, {"Pointwise", "Math", "multiply"}, 7);
  AddCases(l, {"Pointwise", "Math", "equality"}, 2);
  for (const char* name :
       {"contiguous (trivial)", "contiguous (non-trivial)", "clone", "copy_", "zero_", "RNG"}) {
    l.push_back({"Pointwise", "Data movement", name});
  }
  for (const char* name : {"max", "sum", "variance"}) l.push_back({"Reduction", name});
  AddCases(l, {"Indexing", "Tensor-Scalar"}, 3);
  AddCases(l, {"Indexing", "Tensor-Scalar (Advanced)"}, 5);
  AddCases(l, {"Indexing", "Tensor-Tensor"}, 3);
  AddCases(l, {"Indexing", "Tensor-Tensor (Advanced)"}, 5);
  for (const char* name :
       {"size", "stride", "as_strided", "select", "unsqueeze", "view", "transpose", "reshape"}) {
    l.push_back({"Metadata and views", name});
  }
  for (const char* name : {"BatchNorm2d", "GroupNorm", "LayerNorm", "Conv1d", "Conv2d", "MaxPool2d",
                           "ReLU", "Sigmoid", "Linear", "LSTM"}) {
    l.push_back({"nn Modules", name});
  }
  l.push_back({"training", "simple"});
  l.push_back({"training", "ensemble"});
  for (const char* name : {"View", "Inplace", "Mixed"}) l.push_back({"InferenceMode", name});
  return l;
}

TEST(StandardSuiteTest, UpstreamsLabelsAndCaseCount) {
  std::vector<MaterializedBenchmark> cases = MustMaterialize(StandardSuite());
  EXPECT_EQ(cases.size(), 181u);
  std::vector<Label> labels = Labels(cases);
  EXPECT_EQ(labels.size(), 72u);
  EXPECT_THAT(labels, ElementsAreArray(ExpectedStandardLabels()));
  // The helper spells case numbers as upstream does; check one by hand.
  EXPECT_THAT(labels[2], ElementsAre("Empty", "overloads", "TensorOptions overload", "Case:  0"));
}

TEST(StandardSuiteTest, CasesPerGroup) {
  // Group: the first label part, or the first two for "Pointwise".
  std::map<std::string, std::pair<std::set<Label>, int>> groups;
  for (const MaterializedBenchmark& c : MustMaterialize(StandardSuite())) {
    std::string group = c.label[0] == "Pointwise" ? "Pointwise / " + c.label[1] : c.label[0];
    groups[group].first.insert(c.label);
    ++groups[group].second;
  }
  std::map<std::string, std::pair<int, int>> counts;
  for (const auto& [group, value] : groups) {
    counts[group] = {static_cast<int>(value.first.size()), value.second};
  }
  EXPECT_EQ(counts, (std::map<std::string, std::pair<int, int>>{
                        {"Empty", {8, 10}},
                        {"Pointwise / Math", {16, 32}},
                        {"Pointwise / Data movement", {6, 12}},
                        {"Reduction", {3, 6}},
                        {"Indexing", {16, 32}},
                        {"Metadata and views", {8, 16}},
                        {"nn Modules", {10, 38}},
                        {"training", {2, 32}},
                        {"InferenceMode", {3, 3}},
                    }));
}

TEST(StandardSuiteTest, Modes) {
  int torchscript = 0, backward = 0, cpp = 0, two_threads = 0;
  for (const MaterializedBenchmark& c : MustMaterialize(StandardSuite())) {
    torchscript += c.auto_labels.runtime == expand::RUNTIME_TORCHSCRIPT;
    backward += c.auto_labels.autograd == expand::AUTOGRAD_FORWARD_BACKWARD;
    cpp += c.auto_labels.language == timer::Language::kCpp;
    two_threads += c.num_threads == 2;
    EXPECT_NE(c.auto_labels.runtime, expand::RUNTIME_EXPLICIT);
  }
  EXPECT_EQ(torchscript, 9 * 2 + 2 * 8);  // nn Modules but LSTM; training
  EXPECT_EQ(backward, 2 * 8);             // training only
  // Python and C++ cases pair up, except for Empty / overloads (6 labels)
  // and InferenceMode (3), which are C++ only: 86 Python, 95 C++.
  EXPECT_EQ(cpp, 95);
  EXPECT_EQ(two_threads, 2 * 8);  // training only
}

TEST(StandardSuiteTest, EachCppCaseIncludesWhatItUses) {
  // The C++ timer includes only <torch/script.h>; the C++ frontend
  // (torch::nn, torch::manual_seed) needs <torch/torch.h>.
  for (const MaterializedBenchmark& c : MustMaterialize(FullSuite())) {
    const expand::TimerArgs& args = c.timer_args;
    if (args.language == timer::Language::kPython) {
      EXPECT_EQ(args.global_setup, "") << CaseKey(c);
      continue;
    }
    const std::string code = args.setup + "\n" + args.stmt;
    if (absl::StrContains(code, "torch::nn::") || absl::StrContains(code, "manual_seed")) {
      EXPECT_TRUE(absl::StrContains(args.global_setup, kTorchNNInclude)) << CaseKey(c);
    }
  }
}

TEST(StandardSuiteTest, TorchScriptArtifacts) {
  std::vector<MaterializedBenchmark> cases = MustMaterialize(StandardSuite());
  std::vector<std::string> keys;
  for (const expand::TorchScriptArtifact& a : expand::TorchScriptArtifacts(cases)) {
    keys.push_back(a.key);
  }
  EXPECT_THAT(keys, ElementsAre("nn_modules_batchnorm2d", "nn_modules_groupnorm",
                                "nn_modules_layernorm", "nn_modules_conv1d", "nn_modules_conv2d",
                                "nn_modules_maxpool2d", "nn_modules_relu", "nn_modules_sigmoid",
                                "nn_modules_linear", "training_simple", "training_ensemble"));
  for (const MaterializedBenchmark& c : cases) {
    const bool jit = c.auto_labels.runtime == expand::RUNTIME_TORCHSCRIPT;
    EXPECT_EQ(c.timer_args.torchscript_artifact.empty(), !jit) << CaseKey(c);
    if (jit) {
      EXPECT_TRUE(absl::StrContains(c.timer_args.setup, expand::kArtifactPathName)) << CaseKey(c);
    }
  }
}

TEST(StandardSuiteTest, KeysAreUniqueAndCiKeysMatchUpstream) {
  std::vector<MaterializedBenchmark> cases = MustMaterialize(FullSuite());
  std::set<std::string> keys, ci_keys;
  for (const MaterializedBenchmark& c : cases) {
    keys.insert(CaseKey(c));
    ci_keys.insert(CiKey(c));
  }
  EXPECT_EQ(keys.size(), cases.size());
  EXPECT_EQ(ci_keys.size(), cases.size());

  std::vector<MaterializedBenchmark> standard = MustMaterialize(StandardSuite());
  ASSERT_EQ(standard.size(), 181u);
  EXPECT_EQ(CiKey(standard.front()),
            "{\"label\": [\"Empty\", \"no allocation\"], \"autolabels\": {\"runtime\": \"Eager\", "
            "\"autograd\": \"Forward\", \"language\": \"Python\"}, \"num_threads\": 1}");
  EXPECT_EQ(CiKey(standard.back()),
            "{\"label\": [\"InferenceMode\", \"Mixed\"], \"autolabels\": {\"runtime\": \"Eager\", "
            "\"autograd\": \"Forward\", \"language\": \"C++\"}, \"num_threads\": 1}");
  EXPECT_EQ(ListLine(standard.back()), "InferenceMode / Mixed | Eager | Forward | C++ | 1 thread");
}

TEST(StandardSuiteTest, SampleCases) {
  std::map<std::string, expand::TimerArgs> by_key;
  for (const MaterializedBenchmark& c : MustMaterialize(StandardSuite())) {
    by_key[CaseKey(c)] = c.timer_args;
  }
  const expand::TimerArgs& add_out = by_key.at("Pointwise/Math/add/Case:  6|Eager|Forward|C++|1");
  EXPECT_EQ(add_out.stmt, "torch::add_out(/*out=*/x, x, y_float);");
  EXPECT_EQ(add_out.global_setup, "#include <torch/torch.h>");
  EXPECT_EQ(add_out.setup,
            "torch::manual_seed(1381023);\n"
            "auto x = torch::rand({4, 4});\n"
            "auto y_float = torch::ones({4, 4});\n"
            "auto y_vector = torch::ones({4, 1});\n"
            "auto y_int = torch::ones({4, 4}, at::kInt);");
  EXPECT_EQ(by_key.at("Pointwise/Math/add/Case:  6|Eager|Forward|Python|1").setup,
            "torch.manual_seed(138_10_23)\n"
            "x = torch.rand((4, 4))\n"
            "y_float = torch.ones((4, 4))\n"
            "y_vector = torch.ones((4, 1))\n"
            "y_int = torch.ones(\n"
            "    (4, 4), dtype=torch.int32)");
  EXPECT_EQ(by_key.at("Indexing/Tensor-Tensor (Advanced)/Case:  1|Eager|Forward|C++|1").stmt,
            "x.index_put_({Slice(None, None, None)}, y.index({Slice(None, None, None)}));");
  EXPECT_EQ(by_key.at("nn Modules/LayerNorm|Eager|Forward|C++|1").setup,
            "auto x = torch::ones({4, 4, 4, 4});\n"
            "auto model = torch::nn::LayerNorm(torch::nn::LayerNormOptions({4}));");
  EXPECT_EQ(by_key.at("nn Modules/Conv1d|TorchScript|Forward|Python|1").torchscript_model_source,
            "x = torch.ones((4, 4, 4))\nmodel = torch.nn.Conv1d(4, 4, 1)");
  EXPECT_EQ(by_key.count("nn Modules/LSTM|TorchScript|Forward|Python|1"), 0u);
  EXPECT_EQ(by_key.at("training/ensemble|TorchScript|Forward|Python|1").torchscript_model_source,
            "def model(x, y, w0, w1, w2):\n"
            "    a0 = torch.nn.functional.gelu(x * w0)\n"
            "    a1 = torch.nn.functional.prelu(y, w1)\n"
            "    z = torch.nn.functional.normalize(\n"
            "        torch.cat([a0, a1]),\n"
            "        p=2.0, dim=0,\n"
            "    ).dot(w2)\n"
            "    return z");
  EXPECT_EQ(by_key.at("InferenceMode/Inplace|Eager|Forward|C++|1").setup,
            "auto s = torch::ones({3, 3});  // Normal Tensor\n"
            "c10::InferenceMode guard;\n"
            "auto x = torch::ones({3, 3});  // Inference Tensor");
}

// Cases that use a C++ API younger than LibTorch 1.0 say so, for
// `ab_test --backtesting`; the rest run on any version.
TEST(FullSuiteTest, MinimumLibTorchVersions) {
  std::map<std::string, std::set<std::string>> versions;  // label (first two parts) -> versions
  for (const MaterializedBenchmark& c : MustMaterialize(FullSuite())) {
    versions[c.label[0] + " / " + c.label[1]].insert(c.timer_args.min_libtorch_version);
  }
  std::map<std::string, std::string> declared;
  for (const auto& [label, set] : versions) {
    ASSERT_EQ(set.size(), 1u) << label << " mixes minimum versions";
    if (!set.begin()->empty()) declared[label] = *set.begin();
  }
  EXPECT_EQ(declared, (std::map<std::string, std::string>{
                          {"Indexing / Tensor index", "1.5"},
                          {"Indexing / Tensor-Scalar", "1.5"},
                          {"Indexing / Tensor-Scalar (Advanced)", "1.5"},
                          {"Indexing / Tensor-Tensor", "1.5"},
                          {"Indexing / Tensor-Tensor (Advanced)", "1.5"},
                          {"InferenceMode / Inplace", "1.9"},
                          {"InferenceMode / Mixed", "1.9"},
                          {"InferenceMode / View", "1.9"},
                          {"Mesoscale / MatMul-Bias-ReLU", "1.5"},
                          {"training / ensemble", "1.5"},
                          {"training / simple", "1.5"},
                      }));
}

TEST(ExtendedSuiteTest, LabelsAndCounts) {
  std::vector<MaterializedBenchmark> cases = MustMaterialize(ExtendedSuite());
  EXPECT_EQ(cases.size(), 20u);
  EXPECT_THAT(
      Labels(cases),
      ElementsAre(ElementsAre("Indexing", "Tensor index"), ElementsAre("Misc", "resize_"),
                  ElementsAre("Misc", "Sort"), ElementsAre("MatMul", "Broadcasting (matmul)"),
                  ElementsAre("MatMul", "Non-broadcasting (mm)"),
                  ElementsAre("Mesoscale", "MatMul-Bias-ReLU"),
                  ElementsAre("Mesoscale", "Off diagonal indices")));
}

TEST(FullSuiteTest, IsStandardThenExtended) {
  std::vector<MaterializedBenchmark> full = MustMaterialize(FullSuite());
  std::vector<MaterializedBenchmark> standard = MustMaterialize(StandardSuite());
  std::vector<MaterializedBenchmark> extended = MustMaterialize(ExtendedSuite());
  ASSERT_EQ(full.size(), standard.size() + extended.size());
  EXPECT_EQ(Labels(full).size(), 79u);
  for (size_t i = 0; i < full.size(); ++i) {
    const MaterializedBenchmark& expected =
        i < standard.size() ? standard[i] : extended[i - standard.size()];
    EXPECT_EQ(CaseKey(full[i]), CaseKey(expected));
    EXPECT_EQ(full[i].timer_args, expected.timer_args);
  }
}

}  // namespace
}  // namespace icount::definitions
