#include "fuzzer/internal/random_state.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

// Known-answer vectors come from two sources:
//  * the MT19937 authors' reference outputs (mt19937ar.out) and the C++
//    standard's required 10000th output of std::mt19937;
//  * NumPy 1.24.2 under Debian's /usr/bin/python3. Every such vector notes the
//    exact command that printed it; rerun it with
//      /usr/bin/python3 -c '<command>'
//    (The pyenv `python3` on PATH has no NumPy.)

namespace icount::fuzzer::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

std::vector<uint32_t> DrawUint32(RandomState& state, int n) {
  std::vector<uint32_t> out;
  for (int i = 0; i < n; ++i) out.push_back(state.NextUint32());
  return out;
}

std::vector<double> DrawSamples(RandomState& state, int n) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(state.RandomSample());
  return out;
}

std::vector<int64_t> DrawRandInt(RandomState& state, int64_t low, int64_t high, int n) {
  std::vector<int64_t> out;
  for (int i = 0; i < n; ++i) {
    absl::StatusOr<int64_t> v = state.RandInt(low, high);
    EXPECT_TRUE(v.ok()) << v.status();
    out.push_back(v.value_or(0));
  }
  return out;
}

std::vector<int64_t> DrawRandIntInclusive(RandomState& state, int64_t low, int64_t high, int n) {
  std::vector<int64_t> out;
  for (int i = 0; i < n; ++i) {
    absl::StatusOr<int64_t> v = state.RandIntInclusive(low, high);
    EXPECT_TRUE(v.ok()) << v.status();
    out.push_back(v.value_or(0));
  }
  return out;
}

std::vector<size_t> DrawChoice(RandomState& state, std::vector<double> p, int n) {
  std::vector<size_t> out;
  for (int i = 0; i < n; ++i) {
    absl::StatusOr<size_t> v = state.Choice(p);
    EXPECT_TRUE(v.ok()) << v.status();
    out.push_back(v.value_or(9999));
  }
  return out;
}

// ---------------------------------------------------------------------------
// Core generator and seeding.

TEST(RandomStateTest, InitGenrandMatchesReferenceOutputs) {
  // mt19937ar reference / std::mt19937 default seed 5489. Also:
  // import numpy as np; print(list(np.random.RandomState(5489).randint(0, 2**32, dtype=np.uint32,
  // size=10)))
  RandomState state(5489);
  EXPECT_THAT(DrawUint32(state, 10),
              ElementsAre(3499211612U, 581869302U, 3890346734U, 3586334585U, 545404204U,
                          4161255391U, 3922919429U, 949333985U, 2715962298U, 1323567403U));
}

TEST(RandomStateTest, TenThousandthOutputMatchesStandard) {
  // [rand.predef]: the 10000th consecutive invocation of a default-constructed
  // std::mt19937 produces 4123659995. Also:
  // import numpy as np; print(np.random.RandomState(5489).randint(0, 2**32, dtype=np.uint32,
  // size=10000)[-1])
  RandomState state(5489);
  uint32_t last = 0;
  for (int i = 0; i < 10000; ++i) last = state.NextUint32();
  EXPECT_EQ(last, 4123659995U);
}

TEST(RandomStateTest, AgreesWithStdMt19937AcrossSeveralTwists) {
  // std::mt19937's integer seeding is the reference init_genrand, so the two
  // must agree word for word, including across state regenerations.
  for (uint32_t seed : {0U, 1U, 123456U, 0xffffffffU}) {
    RandomState state(seed);
    std::mt19937 reference(seed);
    for (int i = 0; i < 3 * RandomState::kStateWords + 7; ++i) {
      ASSERT_EQ(state.NextUint32(), reference()) << "seed " << seed << " i " << i;
    }
  }
}

TEST(RandomStateTest, InitByArrayMatchesReferenceOutputs) {
  // mt19937ar.out, init_by_array({0x123, 0x234, 0x345, 0x456}). Also:
  // import numpy as np; print(list(np.random.RandomState([0x123, 0x234, 0x345, 0x456]).randint(0,
  // 2**32, dtype=np.uint32, size=10)))
  absl::StatusOr<RandomState> state = RandomState::FromSeedArray({0x123, 0x234, 0x345, 0x456});
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_THAT(DrawUint32(*state, 10),
              ElementsAre(1067595299U, 955945823U, 477289528U, 4107218783U, 4228976476U,
                          3344332714U, 3355579695U, 227628506U, 810200273U, 2591290167U));
}

TEST(RandomStateTest, SingleElementArraySeedDiffersFromIntegerSeed) {
  // import numpy as np; print(list(np.random.RandomState([5]).randint(0, 2**32, dtype=np.uint32,
  // size=4)))
  absl::StatusOr<RandomState> state = RandomState::FromSeedArray({5});
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_THAT(DrawUint32(*state, 4),
              ElementsAre(2675342405U, 1097127993U, 3185950873U, 1539898300U));
  RandomState integer_seeded(5);
  EXPECT_NE(integer_seeded.NextUint32(), 2675342405U);
}

TEST(RandomStateTest, NextUint32ForSeveralSeeds) {
  // import numpy as np; print([list(np.random.RandomState(s).randint(0, 2**32, dtype=np.uint32,
  // size=6)) for s in (0, 1, 123456, 2**32 - 1)])
  const std::vector<std::pair<uint32_t, std::vector<uint32_t>>> cases = {
      {0U, {2357136044U, 2546248239U, 3071714933U, 3626093760U, 2588848963U, 3684848379U}},
      {1U, {1791095845U, 4282876139U, 3093770124U, 4005303368U, 491263U, 550290313U}},
      {123456U, {545331265U, 2211535594U, 4152021490U, 3857419313U, 1118735928U, 3031474347U}},
      {0xffffffffU, {419326371U, 479346978U, 3918654476U, 2416749639U, 3388880820U, 2260532800U}},
  };
  for (const auto& [seed, expected] : cases) {
    RandomState state(seed);
    EXPECT_THAT(DrawUint32(state, 6), ElementsAreArray(expected)) << "seed " << seed;
  }
}

TEST(RandomStateTest, NextUint64PutsFirstDrawInHighWord) {
  // import numpy as np; print([hex(np.random.RandomState(s).randint(0, 2**64, dtype=np.uint64)) for
  // s in (0, 1, 123456, 2**32 - 1)])
  const std::vector<std::pair<uint32_t, uint64_t>> cases = {
      {0U, 0x8c7f0aac97c4aa2fULL},
      {1U, 0x6ac1f425ff4780ebULL},
      {123456U, 0x2081184183d15aeaULL},
      {0xffffffffU, 0x18fe69a31c924122ULL},
  };
  for (const auto& [seed, expected] : cases) {
    RandomState state(seed);
    EXPECT_EQ(state.NextUint64(), expected) << "seed " << seed;
  }
}

TEST(RandomStateTest, GetStateAfterSeeding) {
  // import numpy as np; st = np.random.RandomState(0).get_state(); print(list(st[1][:4]),
  // st[1][623], st[2])
  RandomState state(0);
  RandomState::State st = state.GetState();
  EXPECT_EQ(st.key[0], 0U);
  EXPECT_EQ(st.key[1], 1U);
  EXPECT_EQ(st.key[2], 1812433255U);
  EXPECT_EQ(st.key[3], 1900727105U);
  EXPECT_EQ(st.key[623], 1796872496U);
  EXPECT_EQ(st.pos, 624);
}

TEST(RandomStateTest, SetStateRestoresStream) {
  RandomState state(123456);
  state.RandomSample();
  const RandomState::State saved = state.GetState();
  const std::vector<uint32_t> first = DrawUint32(state, 700);
  ASSERT_TRUE(state.SetState(saved).ok());
  EXPECT_EQ(DrawUint32(state, 700), first);

  RandomState::State bad = saved;
  bad.pos = 625;
  EXPECT_EQ(state.SetState(bad).code(), absl::StatusCode::kInvalidArgument);
  bad.pos = -1;
  EXPECT_EQ(state.SetState(bad).code(), absl::StatusCode::kInvalidArgument);
}

TEST(RandomStateTest, FromSeedAcceptsExactlyUint32Range) {
  absl::StatusOr<RandomState> zero = RandomState::FromSeed(0);
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(zero->NextUint32(), 2357136044U);
  absl::StatusOr<RandomState> max = RandomState::FromSeed(0xffffffffLL);
  ASSERT_TRUE(max.ok());
  EXPECT_EQ(max->NextUint32(), 419326371U);

  // NumPy: RandomState(2**32) and RandomState(-1) raise
  // ValueError('Seed must be between 0 and 2**32 - 1'); so does the default
  // seed torch's Fuzzer picks, e.g. 6732672337392503085.
  for (int64_t seed : {int64_t{0x100000000LL}, int64_t{-1}, int64_t{6732672337392503085LL},
                       kInt64Max, kInt64Min}) {
    absl::StatusOr<RandomState> s = RandomState::FromSeed(seed);
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << seed;
    EXPECT_THAT(s.status().message(), HasSubstr("Seed must be between 0 and 2**32 - 1"));
  }
}

TEST(RandomStateTest, FromSeedArrayRejectsBadKeys) {
  EXPECT_THAT(RandomState::FromSeedArray({}).status().message(),
              HasSubstr("Seed must be non-empty"));
  EXPECT_THAT(RandomState::FromSeedArray({1, -1}).status().message(),
              HasSubstr("Seed must be between 0 and 2**32 - 1"));
  EXPECT_THAT(RandomState::FromSeedArray({0x100000000LL}).status().message(),
              HasSubstr("Seed must be between 0 and 2**32 - 1"));
  EXPECT_TRUE(RandomState::FromSeedArray({0xffffffffLL}).ok());
}

// ---------------------------------------------------------------------------
// Floating point draws.

TEST(RandomStateTest, RandomSampleForSeveralSeeds) {
  // import numpy as np; print([[repr(x) for x in np.random.RandomState(s).random_sample(5)] for s
  // in (0, 1, 123456, 2**32 - 1)])
  const std::vector<std::pair<uint32_t, std::vector<double>>> cases = {
      {0U,
       {0.5488135039273248, 0.7151893663724195, 0.6027633760716439, 0.5448831829968969,
        0.4236547993389047}},
      {1U,
       {0.417022004702574, 0.7203244934421581, 0.00011437481734488664, 0.30233257263183977,
        0.14675589081711304}},
      {123456U,
       {0.12696983303810094, 0.966717838482003, 0.26047600586578334, 0.8972365243645735,
        0.37674971618967135}},
      {0xffffffffU,
       {0.0976320289940138, 0.9123828453026218, 0.78903530185164, 0.7800035981134678,
        0.01793967398674523}},
  };
  for (const auto& [seed, expected] : cases) {
    RandomState state(seed);
    // Exact equality on purpose: the values are bit-for-bit reproducible.
    EXPECT_THAT(DrawSamples(state, 5), ElementsAreArray(expected)) << "seed " << seed;
  }
}

TEST(RandomStateTest, ScalarRandIsRandomSample) {
  // import numpy as np; s = np.random.RandomState(0); print([repr(s.rand()) for _ in range(3)])
  RandomState state(0);
  EXPECT_THAT(DrawSamples(state, 3),
              ElementsAre(0.5488135039273248, 0.7151893663724195, 0.6027633760716439));
}

TEST(RandomStateTest, RandomSampleStraddlingStateRegeneration) {
  // The two words of this sample come from different MT blocks.
  // import numpy as np; s = np.random.RandomState(0); s.randint(0, 2**32, dtype=np.uint32,
  // size=623); print(repr(s.random_sample()), s.randint(0, 2**32, dtype=np.uint32))
  RandomState state(0);
  DrawUint32(state, 623);
  EXPECT_EQ(state.RandomSample(), 0.882859998043791);
  EXPECT_EQ(state.NextUint32(), 1076416385U);
}

TEST(RandomStateTest, UniformSequence) {
  // import numpy as np; s = np.random.RandomState(123456); print([repr(s.uniform(lo, hi)) for lo,
  // hi in ((0.0, 1.0), (-3.5, 2.25), (1e-3, 1e9), (10.0, 10.0), (5.0, -5.0), (0.0, 10.0), (-1e300,
  // 1e300))])
  RandomState state(123456);
  const std::vector<std::pair<double, double>> args = {
      {0.0, 1.0},  {-3.5, 2.25}, {1e-3, 1e9},     {10.0, 10.0},
      {5.0, -5.0}, {0.0, 10.0},  {-1e300, 1e300},
  };
  const std::vector<double> expected = {
      0.12696983303810094, 2.0586275712715167, 260476005.86652285,     10.0,
      1.2325028381032865,  3.3622174433445307, -9.72470590492008e+298,
  };
  for (size_t i = 0; i < args.size(); ++i) {
    absl::StatusOr<double> v = state.Uniform(args[i].first, args[i].second);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(*v, expected[i]) << "call " << i;
  }
}

TEST(RandomStateTest, UniformRejectsNonFiniteRangeWithoutDrawing) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double max = std::numeric_limits<double>::max();
  RandomState state(0);
  for (const auto& [lo, hi] : std::vector<std::pair<double, double>>{
           {0.0, inf}, {-inf, 0.0}, {nan, 1.0}, {0.0, nan}, {-max, max}}) {
    absl::StatusOr<double> v = state.Uniform(lo, hi);
    EXPECT_EQ(v.status().code(), absl::StatusCode::kOutOfRange);
    EXPECT_THAT(v.status().message(), HasSubstr("Range exceeds valid bounds"));
  }
  EXPECT_EQ(state.RandomSample(), 0.5488135039273248);  // Nothing consumed.
}

// ---------------------------------------------------------------------------
// Integers.

TEST(RandomStateTest, DrawTorchSeedMatchesRandint0To2Pow63) {
  // import numpy as np; print([np.random.RandomState(s).randint(low=0, high=2**63) for s in (0, 1,
  // 123456, 2**32 - 1)])
  const std::vector<std::pair<uint32_t, int64_t>> cases = {
      {0U, 900450186894289455LL},
      {1U, 7692698082559361259LL},
      {123456U, 2342179950872845034LL},
      {0xffffffffU, 1800993050274709794LL},
  };
  for (const auto& [seed, expected] : cases) {
    RandomState a(seed);
    EXPECT_EQ(a.DrawTorchSeed(), expected) << "seed " << seed;
    RandomState b(seed);
    absl::StatusOr<int64_t> via_randint = b.RandIntInclusive(0, kInt64Max);
    ASSERT_TRUE(via_randint.ok());
    EXPECT_EQ(*via_randint, expected);
    EXPECT_EQ(a.NextUint32(), b.NextUint32());  // Same number of draws.
  }
}

TEST(RandomStateTest, RandIntSmallRanges) {
  // import numpy as np; s = np.random.RandomState(0); print([s.randint(0, 10) for _ in range(12)],
  // [s.randint(-5, 5) for _ in range(6)], s.randint(7, 8), s.randint(1, 1025))
  RandomState state(0);
  EXPECT_THAT(DrawRandInt(state, 0, 10, 12), ElementsAre(5, 0, 3, 3, 7, 9, 3, 5, 2, 4, 7, 6));
  EXPECT_THAT(DrawRandInt(state, -5, 5, 6), ElementsAre(3, 3, -4, 1, 2, 2));
  // A single-value range consumes no draw; the next call proves alignment.
  EXPECT_THAT(DrawRandInt(state, 7, 8, 1), ElementsAre(7));
  EXPECT_THAT(DrawRandInt(state, 1, 1025, 1), ElementsAre(175));
}

TEST(RandomStateTest, RandIntAround32BitBoundary) {
  // [0, 2**32): range 2**32-1, still 32-bit draws. [0, 2**31+1): mask
  // 2**32-1 with ~50% rejection. [0, 2**32+1): range 2**32, first 64-bit case.
  // import numpy as np; s = np.random.RandomState(1); print([s.randint(0, 2**32) for _ in
  // range(3)], [s.randint(-2**31, 2**31) for _ in range(3)], [s.randint(0, 2**31 + 1) for _ in
  // range(4)], [s.randint(0, 2**32 + 1) for _ in range(4)])
  RandomState state(1);
  EXPECT_THAT(DrawRandInt(state, 0, int64_t{1} << 32, 3),
              ElementsAre(1791095845, 4282876139, 3093770124));
  EXPECT_THAT(DrawRandInt(state, -(int64_t{1} << 31), int64_t{1} << 31, 3),
              ElementsAre(1857819720, -2146992385, -1597193335));
  EXPECT_THAT(DrawRandInt(state, 0, (int64_t{1} << 31) + 1, 4),
              ElementsAre(1298508491, 630311759, 1013994432, 396591248));
  EXPECT_THAT(DrawRandInt(state, 0, (int64_t{1} << 32) + 1, 4),
              ElementsAre(1704103302, 1800426750, 878115723, 3771485674));
}

TEST(RandomStateTest, RandInt64BitRanges) {
  // import numpy as np; s = np.random.RandomState(2**32 - 1); print([s.randint(-2**63, 2**63 - 1)
  // for _ in range(3)], [s.randint(-2**63, 2**63) for _ in range(3)], [s.randint(10**12, 10**15)
  // for _ in range(3)], [s.randint(-10**18, 10**18) for _ in range(3)], [s.randint(-2**62 - 1,
  // 2**62) for _ in range(3)])
  RandomState state(0xffffffffU);
  // Range 2**64 - 2: all-ones mask, rejection only of the top value.
  EXPECT_THAT(DrawRandInt(state, kInt64Min, kInt64Max, 3),
              ElementsAre(-7422378986580066014LL, 7607120784305990727LL, 5331760257347419712LL));
  // randint(-2**63, 2**63): range 2**64 - 1, plain 64-bit draws.
  EXPECT_THAT(DrawRandIntInclusive(state, kInt64Min, kInt64Max, 3),
              ElementsAre(5165154706003526138LL, -8892443392435847392LL, 8660855838641975931LL));
  EXPECT_THAT(DrawRandInt(state, 1000000000000LL, 1000000000000000LL, 3),
              ElementsAre(659550322641003LL, 227616092810381LL, 469076930661463LL));
  EXPECT_THAT(DrawRandInt(state, -1000000000000000000LL, 1000000000000000000LL, 3),
              ElementsAre(-276030903269212763LL, 368756502451979145LL, 47173058740498476LL));
  // Range exactly 2**63: mask 2**64 - 1, ~50% rejection of 64-bit draws.
  EXPECT_THAT(DrawRandInt(state, -(int64_t{1} << 62) - 1, int64_t{1} << 62, 3),
              ElementsAre(4425111489410591371LL, -807280014476903848LL, -53808434127399016LL));
}

TEST(RandomStateTest, RandIntRejectsEmptyRangesWithoutDrawing) {
  RandomState state(0);
  for (const auto& [lo, hi] : std::vector<std::pair<int64_t, int64_t>>{
           {5, 5}, {5, 4}, {0, kInt64Min}, {kInt64Max, kInt64Max}}) {
    absl::StatusOr<int64_t> v = state.RandInt(lo, hi);
    EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(v.status().message(), HasSubstr("low >= high"));
  }
  absl::StatusOr<int64_t> v = state.RandIntInclusive(5, 4);
  EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(v.status().message(), HasSubstr("low > high"));
  EXPECT_EQ(*state.RandIntInclusive(5, 5), 5);  // Valid, no draw.
  EXPECT_EQ(state.NextUint32(), 2357136044U);   // Nothing consumed so far.
}

TEST(RandomStateTest, RandomIntervalMatchesBoundedDraws) {
  // random_interval (shuffle) and the masked bounded draw (randint) are the
  // same algorithm; check the 0, 32-bit and 64-bit cases against raw draws.
  RandomState a(99), b(99);
  EXPECT_EQ(a.RandomInterval(0), 0U);
  EXPECT_EQ(a.RandomInterval(0xffffffffULL), b.NextUint32());
  EXPECT_EQ(a.RandomInterval(~uint64_t{0}), b.NextUint64());
  uint64_t expected;
  do {
    expected = b.NextUint32() & 0xfU;
  } while (expected > 9);
  EXPECT_EQ(a.RandomInterval(9), expected);
  do {
    expected = b.NextUint64() & 0x1ffffffffULL;
  } while (expected > 0x100000000ULL);
  EXPECT_EQ(a.RandomInterval(0x100000000ULL), expected);
  EXPECT_EQ(a.NextUint32(), b.NextUint32());
}

// ---------------------------------------------------------------------------
// choice(p=...).

TEST(RandomStateTest, ChoiceWithProbabilities) {
  // import numpy as np; s = np.random.RandomState(0); ps = ([0.1, 0.2, 0.3, 0.4], [0.5, 0.5], [0.0,
  // 0.0, 1.0], [1.0], [1/3, 1/3, 1/3], [0.7, 0.3 + 1e-9], [0.0, 0.25, 0.0, 0.75, 0.0]);
  // print([[int(s.choice(np.arange(len(p)), p=tuple(p))) for _ in range(12)] for p in ps])
  RandomState state(0);
  EXPECT_THAT(DrawChoice(state, {0.1, 0.2, 0.3, 0.4}, 12),
              ElementsAre(2, 3, 3, 2, 2, 3, 2, 3, 3, 2, 3, 2));
  EXPECT_THAT(DrawChoice(state, {0.5, 0.5}, 12), ElementsAre(1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 1));
  EXPECT_THAT(DrawChoice(state, {0.0, 0.0, 1.0}, 12),
              ElementsAre(2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2));
  EXPECT_THAT(DrawChoice(state, {1.0}, 12), ElementsAre(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
  EXPECT_THAT(DrawChoice(state, {1.0 / 3, 1.0 / 3, 1.0 / 3}, 12),
              ElementsAre(0, 1, 1, 1, 2, 0, 0, 0, 1, 0, 1, 0));
  EXPECT_THAT(DrawChoice(state, {0.7, 0.3 + 1e-9}, 12),
              ElementsAre(0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0));
  EXPECT_THAT(DrawChoice(state, {0.0, 0.25, 0.0, 0.75, 0.0}, 12),
              ElementsAre(3, 3, 3, 1, 3, 1, 3, 1, 3, 3, 1, 3));
}

TEST(RandomStateTest, ChoiceWithInexactCdf) {
  // cumsum([0.1] * 10) ends at 0.9999999999999999, so normalisation matters.
  // import numpy as np; s = np.random.RandomState(0); print([[int(s.choice(np.arange(10),
  // p=tuple([0.1] * 10))) for _ in range(15)]])
  RandomState state(0);
  EXPECT_THAT(DrawChoice(state, std::vector<double>(10, 0.1), 15),
              ElementsAre(5, 7, 6, 5, 4, 6, 4, 8, 9, 3, 7, 5, 5, 9, 0));
}

TEST(RandomStateTest, ChoiceTiesUseSideRightAndNormalisedCdf) {
  // A hand-made state whose next RandomSample() is exactly 0.5: key[0] is
  // the inverse tempering of 0x80000000 (a >> 5 == 2**26) and key[1] == 0
  // tempers to 0. u == 0.5 then sits exactly on a cdf entry, which is the
  // only way to observe side='right' (vs 'left') and the cdf normalisation.
  // import numpy as np; s = np.random.RandomState(0); key = np.zeros(624, dtype=np.uint32); key[0]
  // = 0x80102204; ps = ([0.5, 0.5], [0.5, 0.5 - 1e-9], [0.25, 0.25, 0.5]);
  // print([(s.set_state(("MT19937", key, 0)), repr(s.random_sample()), s.set_state(("MT19937", key,
  // 0)), int(s.choice(np.arange(len(p)), p=tuple(p))))[1::2] for p in ps])
  RandomState::State half{};
  half.key[0] = 0x80102204U;
  half.pos = 0;
  RandomState state(0);
  ASSERT_TRUE(state.SetState(half).ok());
  EXPECT_EQ(state.RandomSample(), 0.5);

  const std::vector<std::pair<std::vector<double>, size_t>> cases = {
      {{0.5, 0.5}, 1},         // cdf [0.5, 1]: u == cdf[0] -> right.
      {{0.5, 0.5 - 1e-9}, 0},  // normalised cdf[0] = 0.5000000005 > u.
      {{0.25, 0.25, 0.5}, 2},  // u == cdf[1] -> index 2.
  };
  for (const auto& [p, index] : cases) {
    ASSERT_TRUE(state.SetState(half).ok());
    absl::StatusOr<size_t> v = state.Choice(p);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(*v, index);
  }
}

TEST(RandomStateTest, ChoiceValidatesProbabilitiesWithoutDrawing) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double tol = std::sqrt(std::numeric_limits<double>::epsilon());
  const std::vector<std::pair<std::vector<double>, std::string>> cases = {
      {{}, "'a' cannot be empty"},
      {{0.5, nan, 0.5}, "probabilities contain NaN"},
      {{1.5, -0.5}, "probabilities are not non-negative"},
      {{0.5, 0.4}, "probabilities do not sum to 1"},
      {{0.5, 0.5 + 2 * tol}, "probabilities do not sum to 1"},
      {{0.0, 0.0}, "probabilities do not sum to 1"},
  };
  RandomState state(0);
  for (const auto& [p, message] : cases) {
    absl::StatusOr<size_t> v = state.Choice(p);
    EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(v.status().message(), HasSubstr(message));
    EXPECT_EQ(RandomState::ValidateProbabilities(p).code(), absl::StatusCode::kInvalidArgument);
  }
  // Within NumPy's tolerance (sqrt(eps) ~ 1.49e-8): accepted.
  EXPECT_TRUE(RandomState::ValidateProbabilities({0.5, 0.5 + 1e-8}).ok());
  EXPECT_TRUE(RandomState::ValidateProbabilities({0.5, 0.5 - 1e-8}).ok());
  // -0.0 is not negative.
  EXPECT_TRUE(RandomState::ValidateProbabilities({-0.0, 1.0}).ok());
  EXPECT_EQ(state.RandomSample(), 0.5488135039273248);  // Nothing consumed.
}

// ---------------------------------------------------------------------------
// permutation / shuffle.

TEST(RandomStateTest, PermutationSequence) {
  // import numpy as np; s = np.random.RandomState(123456); print([s.permutation(n).tolist() for n
  // in (0, 1, 2, 3, 5, 10, 20)])
  RandomState state(123456);
  EXPECT_THAT(state.Permutation(0), ElementsAre());
  EXPECT_THAT(state.Permutation(1), ElementsAre(0));
  EXPECT_THAT(state.Permutation(2), ElementsAre(0, 1));
  EXPECT_THAT(state.Permutation(3), ElementsAre(1, 0, 2));
  EXPECT_THAT(state.Permutation(5), ElementsAre(2, 4, 3, 0, 1));
  EXPECT_THAT(state.Permutation(10), ElementsAre(1, 5, 6, 0, 3, 9, 7, 2, 8, 4));
  EXPECT_THAT(state.Permutation(20),
              ElementsAre(17, 8, 0, 16, 1, 11, 3, 5, 9, 15, 12, 7, 13, 4, 18, 10, 19, 14, 2, 6));
}

TEST(RandomStateTest, PermutationOfNonPositiveIsEmptyAndFree) {
  RandomState state(0);
  EXPECT_TRUE(state.Permutation(-3).empty());
  EXPECT_TRUE(state.Permutation(0).empty());
  EXPECT_THAT(state.Permutation(1), ElementsAre(0));
  EXPECT_EQ(state.NextUint32(), 2357136044U);
}

TEST(RandomStateTest, ShuffleGenericSequence) {
  // import numpy as np; s = np.random.RandomState(1); x = list('abcdefgh'); s.shuffle(x);
  // print(''.join(x), s.randint(0, 100))
  RandomState state(1);
  std::string x = "abcdefgh";
  state.Shuffle(absl::MakeSpan(x));
  EXPECT_EQ(x, "hcbgaedf");
  EXPECT_EQ(*state.RandInt(0, 100), 5);
}

// ---------------------------------------------------------------------------
// Interleaved calls and the torch Fuzzer's exact call sequence.

TEST(RandomStateTest, MixedCallSequence) {
  // import numpy as np; s = np.random.RandomState(42); print(s.randint(0, 2**63), s.randint(1, 11),
  // repr(s.uniform(0.0, 10.0)), int(s.choice(np.arange(3), p=(0.2, 0.3, 0.5))), repr(s.rand()),
  // s.permutation(4).tolist(), s.randint(-7, 3))
  RandomState state(42);
  EXPECT_EQ(state.DrawTorchSeed(), 6909045637428952499LL);
  EXPECT_EQ(*state.RandInt(1, 11), 8);
  EXPECT_EQ(*state.Uniform(0.0, 10.0), 5.986584841970366);
  EXPECT_EQ(*state.Choice({0.2, 0.3, 0.5}), 0U);
  EXPECT_EQ(state.RandomSample(), 0.15599452033620265);
  EXPECT_THAT(state.Permutation(4), ElementsAre(0, 1, 3, 2));
  EXPECT_EQ(*state.RandInt(-7, 3), -3);
}

TEST(RandomStateTest, ReproducesTorchFuzzerTake) {
  // Replays torch.utils.benchmark.Fuzzer.take() with the same draws, in the
  // same order, as fuzzer.py. Generated with (one line):
  // import torch; from torch.utils.benchmark import Fuzzer, FuzzedParameter, FuzzedTensor; f =
  // Fuzzer(parameters=[FuzzedParameter("n", 1, 10, distribution="uniform"), FuzzedParameter("k", 1,
  // 1024, distribution="loguniform"), FuzzedParameter("x", 0.0, 1.0, distribution="uniform"),
  // FuzzedParameter("d", distribution={2: 0.3, 3: 0.7})], tensors=[FuzzedTensor("t", size=("n", 4,
  // 3), dim_parameter="d", probability_contiguous=0.5)], seed=7); print([(p["n"], p["k"],
  // repr(p["x"]), p["d"], pr["t"]["order"].tolist(), torch.initial_seed()) for _, pr, p in
  // f.take(6)])
  struct Step {
    int64_t n;
    int64_t k;
    double x;
    int64_t d;
    std::vector<int64_t> order;
  };
  const std::vector<Step> expected = {
      {10, 9, 0.9782228970785825, 3, {0, 1, 2}},  {8, 32, 0.07205113335976154, 2, {0, 1}},
      {5, 412, 0.3308392493496919, 3, {1, 2, 0}}, {6, 628, 0.26258377004339706, 3, {0, 1, 2}},
      {3, 4, 0.5484899192360304, 3, {0, 1, 2}},   {4, 14, 0.3574752410427722, 2, {0, 1}},
  };

  // take(): state = np.random.RandomState(seed)
  //         torch.manual_seed(state.randint(low=0, high=2 ** 63))
  RandomState state(7);
  EXPECT_EQ(state.DrawTorchSeed(), 1407639518939636932LL);

  for (const Step& want : expected) {
    // _generate(): parameters in declaration order; no constraints here, so
    // the first candidate is accepted.
    // "n": int bounds -> randint(low=1, high=10 + 1).
    const int64_t n = *state.RandInt(1, 11);
    // "k": loguniform -> int(2 ** uniform(log2(1), log2(1024))), clamped.
    // (log2 of powers of two is exact in every libm, so no ULP concerns.)
    const double exponent = *state.Uniform(std::log2(1.0), std::log2(1024.0));
    int64_t k = static_cast<int64_t>(std::pow(2.0, exponent));
    k = std::min<int64_t>(std::max<int64_t>(k, 1), 1024);
    // "x": float bounds -> uniform(low=0.0, high=1.0).
    const double x = *state.Uniform(0.0, 1.0);
    // "d": custom distribution -> keys[choice(arange(2), p=(0.3, 0.7))].
    const int64_t d = std::vector<int64_t>{2, 3}[*state.Choice({0.3, 0.7})];

    // FuzzedTensor._make_tensor(): one rand() per tensor; if it exceeds
    // probability_contiguous, redraw permutation(dim) until non-identity.
    std::vector<int64_t> order;  // np.arange(dim)
    for (int64_t i = 0; i < d; ++i) order.push_back(i);
    auto is_identity = [](const std::vector<int64_t>& o) {
      for (size_t i = 0; i < o.size(); ++i) {
        if (o[i] != static_cast<int64_t>(i)) return false;
      }
      return true;
    };
    if (state.RandomSample() > 0.5) {
      while (d > 1 && is_identity(order)) order = state.Permutation(d);
    }

    EXPECT_EQ(n, want.n);
    EXPECT_EQ(k, want.k);
    EXPECT_EQ(x, want.x);
    EXPECT_EQ(d, want.d);
    EXPECT_EQ(order, want.order);
  }
}

}  // namespace
}  // namespace icount::fuzzer::internal
