// A bit-exact C++ reimplementation of NumPy's legacy `numpy.random.RandomState`
// (the MT19937-backed API whose stream NumPy keeps frozen; verified against
// NumPy 1.24.2), restricted to the methods that torch.utils.benchmark's Fuzzer
// draws from.
//
// Why this exists: torch/utils/benchmark/utils/fuzzer.py drives every random
// decision (parameter values, custom-distribution picks, memory-layout
// permutations, and the seed handed to torch.manual_seed) from a single
// `np.random.RandomState(seed)`. To reproduce a Python fuzzer run from C++,
// the stream, and every algorithm that consumes it, must match NumPy bit for
// bit: one extra or missing 32-bit draw desynchronises everything after it.
//
// Example (mirrors `Fuzzer.take()` with seed=7):
//
//   namespace fi = icount::fuzzer::internal;
//   fi::RandomState state(7);                  // np.random.RandomState(7)
//   torch::manual_seed(state.DrawTorchSeed()); // state.randint(0, 2**63)
//   int64_t n = *state.RandInt(1, 11);         // state.randint(low=1, high=11)
//   double x = *state.Uniform(0.0, 1.0);       // state.uniform(low=0., high=1.)
//   size_t pick = *state.Choice({0.3, 0.7});   // state.choice(np.arange(2),
//                                              //              p=(0.3, 0.7))
//   if (state.RandomSample() > 0.5) {          // state.rand()
//     std::vector<int64_t> order = state.Permutation(3);  // permutation(3)
//   }
//
// Generator: MT19937 exactly as in NumPy's src/mt19937 (the reference
// Matsumoto-Nishimura generator, tempering included). Derived draws:
//   NextUint32()   one MT output                   (bitgen next_uint32)
//   NextUint64()   (first << 32) | second          (bitgen next_uint64)
//   RandomSample() ((a >> 5) * 2^26 + (b >> 6)) / 2^53, two MT outputs
//
// Beyond this class: fuzzer.py's loguniform draws uniform(np.log2(minval),
// np.log2(maxval)). On CPUs with AVX512_SKX, NumPy 1.24's np.log2 uses SVML
// and differs from glibc's log2 (std::log2) by one ULP for 1576 of the
// integers 1..199999 (measured on the dev machine), so callers replaying such
// bounds bit for bit must match np.log2, not just this stream. (Powers of two
// are exact either way.) fuzzer/internal/numpy_log2.h does.
//
// Not thread-safe; NumPy serialises with a lock, we leave that to callers.
// Copying a RandomState snapshots the stream (both copies then produce the
// same values), which is occasionally useful for look-ahead in tests.

#ifndef ICOUNT_FUZZER_INTERNAL_RANDOM_STATE_H_
#define ICOUNT_FUZZER_INTERNAL_RANDOM_STATE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace icount::fuzzer::internal {

class RandomState {
 public:
  // Number of 32-bit words in the MT19937 state (NumPy's RK_STATE_LEN).
  static constexpr int kStateWords = 624;

  // The raw generator state, equivalent to the `key` and `pos` entries of
  // NumPy's `RandomState.get_state()`. NumPy additionally stores a cached
  // Gaussian (`has_gauss`, `gauss`); this class implements no Gaussian
  // sampling, so that cache is always empty here (has_gauss == 0).
  struct State {
    std::array<uint32_t, kStateWords> key;
    // Index of the next word to temper; kStateWords means "twist first".
    int pos;
  };

  // `np.random.RandomState(seed)` for an integer seed. NumPy seeds with
  // Knuth's linear recurrence (`mt19937_seed`, identical to the reference
  // `init_genrand`). Every uint32_t is a valid seed.
  explicit RandomState(uint32_t seed);

  // `np.random.RandomState(seed)` for an arbitrary (Python) integer seed.
  // NumPy accepts exactly [0, 2**32 - 1] and raises
  // `ValueError("Seed must be between 0 and 2**32 - 1")` otherwise -- it does
  // NOT fold or hash larger integers, and it does not route them through
  // `init_by_array`. We return InvalidArgument in those cases.
  //
  // This matters for the fuzzer: `Fuzzer(seed=None)` picks its seed with
  // `RandomState().randint(0, 2**63)`, which is >= 2**32 with probability
  // 1 - 2**-31, so `Fuzzer.take()` then fails in NumPy with this very error.
  static absl::StatusOr<RandomState> FromSeed(int64_t seed);

  // `np.random.RandomState([k0, k1, ...])`: an array seed, which NumPy feeds
  // to the reference `init_by_array`. Note that a one-element array seed
  // (`RandomState([5])`) gives a different stream than `RandomState(5)`.
  // Errors mirror NumPy: empty -> "Seed must be non-empty"; any element
  // outside [0, 2**32 - 1] -> "Seed must be between 0 and 2**32 - 1".
  static absl::StatusOr<RandomState> FromSeedArray(absl::Span<const int64_t> key);

  RandomState(const RandomState&) = default;
  RandomState& operator=(const RandomState&) = default;

  // One raw tempered MT19937 output (`genrand_int32`).
  uint32_t NextUint32();

  // NumPy's 64-bit draw: the first 32-bit output forms the HIGH word.
  uint64_t NextUint64();

  // `random_sample()` / `rand()` with no arguments: a double in [0, 1) with
  // 53 random bits, consuming exactly two 32-bit outputs.
  double RandomSample();

  // `uniform(low, high)` with scalar arguments: low + (high - low) * U.
  // As in NumPy, high < low and high == low are allowed (no error), and one
  // RandomSample() is consumed even when high == low. Returns OutOfRange
  // ("Range exceeds valid bounds", NumPy's OverflowError) without consuming
  // anything if high - low is not finite (including NaN inputs).
  absl::StatusOr<double> Uniform(double low, double high);

  // `randint(low, high)` with the default dtype (np.int_ == int64 on LP64
  // Linux): a uniform integer in the half-open range [low, high), drawn with
  // NumPy's legacy masked rejection sampling (see RandomInterval). Returns
  // InvalidArgument ("low >= high") without consuming draws if low >= high.
  //
  // Python's randint accepts high == 2**63, which int64_t cannot express; use
  // RandIntInclusive(low, INT64_MAX) for that (same draws, same result).
  absl::StatusOr<int64_t> RandInt(int64_t low, int64_t high);

  // Like RandInt but over the closed range [low, high] (NumPy's internal
  // `closed=True` form, i.e. `randint(low, high + 1)` computed without
  // overflow). Returns InvalidArgument ("low > high") if low > high.
  absl::StatusOr<int64_t> RandIntInclusive(int64_t low, int64_t high);

  // The value fuzzer.py passes to torch: `state.randint(low=0, high=2 ** 63)`,
  // consumed right after construction in `Fuzzer.take()`. It costs exactly
  // one NextUint64() (the mask 2**63 - 1 never rejects), so the result is
  // NextUint64() with the top bit cleared. Always in [0, 2**63 - 1], hence
  // safe to pass to torch::manual_seed(uint64_t) / at::Generator.
  int64_t DrawTorchSeed();

  // NumPy's `random_interval(max)`: a uniform integer in [0, max]. Draws are
  // masked with the smallest all-ones mask >= max and rejected while > max;
  // 32-bit draws are used when max <= 2**32 - 1, 64-bit draws otherwise, and
  // max == 0 consumes nothing. (NumPy's legacy bounded-integer routine used
  // by randint, `random_bounded_uint64_fill` with use_masked=true, makes the
  // identical sequence of draws for every range, so both share this.)
  uint64_t RandomInterval(uint64_t max);

  // `choice(np.arange(len(p)), p=p)` with a scalar result: returns the index
  // drawn with probabilities `p`. Exactly NumPy's algorithm: validate `p`
  // (see ValidateProbabilities), cdf = cumsum(p) computed left to right,
  // cdf /= cdf[-1], u = RandomSample(), index = searchsorted(cdf, u,
  // side='right'). Consumes exactly one RandomSample() on success and
  // nothing on error.
  absl::StatusOr<size_t> Choice(absl::Span<const double> p);

  // The checks `choice` applies to `p`, in NumPy's order and with NumPy's
  // messages: non-empty ("'a' cannot be empty unless no samples are taken"),
  // Kahan-summed total not NaN ("probabilities contain NaN"), no negative
  // entry ("probabilities are not non-negative"), and
  // |sum - 1| <= sqrt(DBL_EPSILON) ~= 1.49e-8 ("probabilities do not sum to
  // 1"). That tolerance is NumPy's for float64 and for Python sequences such
  // as the tuple fuzzer.py passes. (The fuzzer's own 1e-5 check on
  // FuzzedParameter distributions is looser and is not applied here.)
  static absl::Status ValidateProbabilities(absl::Span<const double> p);

  // `permutation(n)` for an integer n: shuffles [0, 1, ..., n - 1] with
  // Shuffle(). n <= 0 yields an empty vector (np.arange(n) is empty), and
  // n <= 1 consumes no draws.
  std::vector<int64_t> Permutation(int64_t n);

  // `shuffle(x)` along the first axis: Fisher-Yates from the back,
  // for i = n-1 down to 1: swap(x[i], x[RandomInterval(i)]).
  template <typename T>
  void Shuffle(absl::Span<T> values) {
    for (size_t i = values.size(); i > 1;) {
      --i;
      const uint64_t j = RandomInterval(static_cast<uint64_t>(i));
      using std::swap;
      swap(values[i], values[static_cast<size_t>(j)]);
    }
  }

  // `get_state()` / `set_state()` for the MT19937 part of the state (see
  // State). SetState returns InvalidArgument if pos is outside
  // [0, kStateWords]; NumPy does not check this and would read out of
  // bounds.
  State GetState() const;
  absl::Status SetState(const State& state);

 private:
  // Leaves the state uninitialised; only for the factory functions.
  RandomState() = default;

  // Reference `init_genrand(s)`; also NumPy's `mt19937_seed`.
  void InitGenrand(uint32_t s);
  // Reference `init_by_array`.
  void InitByArray(absl::Span<const uint32_t> key);
  // Regenerates all kStateWords words (NumPy's `mt19937_gen`).
  void Twist();

  std::array<uint32_t, kStateWords> key_;
  int pos_;
};

}  // namespace icount::fuzzer::internal

#endif  // ICOUNT_FUZZER_INTERNAL_RANDOM_STATE_H_
