#include "fuzzer/internal/numpy_log2.h"

#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <cstring>

// Every operation below is rounded exactly as SVML rounds it; a compiler that
// fused a multiply and an add on its own would change results.
#ifdef __FAST_MATH__
#error "numpy_log2.cc must not be compiled with -ffast-math"
#endif

namespace icount::fuzzer::internal {
namespace {

double FromBits(uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

uint64_t ToBits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// SVML's constants (the `__svml_dlog2_data_internal_avx512` table of
// `__svml_log28`, the "la" variant NumPy 1.24 links; numpy/SVML, BSD-3-Clause),
// as IEEE bit patterns.
//
// kMinusLog2Rcp[i] = -log2(r) rounded to double, for the rounded reciprocal
// r = (16 + i) / 32 with i = 8..15; for i = 1..7 (r < 0.75) it holds
// -log2(r) - 1 and the exponent is incremented instead. Index 0 serves both
// r = 1/2 and r = 1, whose top 4 mantissa bits are zero.
constexpr uint64_t kMinusLog2Rcp[16] = {
    0x0000000000000000, 0xbfb663f6fac91316, 0xbfc5c01a39fbd688, 0xbfcfbc16b902680a,
    0xbfd49a784bcd1b8b, 0xbfd91bba891f1709, 0xbfdd6753e032ea0f, 0xbfe0c10500d63aa6,
    0x3fda8ff971810a5e, 0x3fd6cb0f6865c8ea, 0x3fd32bfee370ee68, 0x3fcf5fd8a9063e35,
    0x3fc8a8980abfbd32, 0x3fc22dadc2ab3497, 0x3fb7d60496cfbb4c, 0x3fa77394c9d958d5,
};
// kC[n] is the coefficient of R**n in SVML's minimax polynomial for
// log2(1 + R), |R| <= 1/32 (kC[1] is log2(e) rounded to double).
constexpr uint64_t kC[10] = {
    0,                   // unused: log2(1) = 0
    0x3ff71547652b82fe,  //  1.4426950408889634
    0xbfe71547652b82d4,  // -0.7213475204444770
    0x3fdec709dc3a029f,  //  0.4808983469629684
    0xbfd71547653d0f8d,  // -0.3606737602860839
    0x3fd2776c5114d91a,  //  0.2885390083132663
    0xbfcec707e4e3144c,  // -0.2404489390957302
    0x3fca617351818613,  //  0.2060989521005899
    0xbfc71fb84deb5cce,  // -0.1806555157151934
    0x3fc4904bda0e1d12,  //  0.1606535734865494
};

double C(int n) { return FromBits(kC[n]); }

// VRCP14PD: the hardware's reciprocal estimate (relative error < 2**-14). Its
// exact bits are defined by the instruction, so we run the instruction. (The
// zero-masking form because GCC 12's plain _mm512_rcp14_pd trips
// -Wuninitialized on its "undefined" pass-through operand.)
__attribute__((target("avx512f"))) double Rcp14(double m) {
  const __m512d all_lanes = _mm512_set1_pd(m);
  return _mm512_cvtsd_f64(_mm512_maskz_rcp14_pd(0xff, all_lanes));
}

bool DetectSvml() {
  __builtin_cpu_init();
  // NumPy's AVX512_SKX target; GCC's checks include the OS (XCR0) support.
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
}

}  // namespace

bool NumpyLog2UsesSvml() {
  static const bool uses_svml = DetectSvml();
  return uses_svml;
}

double NumpyLog2(double x) { return NumpyLog2UsesSvml() ? SvmlLog2(x) : std::log2(x); }

double SvmlLog2(double x) {
  // SVML's special-case path (zero, negative, infinite; NaN propagates
  // through either path) returns what libm does.
  if (!(x > 0) || std::isinf(x)) return std::log2(x);

  // VGETMANTPD / VGETEXPPD: x = mantissa * 2**exponent, mantissa in [1, 2).
  // frexp is exact, subnormals included.
  int frexp_exponent;
  const double mantissa = 2.0 * std::frexp(x, &frexp_exponent);
  double exponent = static_cast<double>(frexp_exponent - 1);

  // VRNDSCALEPD imm 0x58: round to a multiple of 2**-5, ties to even. The
  // scaled value is exact, so nearbyint (default rounding mode) is exact too.
  const double rcp = std::nearbyint(Rcp14(mantissa) * 32.0) / 32.0;
  // VPERMT2PD reads the low 4 bits of the top 16 (sign, exponent and the
  // 4 high mantissa bits).
  const int index = static_cast<int>((ToBits(rcp) >> 48) & 0xf);

  const double r = std::fma(rcp, mantissa, -1.0);  // R = rcp * m - 1
  if (rcp < 0.75) exponent = exponent + 1.0;

  // The same operations, in the same order, as SVML's instruction stream:
  // an Estrin-like scheme over R**2 and R**4.
  const double r2 = r * r;
  const double r4 = r2 * r2;
  double high = std::fma(r, C(9), C(8));
  const double mid = std::fma(r, C(7), C(6));
  double low = std::fma(r, C(5), C(4));
  const double lowest = std::fma(r, C(3), C(2));
  high = std::fma(r2, high, mid);         // R**6..R**9 terms / R**6
  low = std::fma(r2, low, lowest);        // R**2..R**5 terms / R**2
  double poly = std::fma(r4, high, low);  // R**2..R**9 terms / R**2
  poly = std::fma(r, poly, C(1));         // R**1..R**9 terms / R
  const double log2_mantissa = std::fma(poly, r, FromBits(kMinusLog2Rcp[index]));
  return exponent + log2_mantissa;
}

}  // namespace icount::fuzzer::internal
