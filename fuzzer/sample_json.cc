#include "fuzzer/sample_json.h"

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>
#include <c10/util/complex.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "base/text.h"
#include "fuzzer/fuzzer.h"
#include "fuzzer/value.h"

namespace icount::fuzzer {
namespace {

std::string JsonInts(const std::vector<int64_t>& values) {
  return absl::StrCat("[", absl::StrJoin(values, ", "), "]");
}

std::string JsonBool(bool b) { return b ? "true" : "false"; }

// ", \"sum\": ..." (and "sum_imag" for complex tensors).
std::string SumFields(const at::Tensor& values) {
  if (at::isComplexType(values.scalar_type())) {
    const c10::complex<double> sum = values.sum(at::kComplexDouble).item<c10::complex<double>>();
    return absl::StrCat(", \"sum\": ", FormatDoubleJson(sum.real()),
                        ", \"sum_imag\": ", FormatDoubleJson(sum.imag()));
  }
  return absl::StrCat(", \"sum\": ", FormatDoubleJson(values.sum(at::kDouble).item<double>()));
}

std::string TensorJson(const NamedTensor& t) {
  const TensorProperties& p = t.properties;
  if (p.is_sparse) {
    return absl::StrCat(
        "{\"size\": ", JsonInts(t.tensor.sizes().vec()), ", \"dtype\": ", base::JsonString(p.dtype),
        ", \"numel\": ", p.numel, ", \"nnz\": ", t.tensor._nnz(),
        ", \"is_coalesced\": ", JsonBool(t.tensor.is_coalesced()),
        ", \"sparse_dim\": ", t.tensor.sparse_dim(), ", \"dense_dim\": ", t.tensor.dense_dim(),
        SumFields(t.tensor._values()), "}");
  }
  return absl::StrCat("{\"size\": ", JsonInts(t.tensor.sizes().vec()),
                      ", \"stride\": ", JsonInts(t.tensor.strides().vec()),
                      ", \"dtype\": ", base::JsonString(p.dtype),
                      ", \"is_contiguous\": ", JsonBool(p.is_contiguous), ", \"numel\": ", p.numel,
                      ", \"order\": ", JsonInts(p.order), ", \"steps\": ", JsonInts(p.steps),
                      SumFields(t.tensor), "}");
}

}  // namespace

absl::StatusOr<std::string> SampleToJson(const FuzzedSample& sample) {
  std::vector<std::string> params;
  for (const auto& [name, value] : sample.params) {
    params.push_back(absl::StrCat(base::JsonString(name), ": ", value.ToJson()));
  }
  std::vector<std::string> tensors;
  for (const NamedTensor& t : sample.tensors) {
    try {
      tensors.push_back(absl::StrCat(base::JsonString(t.name), ": ", TensorJson(t)));
    } catch (const std::exception& e) {
      const auto* c10_error = dynamic_cast<const c10::Error*>(&e);
      return absl::InternalError(absl::StrCat(
          "tensor '", t.name, "': ", c10_error ? c10_error->what_without_backtrace() : e.what()));
    }
  }
  return absl::StrCat("{\"params\": {", absl::StrJoin(params, ", "), "}, \"tensors\": {",
                      absl::StrJoin(tensors, ", "), "}}");
}

}  // namespace icount::fuzzer
