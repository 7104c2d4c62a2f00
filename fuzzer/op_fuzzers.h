// The op fuzzers of torch.utils.benchmark (torch/utils/benchmark/op_fuzzers/),
// with the same parameter spaces, so that a seed gives the reference's
// samples:
//
//   absl::StatusOr<icount::fuzzer::Fuzzer> fuzzer = icount::fuzzer::UnaryOpFuzzer(/*seed=*/0);
//   absl::StatusOr<std::vector<icount::fuzzer::FuzzedSample>> samples = fuzzer->Take(4);
//   // (*samples)[0].tensors[0].tensor: the reference's x, sizes (16, 34, 8324)
//
// Shared shape: "dim" (1, 2 or 3 dimensions with probabilities .3/.4/.3,
// strict), per dimension i a log-uniform "k_any_i" and a power-of-two (or,
// for the spectral fuzzer, regular-number) "k_pow2_i"/"k_regular_i", and a
// strict "k_i" aliasing one of them; strided fuzzers add step parameters
// (1 with probability .8, else 2, 4, 8 or 16) and dense tensors of 4 Ki to
// 32 Mi elements and at most 2 GiB allocated.
//
// Reference quirks kept: BinaryOpFuzzer draws y_step_i but slices y with
// x_step_i; the spectral fuzzer draws k_any_i even when probability_regular
// is 1 and they cannot be chosen; the sparse fuzzers' nnz is
// ceil(sum of sizes * density), not of the element count, so hybrid samples
// can be far larger than max_elements suggests (see FuzzedSparseTensor::Make:
// UnaryOpSparseFuzzer(11) needs about 20 GB for its second sample, in Python
// as here).

#ifndef ICOUNT_FUZZER_OP_FUZZERS_H_
#define ICOUNT_FUZZER_OP_FUZZERS_H_

#include <c10/core/ScalarType.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "fuzzer/fuzzer.h"

namespace icount::fuzzer {

// op_fuzzers/unary.py: tensor x, sizes (k0, k1, k2) cut to "dim" dimensions.
absl::StatusOr<Fuzzer> UnaryOpFuzzer(int64_t seed, at::ScalarType dtype = at::kFloat,
                                     bool cuda = false);

// op_fuzzers/binary.py: x as in UnaryOpFuzzer and y with sizes y_k_i, each
// k_i (80%) or 1 (20%, to test broadcasting).
absl::StatusOr<Fuzzer> BinaryOpFuzzer(int64_t seed, at::ScalarType dtype = at::kFloat,
                                      bool cuda = false);

// op_fuzzers/spectral.py: x with sizes from 16 to 16384, each a regular
// number (2**a 3**b 5**c) with probability `probability_regular`.
absl::StatusOr<Fuzzer> SpectralOpFuzzer(int64_t seed, at::ScalarType dtype = at::kDouble,
                                        bool cuda = false, double probability_regular = 1.0);

// op_fuzzers/sparse_unary.py: sparse COO x with "sparse_dim" sparse
// dimensions, density .1/.05/.01 and coalesced or not.
absl::StatusOr<Fuzzer> UnaryOpSparseFuzzer(int64_t seed, at::ScalarType dtype = at::kFloat,
                                           bool cuda = false);

// op_fuzzers/sparse_binary.py: sparse x and y of equal sizes.
absl::StatusOr<Fuzzer> BinaryOpSparseFuzzer(int64_t seed, at::ScalarType dtype = at::kFloat,
                                            bool cuda = false);

// spectral.py's REGULAR_SIZES: the numbers 2**a 3**b 5**c in (16, 16384],
// sorted. Computed as the reference does, including its floating-point
// `int(math.log(n, base))` bounds: 189 numbers.
const std::vector<int64_t>& SpectralRegularSizes();

// The op fuzzers by the names //tools:fuzz takes: "unary", "binary",
// "spectral", "sparse_unary", "sparse_binary".
std::vector<std::string> OpFuzzerNames();

// The op fuzzer called `name` with its reference default dtype (float64
// for "spectral", float32 otherwise) unless `dtype` is given. InvalidArgument
// for unknown names.
absl::StatusOr<Fuzzer> MakeOpFuzzer(absl::string_view name, int64_t seed,
                                    std::optional<at::ScalarType> dtype = std::nullopt);

}  // namespace icount::fuzzer

#endif  // ICOUNT_FUZZER_OP_FUZZERS_H_
