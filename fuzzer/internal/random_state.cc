#include "fuzzer/internal/random_state.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

// Bit-exactness relies on IEEE semantics (Kahan summation, no reassociation).
#ifdef __FAST_MATH__
#error "random_state.cc must not be compiled with -ffast-math"
#endif

namespace icount::fuzzer::internal {
namespace {

// MT19937 parameters (Matsumoto & Nishimura 1998).
constexpr int kN = RandomState::kStateWords;
constexpr int kM = 397;
constexpr uint32_t kMatrixA = 0x9908b0dfU;
constexpr uint32_t kUpperMask = 0x80000000U;
constexpr uint32_t kLowerMask = 0x7fffffffU;

constexpr uint64_t kMaxSeed = 0xffffffffULL;
constexpr char kSeedRangeMessage[] = "Seed must be between 0 and 2**32 - 1";

// One step of the recurrence, shared by all three loops of Twist().
inline uint32_t TwistWord(uint32_t upper_from, uint32_t lower_from, uint32_t far) {
  const uint32_t y = (upper_from & kUpperMask) | (lower_from & kLowerMask);
  // 0u - (y & 1) is all ones iff the low bit is set: branch-free MATRIX_A.
  return far ^ (y >> 1) ^ ((0U - (y & 1U)) & kMatrixA);
}

inline uint32_t Temper(uint32_t y) {
  y ^= (y >> 11);
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= (y >> 18);
  return y;
}

// Smallest all-ones bit mask >= max (NumPy's gen_mask).
inline uint64_t SmallestMask(uint64_t max) {
  uint64_t mask = max;
  mask |= mask >> 1;
  mask |= mask >> 2;
  mask |= mask >> 4;
  mask |= mask >> 8;
  mask |= mask >> 16;
  mask |= mask >> 32;
  return mask;
}

// NumPy's kahan_sum from numpy/random/_common.pyx. The compensated sum (not
// a naive or pairwise one) decides whether borderline `p` vectors pass the
// "sum to 1" check, so it is reproduced operation for operation. Requires a
// non-empty input. Must not be compiled with -ffast-math, which would
// optimise the compensation away.
double KahanSum(absl::Span<const double> values) {
  double sum = values[0];
  double c = 0.0;
  for (size_t i = 1; i < values.size(); ++i) {
    const double y = values[i] - c;
    const double t = sum + y;
    c = (t - sum) - y;
    sum = t;
  }
  return sum;
}

}  // namespace

RandomState::RandomState(uint32_t seed) { InitGenrand(seed); }

absl::StatusOr<RandomState> RandomState::FromSeed(int64_t seed) {
  if (seed < 0 || static_cast<uint64_t>(seed) > kMaxSeed) {
    return absl::InvalidArgumentError(kSeedRangeMessage);
  }
  return RandomState(static_cast<uint32_t>(seed));
}

absl::StatusOr<RandomState> RandomState::FromSeedArray(absl::Span<const int64_t> key) {
  if (key.empty()) return absl::InvalidArgumentError("Seed must be non-empty");
  std::vector<uint32_t> words;
  words.reserve(key.size());
  for (const int64_t k : key) {
    if (k < 0 || static_cast<uint64_t>(k) > kMaxSeed) {
      return absl::InvalidArgumentError(kSeedRangeMessage);
    }
    words.push_back(static_cast<uint32_t>(k));
  }
  RandomState state;
  state.InitByArray(words);
  return state;
}

void RandomState::InitGenrand(uint32_t s) {
  key_[0] = s;
  for (int i = 1; i < kN; ++i) {
    const uint32_t prev = key_[i - 1];
    // uint32_t arithmetic wraps mod 2**32, which is the reference's
    // `& 0xffffffff`.
    key_[i] = 1812433253U * (prev ^ (prev >> 30)) + static_cast<uint32_t>(i);
  }
  pos_ = kN;  // Twist before the first output.
}

void RandomState::InitByArray(absl::Span<const uint32_t> init_key) {
  InitGenrand(19650218U);
  const size_t key_length = init_key.size();
  int i = 1;
  size_t j = 0;
  for (size_t k = std::max<size_t>(kN, key_length); k > 0; --k) {
    const uint32_t prev = key_[i - 1];
    key_[i] =
        (key_[i] ^ ((prev ^ (prev >> 30)) * 1664525U)) + init_key[j] + static_cast<uint32_t>(j);
    ++i;
    ++j;
    if (i >= kN) {
      key_[0] = key_[kN - 1];
      i = 1;
    }
    if (j >= key_length) j = 0;
  }
  for (int k = kN - 1; k > 0; --k) {
    const uint32_t prev = key_[i - 1];
    key_[i] = (key_[i] ^ ((prev ^ (prev >> 30)) * 1566083941U)) - static_cast<uint32_t>(i);
    ++i;
    if (i >= kN) {
      key_[0] = key_[kN - 1];
      i = 1;
    }
  }
  key_[0] = 0x80000000U;  // MSB set: guarantees a non-zero initial state.
  pos_ = kN;
}

void RandomState::Twist() {
  int i = 0;
  for (; i < kN - kM; ++i) {
    key_[i] = TwistWord(key_[i], key_[i + 1], key_[i + kM]);
  }
  for (; i < kN - 1; ++i) {
    key_[i] = TwistWord(key_[i], key_[i + 1], key_[i + kM - kN]);
  }
  key_[kN - 1] = TwistWord(key_[kN - 1], key_[0], key_[kM - 1]);
  pos_ = 0;
}

uint32_t RandomState::NextUint32() {
  if (pos_ >= kN) Twist();
  return Temper(key_[pos_++]);
}

uint64_t RandomState::NextUint64() {
  // Two statements, because the evaluation order of the operands of `|` is
  // unspecified in C++; NumPy's build puts the first draw in the high word.
  const uint64_t high = NextUint32();
  const uint64_t low = NextUint32();
  return (high << 32) | low;
}

double RandomState::RandomSample() {
  const uint32_t a = NextUint32() >> 5;  // 27 bits
  const uint32_t b = NextUint32() >> 6;  // 26 bits
  return (a * 67108864.0 + b) / 9007199254740992.0;
}

absl::StatusOr<double> RandomState::Uniform(double low, double high) {
  const double range = high - low;
  if (!std::isfinite(range)) {
    return absl::OutOfRangeError("Range exceeds valid bounds");
  }
  // NumPy's baseline x86-64 build never fuses this multiply-add, but GCC
  // contracts `low + range * u` into an FMA (one rounding instead of two)
  // whenever FMA is enabled (-mfma, -march=native), even in ISO C++ mode.
  // Forcing the product through a volatile double keeps the two roundings.
  volatile double scaled = range * RandomSample();
  return low + scaled;
}

absl::StatusOr<int64_t> RandomState::RandInt(int64_t low, int64_t high) {
  if (low >= high) return absl::InvalidArgumentError("low >= high");
  // high - 1 cannot overflow: high > low >= INT64_MIN.
  return RandIntInclusive(low, high - 1);
}

absl::StatusOr<int64_t> RandomState::RandIntInclusive(int64_t low, int64_t high) {
  if (low > high) return absl::InvalidArgumentError("low > high");
  // NumPy works on the unsigned offset/range pair so that spans up to 2**64-1
  // are representable; the modular arithmetic below is exactly its
  // `<uint64_t>(high - low)` and `off + value`.
  const uint64_t off = static_cast<uint64_t>(low);
  const uint64_t range = static_cast<uint64_t>(high) - off;
  const uint64_t value = off + RandomInterval(range);
  // Two's-complement reinterpretation (well defined since C++20 and what
  // every supported compiler does for C++17).
  return static_cast<int64_t>(value);
}

int64_t RandomState::DrawTorchSeed() {
  // randint(0, 2**63): range 2**63 - 1 needs 64-bit draws, and the mask
  // equals the range, so exactly one draw is made, never rejected.
  return static_cast<int64_t>(
      RandomInterval(static_cast<uint64_t>(std::numeric_limits<int64_t>::max())));
}

uint64_t RandomState::RandomInterval(uint64_t max) {
  if (max == 0) return 0;  // No draw: matters for stream alignment.
  const uint64_t mask = SmallestMask(max);
  uint64_t value;
  if (max <= 0xffffffffULL) {
    // Ranges that fit in 32 bits use single 32-bit draws, never 64-bit ones.
    do {
      value = NextUint32() & mask;
    } while (value > max);
  } else {
    do {
      value = NextUint64() & mask;
    } while (value > max);
  }
  return value;
}

absl::Status RandomState::ValidateProbabilities(absl::Span<const double> p) {
  if (p.empty()) {
    return absl::InvalidArgumentError("'a' cannot be empty unless no samples are taken");
  }
  const double sum = KahanSum(p);
  if (std::isnan(sum)) {
    return absl::InvalidArgumentError("probabilities contain NaN");
  }
  for (const double x : p) {
    if (x < 0) {
      return absl::InvalidArgumentError("probabilities are not non-negative");
    }
  }
  const double atol = std::sqrt(std::numeric_limits<double>::epsilon());
  if (std::abs(sum - 1.0) > atol) {
    return absl::InvalidArgumentError("probabilities do not sum to 1");
  }
  return absl::OkStatus();
}

absl::StatusOr<size_t> RandomState::Choice(absl::Span<const double> p) {
  if (absl::Status status = ValidateProbabilities(p); !status.ok()) {
    return status;
  }
  // np.cumsum accumulates strictly left to right; the normalisation divides
  // every entry by the (pre-division) last one, so cdf.back() becomes 1.0.
  std::vector<double> cdf(p.size());
  double running = 0.0;
  for (size_t i = 0; i < p.size(); ++i) {
    running = (i == 0) ? p[0] : running + p[i];
    cdf[i] = running;
  }
  const double total = cdf.back();
  for (double& c : cdf) c /= total;

  const double u = RandomSample();
  // searchsorted(side='right') on a sorted, NaN-free array is the first
  // index whose value is > u, i.e. upper_bound. Since u < 1 == cdf.back(),
  // the result is always a valid index, and zero-probability entries (flat
  // steps of the cdf) are never selected.
  const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
  return static_cast<size_t>(it - cdf.begin());
}

std::vector<int64_t> RandomState::Permutation(int64_t n) {
  std::vector<int64_t> values;
  if (n <= 0) return values;
  values.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = i;
  Shuffle(absl::MakeSpan(values));
  return values;
}

RandomState::State RandomState::GetState() const { return State{key_, pos_}; }

absl::Status RandomState::SetState(const State& state) {
  if (state.pos < 0 || state.pos > kN) {
    return absl::InvalidArgumentError("state pos must be in [0, 624]");
  }
  key_ = state.key;
  pos_ = state.pos;
  return absl::OkStatus();
}

}  // namespace icount::fuzzer::internal
