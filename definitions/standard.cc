#include "definitions/standard.h"

#include <string>
#include <utility>

#include "definitions/setups.h"
#include "expand/definition.h"

namespace icount::definitions {
namespace {

using expand::BenchmarkTree;
using expand::GroupedModules;
using expand::GroupedSetup;
using expand::GroupedStmts;
using expand::GroupedVariants;
using expand::LabelKey;

// The LibTorch releases that brought C++ APIs the definitions use, for
// `ab_test --backtesting` (definition.h, min_libtorch_version).
// torch::indexing (Slice, None, Ellipsis in index/index_put_).
constexpr char kCppIndexingApi[] = "1.5";
// torch::nn::functional with its *FuncOptions, at parity with Python.
constexpr char kCppFunctionalApi[] = "1.5";

// `stmts`, declared to need LibTorch `version` or newer.
GroupedStmts Needs(const char* version, GroupedStmts stmts) {
  stmts.min_libtorch_version = version;
  return stmts;
}

// Python and C++ side by side (see expand/columns.h): "# @label" /
// "// @label" lines start a benchmark, whose lines are its cases.

BenchmarkTree EmptyGroup() {
  return {
      {"no allocation", GroupedStmts{"torch.empty(())", "torch::empty({0});"}},
      {"with allocation", GroupedStmts{"torch.empty((1,))", "torch::empty({1});"}},
      // C++ only: the overloads of at::empty. Upstream's HEAD spells the
      // optionals std::make_optional and std::nullopt, which LibTorch 1.13
      // (c10::optional) does not accept; this is its 1.13-era spelling.
      {"overloads", GroupedVariants{"", R"(
          // @Setup
          auto options_empty = c10::TensorOptions();
          auto options_full = c10::TensorOptions().dtype(at::kFloat).device(at::kCPU);
          auto optional_float = c10::make_optional(at::kFloat);

          // @TensorOptions overload
          at::empty({0}, options_empty);
          at::empty({0}, options_full);
          at::empty({0}, at::kFloat); // implicit conversion

          // @Faithful overload
          at::empty({0}, c10::nullopt, c10::nullopt, c10::nullopt, c10::nullopt, c10::nullopt);
          at::empty({0}, at::kFloat, c10::nullopt, c10::nullopt, c10::nullopt, c10::nullopt);
          at::empty({0}, optional_float, c10::nullopt, c10::nullopt, c10::nullopt, c10::nullopt);
      )"}},
  };
}

// The Pointwise group, a function per sub-group: their tables are long.
GroupedVariants PointwiseMathGroup() {
  // torch::manual_seed needs <torch/torch.h>.
  return GroupedVariants::FromTable(R"(
          Python                                   | C++
          ---------------------------------------- | ----------------------------------------
          # @global_setup                          | // @global_setup
                                                   | #include <torch/torch.h>

          # @setup                                 | // @setup
          torch.manual_seed(138_10_23)             | torch::manual_seed(1381023);
          x = torch.rand((4, 4))                   | auto x = torch::rand({4, 4});
          y_float = torch.ones((4, 4))             | auto y_float = torch::ones({4, 4});
          y_vector = torch.ones((4, 1))            | auto y_vector = torch::ones({4, 1});
          y_int = torch.ones(                      | auto y_int = torch::ones({4, 4}, at::kInt);
              (4, 4), dtype=torch.int32)           |

          # @add                                   | // @add
          x += 1.0                                 | x += 1;
          x += y_float                             | x += y_float;
          x += y_vector                            | x += y_vector;
          x += y_int                               | x += y_int;
          x + y_float                              | x + y_float;
          torch.add(x, y_float)                    | torch::add(x, y_float);
          torch.add(x, y_float, out=x)             | torch::add_out(/*out=*/x, x, y_float);

          # @multiply                              | // @multiply
          x *= 1.0                                 | x *= 1;
          x *= y_float                             | x *= y_float;
          x *= y_vector                            | x *= y_vector;
          x *= y_int                               | x *= y_int;
          x * y_float                              | x * y_float;
          torch.mul(x, y_float)                    | torch::mul(x, y_float);
          torch.mul(x, y_float, out=x)             | torch::mul_out(/*out=*/x, x, y_float);

          # @equality                              | // @equality
          x == y_float                             | x == y_float;
          x == 1.0                                 | x == 1.0;
      )");
}

GroupedVariants PointwiseDataMovementGroup() {
  return GroupedVariants::FromTable(R"(
          Python                                   | C++
          ---------------------------------------- | ----------------------------------------
          # @setup                                 | // @setup
          x = torch.ones((4, 4))                   | auto x = torch::ones({4, 4});
          y = torch.ones((4, 4))                   | auto y = torch::ones({4, 4});
          x_t = x.t()                              | auto x_t = x.t();

          # @contiguous (trivial)                  | // @contiguous (trivial)
          x.contiguous()                           | x.contiguous();

          # @contiguous (non-trivial)              | // @contiguous (non-trivial)
          x_t.contiguous()                         | x_t.contiguous();

          # @clone                                 | // @clone
          x.clone()                                | x.clone();

          # @copy_                                 | // @copy_
          x.copy_(y)                               | x.copy_(y);

          # @zero_                                 | // @zero_
          x.zero_()                                | x.zero_();

          # @RNG                                   | // @RNG
          x.uniform_()                             | x.uniform_();
      )");
}

BenchmarkTree PointwiseGroup() {
  return {
      {"Math", PointwiseMathGroup()},
      {"Data movement", PointwiseDataMovementGroup()},
  };
}

GroupedVariants ReductionGroup() {
  return GroupedVariants::FromTable(R"(
    Python                                   | C++
    ---------------------------------------- | ----------------------------------------
    # @setup                                 | // @setup
    x = torch.ones((4, 4))                   | auto x = torch::ones({4, 4});

    # @max                                   | // @max
    x.max()                                  | x.max();

    # @sum                                   | // @sum
    x.sum()                                  | x.sum();

    # @variance                              | // @variance
    x.var(0)                                 | x.var(0);
  )");
}

GroupedVariants IndexingGroup() {
  GroupedVariants group = GroupedVariants::FromTable(R"(
    Python                                   | C++
    ---------------------------------------- | ----------------------------------------
    # @global_setup                          | // @global_setup
                                             | #include <torch/torch.h>

    # @setup                                 | // @setup
                                             | using namespace torch::indexing;
    torch.manual_seed(6626_10_34)            | torch::manual_seed(66261034);

    x = torch.randn(1, 1, 1)                 | auto x = torch::randn({1, 1, 1});
    y = torch.randn(1, 1, 1)                 | auto y = torch::randn({1, 1, 1});

    # @Tensor-Scalar                         | // @Tensor-Scalar
    x[0] = 1                                 | x.index_put_({0}, 1);
    x[0, 0] = 1                              | x.index_put_({0, 0}, 1);
    x[0, 0, 0] = 1                           | x.index_put_({0, 0, 0}, 1);

    # @Tensor-Scalar (Advanced)              | // @Tensor-Scalar (Advanced)
    x[...] = 1                               | x.index_put_({"..."}, 1);
    x[:] = 1                                 | x.index_put_({Slice(None, None, None)}, 1);
    x[None] = 1                              | x.index_put_({None}, 1);
    x[False] = 1                             | x.index_put_({false}, 1);
    x[True] = 1                              | x.index_put_({true}, 1);

    # @Tensor-Tensor                         | // @Tensor-Tensor
    x[0] = y[0]                              | x.index_put_({0}, y.index({0}));
    x[0, 0] = y[0, 0]                        | x.index_put_({0, 0}, y.index({0, 0}));
    x[0, 0, 0] = y[0, 0, 0]                  | x.index_put_({0, 0, 0}, y.index({0, 0, 0}));

    # @Tensor-Tensor (Advanced)              | // @Tensor-Tensor (Advanced)
    x[...] = y[...]                          | x.index_put_({"..."}, y.index({"..."}));
    x[:] = y[:]                              | x.index_put_({Slice(None, None, None)}, y.index({Slice(None, None, None)}));
    x[None] = y[None]                        | x.index_put_({None}, y.index({None}));
    x[False] = y[False]                      | x.index_put_({false}, y.index({false}));
    x[True] = y[True]                        | x.index_put_({true}, y.index({true}));
  )");
  group.min_libtorch_version = kCppIndexingApi;
  return group;
}

GroupedVariants MetadataAndViewsGroup() {
  return GroupedVariants::FromTable(R"(
    Python                                   | C++
    ---------------------------------------- | ----------------------------------------
    # @setup                                 | // @setup
    x = torch.ones((4, 4))                   | auto x = torch::ones({4, 4});

    # @size                                  | // @size
    x.size()[0]                              | x.sizes()[0];

    # @stride                                | // @stride
    x.stride(0)                              | x.stride(0);

    # @as_strided                            | // @as_strided
    torch.as_strided(x, (2, 3), (4, 1), 2)   | torch::as_strided(x, {2, 3}, {4, 1}, 2);

    # @select                                | // @select
    x.select(1, 1)                           | x.select(1, 1);

    # @unsqueeze                             | // @unsqueeze
    x.unsqueeze(0)                           | x.unsqueeze(0);

    # @view                                  | // @view
    x.view(-1, 1)                            | x.view({-1, 1});

    # @transpose                             | // @transpose
    x.t()                                    | x.t();

    # @reshape                               | // @reshape
    x.reshape((16, 1))                       | x.reshape({16, 1});
  )");
}

BenchmarkTree NNModulesGroup() {
  struct Module {
    GroupedSetup setup;
    bool torchscript;
    const char* py_constructor;
    const char* cpp_constructor;
  };
  BenchmarkTree tree;
  for (const Module& m : {
           Module{Trivial4D(), true, "BatchNorm2d(4)", "BatchNorm2d(4)"},
           Module{Trivial4D(), true, "GroupNorm(2, 4)", "GroupNorm(2, 4)"},
           Module{Trivial4D(), true, "LayerNorm(4)", "LayerNorm(torch::nn::LayerNormOptions({4}))"},
           Module{Trivial3D(), true, "Conv1d(4, 4, 1)", "Conv1d(4, 4, 1)"},
           Module{Trivial4D(), true, "Conv2d(4, 4, 1)", "Conv2d(4, 4, 1)"},
           Module{Trivial4D(), true, "MaxPool2d(2)", "MaxPool2d(2)"},
           Module{Trivial2D(), true, "ReLU()", "ReLU()"},
           Module{Trivial2D(), true, "Sigmoid()", "Sigmoid()"},
           Module{Trivial4D(), true, "Linear(4, 2)", "Linear(4, 2)"},
           // Upstream: "LSTM can't be TorchScript'd".
           Module{Trivial3D(), false, "LSTM(4, 2)", "LSTM(4, 2)"},
       }) {
    const std::string py = m.py_constructor;
    // The label is the class name, as upstream's py_constructor.split("(")[0].
    tree.Add(py.substr(0, py.find('(')),
             GroupedModules{"model = torch.nn." + py,
                            std::string("auto model = torch::nn::") + m.cpp_constructor + ";",
                            WithTorchNN(m.setup), "f(x) -> y", m.torchscript});
  }
  return tree;
}

BenchmarkTree TrainingGroup() {
  return {
      {"simple",
       Needs(kCppFunctionalApi, GroupedStmts{R"(
          a0 = torch.nn.functional.relu(x * w0)
          y = a0 * w1
      )",
                                             R"(
          auto a0 = torch::nn::functional::relu(x * w0);
          auto y = a0 * w1;
      )",
                                             Training(), "f(x, w0, w1) -> y", /*torchscript=*/true,
                                             /*autograd=*/true, /*num_threads=*/{1, 2}})},
      {"ensemble", Needs(kCppFunctionalApi,
                         GroupedStmts{R"(
          a0 = torch.nn.functional.gelu(x * w0)
          a1 = torch.nn.functional.prelu(y, w1)
          z = torch.nn.functional.normalize(
              torch.cat([a0, a1]),
              p=2.0, dim=0,
          ).dot(w2)
      )",
                                      R"(
          auto a0 = torch::nn::functional::gelu(x * w0);
          auto a1 = torch::nn::functional::prelu(y, w1);
          auto z = torch::nn::functional::normalize(
              torch::cat({a0, a1}),
              torch::nn::functional::NormalizeFuncOptions().p(2).dim(0)
          ).dot(w2);
      )",
                                      Training(), "f(x, y, w0, w1, w2) -> z", /*torchscript=*/true,
                                      /*autograd=*/true, /*num_threads=*/{1, 2}})},
  };
}

GroupedVariants InferenceModeGroup() {
  // C++ only. Inputs that are inference tensors are the common case; the
  // mixed case (a normal tensor too) matters less.
  GroupedVariants group{"", R"(
      // @Setup
      auto s = torch::ones({3, 3});  // Normal Tensor
      c10::InferenceMode guard;
      auto x = torch::ones({3, 3});  // Inference Tensor

      // @View
      torch::Tensor y = x.view({9});

      // @Inplace
      torch::Tensor y = x.mul_(x);

      // @Mixed
      torch::Tensor y = x + s;
  )"};
  group.min_libtorch_version = "1.9";  // c10::InferenceMode
  return group;
}

}  // namespace

BenchmarkTree StandardSuite() {
  return {
      {"Empty", EmptyGroup()},
      {"Pointwise", PointwiseGroup()},
      {"Reduction", ReductionGroup()},
      {"Indexing", IndexingGroup()},
      {"Metadata and views", MetadataAndViewsGroup()},
      {"nn Modules", NNModulesGroup()},
      {"training", TrainingGroup()},
      {"InferenceMode", InferenceModeGroup()},
  };
}

BenchmarkTree ExtendedSuite() {
  return {
      // Advanced indexing with a tensor, also scripted.
      {{"Indexing", "Tensor index"},
       Needs(kCppIndexingApi,
             GroupedStmts{"a[b, None, ...] = 1", "a.index_put_({b, None, Ellipsis}, 1);",
                          Indexing(), "f(a, b) -> None", /*torchscript=*/true})},
      {"Misc",
       BenchmarkTree{
           {"resize_", GroupedStmts{R"(
                       x.resize_(0)
                       x.resize_((4, 4))
                   )",
                                    R"(
                       x.resize_(0);
                       x.resize_({4, 4});
                   )",
                                    Trivial2D()}},
           {"Sort", GroupedStmts{"torch.sort(x)", "torch::sort(x);", Generic()}},
       }},
      {"MatMul",
       BenchmarkTree{
           {"Broadcasting (matmul)",
            GroupedStmts{"z = torch.matmul(x, y_float)", "auto z = torch::matmul(x, y_float);",
                         Generic()}},
           {"Non-broadcasting (mm)",
            GroupedStmts{"z = torch.mm(x, y_float)", "auto z = torch::mm(x, y_float);", Generic()}},
       }},
      {"Mesoscale",
       BenchmarkTree{
           {"MatMul-Bias-ReLU",
            Needs(kCppFunctionalApi, GroupedStmts{R"(
                             z0 = torch.mm(x, y) + bias
                             z1 = torch.nn.functional.relu(z0)
                         )",
                                                  R"(
                             auto z0 = torch::mm(x, y) + bias;
                             auto z1 = torch::nn::functional::relu(z0);
                         )",
                                                  Mesoscale(), "f(x, y, bias) -> z1",
                                                  /*torchscript=*/true})},
           {"Off diagonal indices", GroupedStmts{R"(
                             indices = torch.arange(eye_4.numel())
                             z = indices[eye_4.flatten() == 0]
                         )",
                                                 R"(
                             auto indices = torch::arange(eye_4.numel());
                             auto z = indices.index({eye_4.flatten() == 0});
                         )",
                                                 Mesoscale(), "f(eye_4) -> z",
                                                 /*torchscript=*/true}},
       }},
  };
}

BenchmarkTree FullSuite() {
  // LabelKey{} splices a tree in without adding a label part.
  return {{LabelKey{}, StandardSuite()}, {LabelKey{}, ExtendedSuite()}};
}

}  // namespace icount::definitions
