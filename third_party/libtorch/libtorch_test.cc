// Proves LibTorch's C++ frontend compiles and links from Debian's
// libtorch-dev, and that TorchScript (torch/script.h) is usable.
#include <torch/script.h>
#include <torch/torch.h>

#include "gtest/gtest.h"

namespace {

TEST(LibTorchTest, AddsTensors) {
  torch::Tensor x = torch::ones({4, 4});
  torch::Tensor y = torch::full({4, 4}, 2.0);
  torch::Tensor z = torch::add(x, y);
  EXPECT_EQ(z.sizes(), (std::vector<int64_t>{4, 4}));
  EXPECT_DOUBLE_EQ(z.sum().item<double>(), 48.0);
}

TEST(LibTorchTest, AutogradProducesGradients) {
  torch::Tensor w = torch::ones({2, 2}, torch::requires_grad());
  torch::Tensor y = (w * 3).sum();
  y.backward();
  EXPECT_TRUE(w.grad().defined());
  EXPECT_DOUBLE_EQ(w.grad().sum().item<double>(), 12.0);
}

TEST(LibTorchTest, ThreadCountCanBeSetAndRestored) {
  const int before = torch::get_num_threads();
  torch::set_num_threads(1);
  EXPECT_EQ(torch::get_num_threads(), 1);
  torch::set_num_threads(before);
  EXPECT_EQ(torch::get_num_threads(), before);
}

}  // namespace
