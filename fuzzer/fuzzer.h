// Fuzzer: random parameters and the tensors they describe, reproducing
// torch.utils.benchmark.Fuzzer (1.13) sample for sample.
//
// A Fuzzer draws each sample's parameters from a NumPy-compatible RandomState
// seeded with `seed`, rejects candidates that break a constraint or a tensor's
// limits (up to 1000 tries per sample, the reference's limit), and builds the
// tensors with a LibTorch generator seeded the way the reference seeds torch.
// The same seed gives the same parameters, sizes, strides, memory layouts and
// tensor values as the Python reference:
//
//   using namespace icount::fuzzer;
//   absl::StatusOr<Fuzzer> fuzzer = Fuzzer::Create(
//       {FuzzedParameter::LogUniform("n", 16, 1024),
//        FuzzedParameter::Discrete("m", {{ParameterAlias{"n"}, 0.5}, {1, 0.5}})},
//       {FuzzedTensor("x", {"n", "m"})},
//       {[](const Params& p) { return p.at("n").int_value() % 2 == 0; }},
//       /*seed=*/0);
//   if (!fuzzer.ok()) return fuzzer.status();
//   FuzzerStream stream = fuzzer->Stream();
//   for (int i = 0; i < 10; ++i) {
//     absl::StatusOr<FuzzedSample> sample = stream.Next();
//     if (!sample.ok()) return sample.status();
//     const at::Tensor& x = sample->tensors[0].tensor;  // sizes (n, m)
//   }
//
// Python's `fuzzer.take(n)` is a generator that restarts from the seed on
// every call; here Stream() restarts, and Take(n) collects n samples of a
// fresh stream. rejection_rate() accumulates over all streams, as the
// reference's counters do.
//
// Differences from the reference, all on inputs it mishandles:
//  - Definitions are checked up front (Create), with messages that name the
//    parameter or tensor: the reference asserts some of these checks and
//    fails others only when a bad value is first drawn (an alias cycle, an
//    alias to a missing parameter, probabilities NumPy rejects).
//  - Tensors use a generator of their own stream instead of torch's global
//    one (which the reference reseeds with torch.manual_seed). The values
//    are the same; streams do not disturb each other or other torch code.
//  - A 0-dimensional FuzzedTensor is a scalar tensor; the reference's
//    `raw_tensor[[]]` raises "too many indices" for it.
//  - seed is required (the reference's seed=None draws a 63-bit seed that
//    np.random.RandomState rejects with probability 1 - 2**-31).
//  - FuzzedSparseTensor reads the density, coalesced and sparse_dim
//    parameters by the names it is given; the reference ignores the names
//    and reads params["density"], ["coalesced"] and ["sparse_dim"], which
//    are the defaults here.
// Not modelled: nested parameter lists (flatten them), roll_parameter and the
// sparse tensor's nnz argument (the reference ignores both).
//
// Neither Fuzzer nor FuzzerStream is thread-safe; separate streams may run
// on separate threads only if they do not share a Fuzzer's counters, i.e.
// come from different Fuzzers.

#ifndef ICOUNT_FUZZER_FUZZER_H_
#define ICOUNT_FUZZER_FUZZER_H_

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "fuzzer/internal/random_state.h"
#include "fuzzer/parameter.h"
#include "fuzzer/tensor.h"
#include "fuzzer/value.h"

namespace icount::fuzzer {

// Called with each candidate's (alias-resolved) parameters; false rejects
// the candidate. The reference passes the dict positionally (not as kwargs,
// whatever its docstring says), which this mirrors. Exceptions thrown here
// become errors of FuzzerStream::Next().
using Constraint = std::function<bool(const Params&)>;

struct NamedTensor {
  std::string name;
  at::Tensor tensor;
  TensorProperties properties;
};

// What the reference's take() yields per step: (tensors, tensor_properties,
// params). Tensors are in the order of the Fuzzer's tensor list.
struct FuzzedSample {
  Params params;
  std::vector<NamedTensor> tensors;
};

namespace internal {
struct FuzzerSpec;
struct FuzzerCounters;
}  // namespace internal

class FuzzerStream;

class Fuzzer {
 public:
  // Tries per sample before giving up, as in the reference.
  static constexpr int kMaxAttempts = 1000;

  // Checks the definition (see the header comment) and returns a Fuzzer.
  // `seed` must be in [0, 2**32 - 1], the range np.random.RandomState takes.
  static absl::StatusOr<Fuzzer> Create(std::vector<FuzzedParameter> parameters,
                                       std::vector<TensorSpec> tensors,
                                       std::vector<Constraint> constraints, int64_t seed);
  static absl::StatusOr<Fuzzer> Create(std::vector<FuzzedParameter> parameters,
                                       std::vector<TensorSpec> tensors, int64_t seed);

  Fuzzer(Fuzzer&&) = default;
  Fuzzer& operator=(Fuzzer&&) = default;
  Fuzzer(const Fuzzer&) = delete;
  Fuzzer& operator=(const Fuzzer&) = delete;

  // A new stream from the seed: its samples are those of the reference's
  // take(). The stream shares this Fuzzer's rejection counters and stays
  // valid if the Fuzzer is moved or destroyed.
  FuzzerStream Stream();

  // The first n samples of a fresh stream. n must be >= 0.
  absl::StatusOr<std::vector<FuzzedSample>> Take(int64_t n);

  // Rejected candidates / generated candidates over every stream so far
  // (0 before any).
  double rejection_rate() const;
  int64_t candidates_generated() const;
  int64_t candidates_rejected() const;

  int64_t seed() const;
  const std::vector<FuzzedParameter>& parameters() const;
  const std::vector<TensorSpec>& tensors() const;

 private:
  Fuzzer(std::shared_ptr<const fuzzer::internal::FuzzerSpec> spec,
         std::shared_ptr<fuzzer::internal::FuzzerCounters> counters);

  std::shared_ptr<const fuzzer::internal::FuzzerSpec> spec_;
  std::shared_ptr<fuzzer::internal::FuzzerCounters> counters_;
};

// One pass over a Fuzzer's samples from its seed (the reference's take()
// generator). After an error, every later Next() returns the same error, as
// a Python generator stays finished once it raised.
class FuzzerStream {
 public:
  absl::StatusOr<FuzzedSample> Next();

  // The seed given to the tensor generator: state.randint(0, 2**63), the
  // first draw of the stream, as the reference passes to torch.manual_seed.
  uint64_t torch_seed() const { return torch_seed_; }

 private:
  friend class Fuzzer;
  FuzzerStream(std::shared_ptr<const fuzzer::internal::FuzzerSpec> spec,
               std::shared_ptr<fuzzer::internal::FuzzerCounters> counters);

  // The reference's _generate(): candidates until one passes, at most
  // kMaxAttempts.
  absl::StatusOr<Params> Generate();

  std::shared_ptr<const fuzzer::internal::FuzzerSpec> spec_;
  std::shared_ptr<fuzzer::internal::FuzzerCounters> counters_;
  fuzzer::internal::RandomState state_;
  uint64_t torch_seed_;
  at::Generator generator_;
  int64_t samples_ = 0;
  absl::Status error_;
};

}  // namespace icount::fuzzer

#endif  // ICOUNT_FUZZER_FUZZER_H_
