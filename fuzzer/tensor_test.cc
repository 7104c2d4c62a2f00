#include "fuzzer/tensor.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/zeros.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "fuzzer/internal/random_state.h"
#include "fuzzer/value.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace icount::fuzzer {
namespace {

using fuzzer::internal::RandomState;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

Params MakeParams(std::initializer_list<std::pair<const char*, Value>> entries) {
  Params params;
  for (const auto& [name, value] : entries) params.Set(name, value);
  return params;
}

at::Generator Generator(uint64_t seed) { return at::make_generator<at::CPUGeneratorImpl>(seed); }

TEST(DtypeTest, NamesAndSizesAreTheReferences) {
  EXPECT_EQ(DtypeName(at::kFloat), "torch.float32");
  EXPECT_EQ(DtypeName(at::kLong), "torch.int64");
  EXPECT_EQ(DtypeName(at::kComplexDouble), "torch.complex128");
  EXPECT_EQ(*ParseDtype("float64"), at::kDouble);
  EXPECT_EQ(*ParseDtype("torch.half"), at::kHalf);
  EXPECT_EQ(*ParseDtype("bool"), at::kBool);
  const absl::StatusOr<at::ScalarType> bad = ParseDtype("float128");
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("unknown dtype 'float128'; expected one of float32"));
  // /usr/bin/python3 -c 'import torch
  // from torch.utils.benchmark.utils.fuzzer import dtype_size
  // print([dtype_size(d) for d in (torch.bool, torch.float16, torch.complex64,
  //        torch.complex128, torch.int32, torch.int64)])'  -> [1, 2, 4, 8, 4, 8]
  EXPECT_EQ(*ReferenceDtypeSize(at::kBool), 1);
  EXPECT_EQ(*ReferenceDtypeSize(at::kHalf), 2);
  EXPECT_EQ(*ReferenceDtypeSize(at::kComplexFloat), 4);  // half of the true 8
  EXPECT_EQ(*ReferenceDtypeSize(at::kComplexDouble), 8);
  EXPECT_EQ(*ReferenceDtypeSize(at::kInt), 4);
  EXPECT_EQ(*ReferenceDtypeSize(at::kLong), 8);
  EXPECT_FALSE(ReferenceDtypeSize(at::kQInt8).ok());
}

TEST(FuzzedTensorTest, ResolveCutsAndPadsToTheDimensionCount) {
  FuzzedTensor t("t", {"a", 5, "b"});
  t.steps = {2};
  t.dim_parameter = "dim";
  absl::StatusOr<ResolvedShape> two = t.Resolve(MakeParams({{"a", 3}, {"b", 7}, {"dim", 2}}));
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_THAT(two->size, ElementsAre(3, 5));
  EXPECT_THAT(two->steps, ElementsAre(2, 1));
  EXPECT_THAT(two->allocation_size, ElementsAre(6, 5));
  absl::StatusOr<ResolvedShape> five = t.Resolve(MakeParams({{"a", 3}, {"b", 7}, {"dim", 5}}));
  ASSERT_TRUE(five.ok());
  EXPECT_THAT(five->size, ElementsAre(3, 5, 7, 1, 1));
  // Entries past the dimension count are not looked at, so "b" may be a float.
  EXPECT_TRUE(t.Resolve(MakeParams({{"a", 3}, {"b", 0.5}, {"dim", 1}})).ok());
}

TEST(FuzzedTensorTest, ResolveRejectsNonIntegerAndNegativeSizes) {
  FuzzedTensor t("t", {"a", "b"});
  EXPECT_THAT(std::string(t.Resolve(MakeParams({{"a", 2.5}, {"b", 1}})).status().message()),
              HasSubstr("tensor 't': size[0] is parameter 'a' = 2.5, which is not an int"));
  EXPECT_THAT(std::string(t.Resolve(MakeParams({{"a", 2}, {"b", -1}})).status().message()),
              HasSubstr("size[1] is negative"));
  EXPECT_THAT(std::string(t.Resolve(MakeParams({{"a", 2}})).status().message()),
              HasSubstr("size[1] names 'b', which is not a parameter"));
  t.steps = {0};
  EXPECT_THAT(std::string(t.Resolve(MakeParams({{"a", 2}, {"b", 1}})).status().message()),
              HasSubstr("a slice step must be at least 1"));
  FuzzedTensor d("d", {4});
  d.dim_parameter = "dim";
  EXPECT_THAT(std::string(d.Resolve(MakeParams({{"dim", 1.0}})).status().message()),
              HasSubstr("dim_parameter 'dim' must be an int >= 0, got 1.0"));
}

TEST(FuzzedTensorTest, LimitsAreExactAndDoNotOverflow) {
  FuzzedTensor t("t", {"a", "b", "c"});
  t.max_elements = 1000;
  const int64_t huge = int64_t{1} << 40;
  // 2**120 elements: an int64 product would wrap (to 0 here) and pass.
  EXPECT_FALSE(*t.SatisfiesConstraints(MakeParams({{"a", huge}, {"b", huge}, {"c", huge}})));
  EXPECT_TRUE(*t.SatisfiesConstraints(MakeParams({{"a", 10}, {"b", 10}, {"c", 10}})));
  EXPECT_FALSE(*t.SatisfiesConstraints(MakeParams({{"a", 10}, {"b", 10}, {"c", 11}})));
  // A zero size after a saturated product is still zero elements.
  t.min_elements = 1;
  EXPECT_FALSE(*t.SatisfiesConstraints(MakeParams({{"a", huge}, {"b", huge}, {"c", 0}})));

  // size * step beyond int64: rejected by an allocation limit, refused by Make().
  FuzzedTensor wide("w", {"a"});
  wide.steps = {16};
  const Params wide_params = MakeParams({{"a", int64_t{1} << 62}});
  EXPECT_TRUE(*wide.SatisfiesConstraints(wide_params));
  wide.max_allocation_bytes = int64_t{1} << 40;
  EXPECT_FALSE(*wide.SatisfiesConstraints(wide_params));
  RandomState state(0);
  at::Generator generator = Generator(0);
  EXPECT_THAT(std::string(wide.Make(wide_params, state, generator).status().message()),
              HasSubstr("is too large to allocate"));

  FuzzedTensor s("s", {10, 10});
  s.steps = {4, 1};
  s.dtype = at::kDouble;
  s.max_allocation_bytes = 40 * 10 * 8;  // (40, 10) doubles, before slicing
  EXPECT_TRUE(*s.SatisfiesConstraints(Params()));
  s.max_allocation_bytes = 40 * 10 * 8 - 1;
  EXPECT_FALSE(*s.SatisfiesConstraints(Params()));
}

TEST(FuzzedTensorTest, MakesStridedTensorsFromTheGenerator) {
  FuzzedTensor t("t", {4, 3});
  t.steps = {2, 3};
  t.probability_contiguous = 1.0;  // the coin never exceeds 1: no permutation
  RandomState state(0);
  at::Generator generator = Generator(42);
  absl::StatusOr<MadeTensor> made = t.Make(Params(), state, generator);
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_THAT(made->tensor.sizes().vec(), ElementsAre(4, 3));
  EXPECT_THAT(made->tensor.strides().vec(), ElementsAre(2 * 9, 3));
  EXPECT_FALSE(made->properties.is_contiguous);
  EXPECT_EQ(made->properties.numel, 12);
  EXPECT_THAT(made->properties.order, ElementsAre(0, 1));
  EXPECT_THAT(made->properties.steps, ElementsAre(2, 3));
  EXPECT_EQ(made->properties.dtype, "torch.float32");
  // torch.rand of the allocation size, then t[0:8:2, 0:9:3].
  const at::Tensor expected = at::rand({8, 9}, Generator(42)).slice(0, 0, 8, 2).slice(1, 0, 9, 3);
  EXPECT_TRUE(at::equal(made->tensor, expected));
  // One draw for the contiguity coin, nothing else.
  RandomState reference(0);
  reference.RandomSample();
  EXPECT_EQ(state.NextUint32(), reference.NextUint32());
}

TEST(FuzzedTensorTest, PermutedLayoutsKeepTheValues) {
  FuzzedTensor t("t", {3, 4, 5});
  t.probability_contiguous = 0.0;  // always permute (a coin of exactly 0 aside)
  RandomState state(3);
  at::Generator generator = Generator(7);
  absl::StatusOr<MadeTensor> made = t.Make(Params(), state, generator);
  ASSERT_TRUE(made.ok()) << made.status();
  const std::vector<int64_t>& order = made->properties.order;
  ASSERT_EQ(order.size(), 3u);
  EXPECT_NE(order, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_FALSE(made->properties.is_contiguous);
  // Memory is laid out in `order`: the last dimension of the order has
  // stride 1, the first the largest.
  EXPECT_EQ(made->tensor.stride(order[2]), 1);
  EXPECT_EQ(made->tensor.stride(order[0]),
            made->tensor.size(order[1]) * made->tensor.size(order[2]));
  EXPECT_TRUE(at::equal(made->tensor, at::rand({3, 4, 5}, Generator(7))));
}

TEST(FuzzedTensorTest, IntegerTensorsHoldOneTo126) {
  FuzzedTensor t("t", {1000});
  t.dtype = at::kByte;
  RandomState state(0);
  at::Generator generator = Generator(1);
  absl::StatusOr<MadeTensor> made = t.Make(Params(), state, generator);
  ASSERT_TRUE(made.ok());
  EXPECT_EQ(made->tensor.scalar_type(), at::kByte);
  EXPECT_GE(made->tensor.min().item<int64_t>(), 1);
  EXPECT_LE(made->tensor.max().item<int64_t>(), 126);
}

TEST(FuzzedTensorTest, CustomConstructorsAreChecked) {
  FuzzedTensor t("t", {2, 3});
  t.tensor_constructor = [](const std::vector<int64_t>& size, at::ScalarType dtype, const Params&,
                            at::Generator&) -> absl::StatusOr<at::Tensor> {
    return at::zeros({3, 2}, at::TensorOptions().dtype(dtype));
  };
  RandomState state(0);
  at::Generator generator = Generator(1);
  EXPECT_THAT(std::string(t.Make(Params(), state, generator).status().message()),
              HasSubstr("tensor_constructor returned size (3, 2), expected (2, 3)"));
  t.tensor_constructor = [](const std::vector<int64_t>&, at::ScalarType, const Params&,
                            at::Generator&) -> absl::StatusOr<at::Tensor> {
    return absl::UnavailableError("no values today");
  };
  const absl::Status failed = t.Make(Params(), state, generator).status();
  EXPECT_EQ(failed.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(failed.message()),
              HasSubstr("tensor 't': tensor_constructor: no values"));
}

TEST(FuzzedSparseTensorTest, NnzComesFromTheSumOfSizes) {
  FuzzedSparseTensor s("s", {"a", "b"});
  const Params params = MakeParams({{"a", 40}, {"b", 60}, {"density", 0.1}, {"coalesced", false}});
  RandomState state(0);
  const RandomState before = state;
  at::Generator generator = Generator(5);
  absl::StatusOr<MadeTensor> made = s.Make(params, state, generator);
  ASSERT_TRUE(made.ok()) << made.status();
  // ceil((40 + 60) * 0.1) = 10 indices, each stored twice when uncoalesced.
  EXPECT_EQ(made->tensor._nnz(), 20);
  EXPECT_FALSE(made->properties.is_coalesced);
  EXPECT_EQ(made->properties.numel, 2400);
  EXPECT_EQ(made->properties.sparse_dim, 2);
  EXPECT_EQ(made->properties.dense_dim, 0);
  EXPECT_FALSE(made->properties.is_hybrid);
  EXPECT_DOUBLE_EQ(made->properties.sparsity, 0.9);
  // No draws from the NumPy state.
  RandomState untouched = before;
  EXPECT_EQ(state.NextUint32(), untouched.NextUint32());
}

TEST(FuzzedSparseTensorTest, HybridTensorsAndCoalescing) {
  FuzzedSparseTensor s("s", {"a", "b", "c"});
  s.sparse_dim = "sd";
  const Params params =
      MakeParams({{"a", 8}, {"b", 6}, {"c", 2}, {"sd", 5}, {"density", 1}, {"coalesced", true}});
  RandomState state(0);
  at::Generator generator = Generator(5);
  absl::StatusOr<MadeTensor> made = s.Make(params, state, generator);
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_TRUE(made->properties.is_coalesced);
  // sparse_dim is capped at the number of sizes.
  EXPECT_EQ(made->properties.sparse_dim, 3);
  EXPECT_LE(made->tensor._nnz(), 16);  // coalescing merges duplicate indices

  const Params hybrid =
      MakeParams({{"a", 8}, {"b", 6}, {"c", 2}, {"sd", 1}, {"density", 0.5}, {"coalesced", 1}});
  made = s.Make(hybrid, state, generator);
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_EQ(made->properties.sparse_dim, 1);
  EXPECT_EQ(made->properties.dense_dim, 2);
  EXPECT_TRUE(made->properties.is_hybrid);
  // Each of the ceil(16 * 0.5) = 8 values is a dense (6, 2) block.
  EXPECT_THAT(made->tensor._values().sizes().vec(), ElementsAre(::testing::Le(8), 6, 2));
}

TEST(FuzzedSparseTensorTest, ErrorsAreTheReferencesWithContext) {
  FuzzedSparseTensor s("s", {"a"});
  RandomState state(0);
  at::Generator generator = Generator(5);
  EXPECT_THAT(std::string(s.Make(MakeParams({{"a", 10}, {"density", 1.5}, {"coalesced", true}}),
                                 state, generator)
                              .status()
                              .message()),
              HasSubstr("is density in [0, 1]?"));
  EXPECT_THAT(std::string(s.Make(MakeParams({{"a", 10}, {"density", true}, {"coalesced", true}}),
                                 state, generator)
                              .status()
                              .message()),
              HasSubstr("must hold a number"));
  // The reference adds torch.randn_like values to uncoalesced tensors, which
  // integer dtypes do not support.
  s.dtype = at::kLong;
  const absl::Status integer =
      s.Make(MakeParams({{"a", 10}, {"density", 0.5}, {"coalesced", false}}), state, generator)
          .status();
  EXPECT_THAT(std::string(integer.message()),
              HasSubstr("tensor 's': an uncoalesced sparse tensor needs a floating dtype"));
  EXPECT_THAT(std::string(integer.message()), HasSubstr("torch.int64 does not support"));
  EXPECT_TRUE(
      s.Make(MakeParams({{"a", 10}, {"density", 0.5}, {"coalesced", true}}), state, generator)
          .ok());
}

}  // namespace
}  // namespace icount::fuzzer
