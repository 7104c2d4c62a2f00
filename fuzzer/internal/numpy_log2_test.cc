#include "fuzzer/internal/numpy_log2.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

// Expected values are np.log2 from NumPy 1.24.2 under Debian's
// /usr/bin/python3, on a CPU with AVX512_SKX (where NumPy uses SVML). Each
// entry is {bits of x, bits of np.log2(x)}, printed with
//   /usr/bin/python3 -c 'import numpy as np, struct
//   h = lambda x: "0x%016x" % struct.unpack("<Q", struct.pack("<d", x))[0]
//   for x in XS: print("{%s, %s},  // np.log2(%r)" % (h(x), h(np.log2(x)), x))'
// The port was also checked against np.log2 on 710,012 inputs (the integers
// below 200000, 500,000 random doubles across all exponents including
// subnormals, and special values): no difference.

namespace icount::fuzzer::internal {
namespace {

double FromBits(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d;
}

uint64_t ToBits(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof(bits));
  return bits;
}

struct Case {
  uint64_t x;
  uint64_t log2;
};

// Inputs where SVML and glibc disagree in the last bit.
constexpr Case kSvmlDiffersFromLibm[] = {
    {0x403a000000000000, 0x4012cd4011c8f11a},  // np.log2(26.0)
    {0x404a000000000000, 0x4016cd4011c8f11a},  // np.log2(52.0)
    {0x4052c00000000000, 0x4018ea4f726192cc},  // np.log2(75.0)
    {0x405ac00000000000, 0x401af7431f26a05c},  // np.log2(107.0)
    {0x406a600000000000, 0x401ee267d362ad90},  // np.log2(211.0)
    {0x4108692000000000, 0x40319c0429115f2a},  // np.log2(199972.0)
    {0x4162fd8c0b5d0d84, 0x40373f487be735f6},  // np.log2(9956448.355108984)
    {0x41493ff2bafd6e83, 0x4035a87fca20401e},  // np.log2(3309541.4608591213)
    {0x4154205b08b0d9ea, 0x403654bd7e856940},  // np.log2(5276012.135794142)
    {0x41341149f8b7b11f, 0x403453a89bb0233a},  // np.log2(1315145.9715529156)
    {0x4128e30f6eaa5f95, 0x4033a32741ef66b0},  // np.log2(815495.7161435956)
    {0x413a53aeb4c56cd8, 0x4034b7ed50d9d1a2},  // np.log2(1725358.706137469)
};

// Inputs across the range, where the two agree.
constexpr Case kSvmlAgreesWithLibm[] = {
    {0x408f400000000000, 0x4023ee7b471b3a95},  // np.log2(1000.0)
    {0x4008000000000000, 0x3ff95c01a39fbd68},  // np.log2(3.0)
    {0x40f2fd1000000000, 0x40303f3f0f56f7f5},  // np.log2(77777.0)
    {0x4044400000000000, 0x40155c01a39fbd68},  // np.log2(40.5)
    {0x4004000000000000, 0x3ff5269e12f346e3},  // np.log2(2.5)
    {0x3fb999999999999a, 0xc00a934f0979a371},  // np.log2(0.1)
    {0x01a56e1fc2f8f359, 0xc08f24a09f1a8b89},  // np.log2(1e-300)
    {0x0000000000000001, 0xc090c80000000000},  // np.log2(5e-324)
    {0x7fefffffffffffff, 0x4090000000000000},  // np.log2(1.7976931348623157e+308)
    {0x3ff0000000000001, 0x3cb71547652b82fd},  // np.log2(1.0000000000000002)
    {0x3fefffffffffffff, 0xbca71547652b82fe},  // np.log2(0.9999999999999999)
    {0x41baf6c3a20eb454, 0x403cc0c1e3254e1e},  // np.log2(452379554.0574391)
    {0x41c0aeb97142a712, 0x403d0f6d884313d2},  // np.log2(559772386.5207236)
    {0x41cb8b2acc0cbd08, 0x403dc89d0c6cf174},  // np.log2(924210584.0995188)
};

TEST(NumpyLog2Test, PowersOfTwoAreExactOnEveryPath) {
  for (int e = -1074; e <= 1023; ++e) {
    const double x = std::ldexp(1.0, e);
    EXPECT_EQ(NumpyLog2(x), static_cast<double>(e)) << "2**" << e;
    EXPECT_EQ(std::log2(x), static_cast<double>(e)) << "2**" << e;
  }
}

TEST(NumpyLog2Test, SpecialValuesFollowLibm) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(NumpyLog2(0.0), -inf);
  EXPECT_EQ(NumpyLog2(-0.0), -inf);
  EXPECT_EQ(NumpyLog2(inf), inf);
  EXPECT_TRUE(std::isnan(NumpyLog2(-1.0)));
  EXPECT_TRUE(std::isnan(NumpyLog2(-inf)));
  EXPECT_TRUE(std::isnan(NumpyLog2(std::numeric_limits<double>::quiet_NaN())));
}

TEST(NumpyLog2Test, WithoutSvmlItIsLibm) {
  if (NumpyLog2UsesSvml()) GTEST_SKIP() << "this CPU has AVX512_SKX; NumPy uses SVML here";
  for (const Case& c : kSvmlDiffersFromLibm) {
    EXPECT_EQ(ToBits(NumpyLog2(FromBits(c.x))), ToBits(std::log2(FromBits(c.x))));
  }
}

TEST(NumpyLog2Test, MatchesNumpyWhereSvmlDiffersFromLibm) {
  if (!NumpyLog2UsesSvml()) GTEST_SKIP() << "no AVX512_SKX: NumPy uses libm's log2 here";
  for (const Case& c : kSvmlDiffersFromLibm) {
    const double x = FromBits(c.x);
    EXPECT_EQ(ToBits(NumpyLog2(x)), c.log2) << "np.log2(" << x << ")";
    // The point of the port: libm alone would be one ulp off.
    EXPECT_NE(ToBits(std::log2(x)), c.log2) << x;
  }
}

TEST(NumpyLog2Test, MatchesNumpyAcrossTheRange) {
  if (!NumpyLog2UsesSvml()) GTEST_SKIP() << "no AVX512_SKX: NumPy uses libm's log2 here";
  for (const Case& c : kSvmlAgreesWithLibm) {
    EXPECT_EQ(ToBits(NumpyLog2(FromBits(c.x))), c.log2) << "np.log2(" << FromBits(c.x) << ")";
  }
}

TEST(NumpyLog2Test, DiffersFromLibmOnTheIntegersNumpyDoes) {
  if (!NumpyLog2UsesSvml()) GTEST_SKIP() << "no AVX512_SKX: NumPy uses libm's log2 here";
  // /usr/bin/python3 -c 'import numpy as np, math
  // d = [x for x in range(1, 200000) if np.log2(x) != math.log2(x)]
  // print(len(d), d[:12], d[-3:])'
  // -> 1576 [26, 52, 75, 104, 107, 150, 208, 211, 214, 233, 380, 639]
  //    [199695, 199866, 199972]
  std::vector<int> differ;
  for (int x = 1; x < 200000; ++x) {
    if (NumpyLog2(x) != std::log2(static_cast<double>(x))) differ.push_back(x);
  }
  EXPECT_EQ(differ.size(), 1576u);
  ASSERT_GE(differ.size(), 12u);
  EXPECT_THAT(std::vector<int>(differ.begin(), differ.begin() + 12),
              ::testing::ElementsAre(26, 52, 75, 104, 107, 150, 208, 211, 214, 233, 380, 639));
  EXPECT_THAT(std::vector<int>(differ.end() - 3, differ.end()),
              ::testing::ElementsAre(199695, 199866, 199972));
}

}  // namespace
}  // namespace icount::fuzzer::internal
