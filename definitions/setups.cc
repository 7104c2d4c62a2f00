#include "definitions/setups.h"

#include <utility>

#include "expand/definition.h"

namespace icount::definitions {

using expand::GroupedSetup;

GroupedSetup WithTorchNN(GroupedSetup setup) {
  setup.global_setup = kTorchNNInclude;
  return setup;
}

GroupedSetup Trivial2D() {
  return GroupedSetup{"x = torch.ones((4, 4))", "auto x = torch::ones({4, 4});"};
}

GroupedSetup Trivial3D() {
  return GroupedSetup{"x = torch.ones((4, 4, 4))", "auto x = torch::ones({4, 4, 4});"};
}

GroupedSetup Trivial4D() {
  return GroupedSetup{"x = torch.ones((4, 4, 4, 4))", "auto x = torch::ones({4, 4, 4, 4});"};
}

GroupedSetup Training() {
  return WithTorchNN(GroupedSetup{
      R"(
        # Inputs
        x = torch.ones((1,))
        y = torch.ones((1,))

        # Weights
        w0 = torch.ones(
            (1,), requires_grad=True)
        w1 = torch.ones(
            (1,), requires_grad=True)
        w2 = torch.ones(
            (2,), requires_grad=True)
      )",
      R"(
        // Inputs
        auto x = torch::ones({1});
        auto y = torch::ones({1});

        // Weights
        auto w0 = torch::ones({1});
        w0.set_requires_grad(true);
        auto w1 = torch::ones({1});
        w1.set_requires_grad(true);
        auto w2 = torch::ones({2});
        w2.set_requires_grad(true);
      )"});
}

GroupedSetup Generic() {
  // torch::manual_seed comes with <torch/torch.h>.
  return WithTorchNN(GroupedSetup{
      R"(
        torch.manual_seed(138_10_23)
        x = torch.rand((4, 4))
        y_float = torch.ones((4, 4))
        y_int = torch.ones(
            (4, 4), dtype=torch.int32)
      )",
      R"(
        torch::manual_seed(1381023);
        auto x = torch::rand({4, 4});
        auto y_float = torch::ones({4, 4});
        auto y_int = torch::ones({4, 4}, at::kInt);
      )"});
}

GroupedSetup Indexing() {
  return WithTorchNN(GroupedSetup{
      R"(
        torch.manual_seed(6626_10_34)

        x = torch.randn(1, 1, 1)
        y = torch.randn(1, 1, 1)
        a = torch.zeros(100, 100, 1, 1, 1)
        b = torch.arange(100).long().flip(0)
      )",
      R"(
        using namespace torch::indexing;
        torch::manual_seed(66261034);

        auto x = torch::randn({1, 1, 1});
        auto y = torch::randn({1, 1, 1});
        auto a = torch::zeros({100, 100, 1, 1, 1});
        auto b = torch::arange(
            0, 100, torch::TensorOptions().dtype(torch::kLong)).flip(0);
      )"});
}

GroupedSetup Mesoscale() {
  return WithTorchNN(GroupedSetup{
      R"(
        x = torch.ones((4, 4))
        y = torch.ones((4, 4))
        bias = torch.ones((1,))
        eye_4 = torch.eye(4)
      )",
      R"(
        auto x = torch::ones({4, 4});
        auto y = torch::ones({4, 4});
        auto bias = torch::ones({1});
        auto eye_4 = torch::eye(4);
      )"});
}

}  // namespace icount::definitions
