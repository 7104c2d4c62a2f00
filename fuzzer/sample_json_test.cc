#include "fuzzer/sample_json.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/complex.h>
#include <ATen/ops/sparse_coo_tensor.h>
#include <ATen/ops/tensor.h>

#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "fuzzer/fuzzer.h"
#include "gtest/gtest.h"

// Real fuzzer samples are compared with the reference script's JSON in
// reference_test.cc; this checks the format on a hand-made sample. The
// expected line is what json.dumps prints for the same dict, e.g.
//   /usr/bin/python3 -c 'import json; print(json.dumps({"params": {"n": 3,
//   "f": 0.5, "b": True, "we\"ird": 1e-05}}))'
// -> {"params": {"n": 3, "f": 0.5, "b": true, "we\"ird": 1e-05}}

namespace icount::fuzzer {
namespace {

NamedTensor Dense(std::string name, at::Tensor t, std::vector<int64_t> order) {
  TensorProperties p;
  p.numel = t.numel();
  p.dtype = DtypeName(t.scalar_type());
  p.is_contiguous = t.is_contiguous();
  p.steps = std::vector<int64_t>(t.dim(), 1);
  p.order = std::move(order);
  return NamedTensor{std::move(name), std::move(t), std::move(p)};
}

TEST(SampleJsonTest, WritesWhatJsonDumpsWrites) {
  FuzzedSample sample;
  sample.params.Set("n", 3);
  sample.params.Set("f", 0.5);
  sample.params.Set("b", true);
  sample.params.Set("we\"ird", 1e-05);

  // A transposed (non-contiguous) float tensor 0..5.
  sample.tensors.push_back(Dense("x", at::arange(6, at::kFloat).reshape({2, 3}).t(), {1, 0}));
  // complex: (1 + 2i) + (3 - 0.5i)
  sample.tensors.push_back(
      Dense("c", at::complex(at::tensor({1.0f, 3.0f}), at::tensor({2.0f, -0.5f})), {0}));
  // sparse: values 1.5 and 2.5 at positions 0 and 2 of a length-4 vector.
  at::Tensor sparse = at::sparse_coo_tensor(at::tensor({0, 2}, at::kLong).unsqueeze(0),
                                            at::tensor({1.5, 2.5}, at::kDouble), {4});
  TensorProperties sp;
  sp.is_sparse = true;
  sp.numel = 4;
  sp.dtype = "torch.float64";
  sample.tensors.push_back(NamedTensor{"s", sparse, sp});

  absl::StatusOr<std::string> json = SampleToJson(sample);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_EQ(*json,
            "{\"params\": {\"n\": 3, \"f\": 0.5, \"b\": true, \"we\\\"ird\": 1e-05}, "
            "\"tensors\": {"
            "\"x\": {\"size\": [3, 2], \"stride\": [1, 3], \"dtype\": \"torch.float32\", "
            "\"is_contiguous\": false, \"numel\": 6, \"order\": [1, 0], \"steps\": [1, 1], "
            "\"sum\": 15.0}, "
            "\"c\": {\"size\": [2], \"stride\": [1], \"dtype\": \"torch.complex64\", "
            "\"is_contiguous\": true, \"numel\": 2, \"order\": [0], \"steps\": [1], "
            "\"sum\": 4.0, \"sum_imag\": 1.5}, "
            "\"s\": {\"size\": [4], \"dtype\": \"torch.float64\", \"numel\": 4, \"nnz\": 2, "
            "\"is_coalesced\": false, \"sparse_dim\": 1, \"dense_dim\": 0, \"sum\": 4.0}}}");
}

TEST(SampleJsonTest, EmptySample) {
  absl::StatusOr<std::string> json = SampleToJson(FuzzedSample());
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(*json, "{\"params\": {}, \"tensors\": {}}");
}

}  // namespace
}  // namespace icount::fuzzer
