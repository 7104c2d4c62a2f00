// One fuzzer sample as a line of JSON: what //tools:fuzz prints, and what
// fuzzer/testdata/make_reference.py prints for torch.utils.benchmark, so that
// the two can be compared line for line.
//
//   {"params": {"dim": 1, "k_any_0": 5031, ...},
//    "tensors": {"x": {"size": [16384], "stride": [1],
//                      "dtype": "torch.float32", "is_contiguous": true,
//                      "numel": 16384, "order": [0], "steps": [1],
//                      "sum": 8201.53918838501}}}
//
// (on one line, with json.dumps' default separators ", " and ": "). Params
// appear in parameter order, tensors in the fuzzer's order. Dense tensors
// report size, stride, dtype, is_contiguous, numel, and the reference's
// order and steps properties; sparse ones size, dtype, numel, nnz,
// is_coalesced, sparse_dim and dense_dim. "sum" is the sum of the values
// (for sparse tensors, of the stored values) computed by LibTorch in float64
// (complex128 for complex tensors, whose imaginary part is "sum_imag").
// Floats are written as Python's repr() writes them.
//
// LibTorch's sum splits the work across threads, which changes the last
// bits; the tool and the reference script run single-threaded
// (at::set_num_threads(1)) so that sums compare exactly.

#ifndef ICOUNT_FUZZER_SAMPLE_JSON_H_
#define ICOUNT_FUZZER_SAMPLE_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "fuzzer/fuzzer.h"

namespace icount::fuzzer {

// The JSON line for `sample`, without a trailing newline. Errors only if
// LibTorch fails to sum a tensor.
absl::StatusOr<std::string> SampleToJson(const FuzzedSample& sample);

}  // namespace icount::fuzzer

#endif  // ICOUNT_FUZZER_SAMPLE_JSON_H_
