// `np.log2` for one float64, bit for bit as NumPy 1.24 computes it on the
// machine at hand.
//
// Why this exists: fuzzer.py's log-uniform parameters draw
// `state.uniform(np.log2(minval), np.log2(maxval))`. NumPy does not call the C
// library's log2 on every machine: when the CPU has AVX512_SKX (AVX512 F, CD,
// BW, DQ and VL) its float64 log2 loop runs Intel SVML's `__svml_log28`,
// which differs from glibc's log2 (std::log2) by one ulp for about 0.8% of
// inputs (1576 of the integers 1..199999, e.g. 26). One ulp in a bound moves
// `low + (high - low) * u`, and sometimes the integer `int(2 ** x)` that the
// reference returns. So we follow NumPy's own dispatch:
//
//   double lo = icount::fuzzer::internal::NumpyLog2(26.0);
//   // 4.700439718141093 on an AVX512_SKX machine (SVML),
//   // 4.700439718141092 elsewhere (libm), exactly as np.log2(26).
//
// Exact powers of two (the bounds of every op fuzzer in the reference) give
// exact results on both paths.
//
// Not covered: NumPy builds without SVML (non-x86-64, or NumPy < 1.22) and
// NPY_DISABLE_CPU_FEATURES; both make NumPy use libm, and so would need
// std::log2 here even on an AVX512 machine.

#ifndef ICOUNT_FUZZER_INTERNAL_NUMPY_LOG2_H_
#define ICOUNT_FUZZER_INTERNAL_NUMPY_LOG2_H_

namespace icount::fuzzer::internal {

// np.log2(x) for a float64 scalar: SvmlLog2(x) when NumpyLog2UsesSvml(),
// std::log2(x) otherwise.
double NumpyLog2(double x);

// Whether this CPU has every feature of NumPy's AVX512_SKX dispatch target
// (and the OS saves the AVX512 state), i.e. whether NumPy 1.24 uses SVML for
// float64 log2 here. Cached after the first call.
bool NumpyLog2UsesSvml();

// The scalar result of SVML's `__svml_log28`, the AVX512 float64 log2
// bundled with NumPy: log2(x) = e + log2(m) for x = m * 2**e, m in [1, 2),
// with log2(m) = -log2(r) + log2(1 + (m * r - 1)) where r is the AVX512
// hardware reciprocal estimate of m rounded to a multiple of 1/32, -log2(r)
// comes from a 16-entry table split into high and low parts, and log2(1 + R)
// is a degree-9 polynomial evaluated with fused multiply-adds in SVML's
// order. Non-positive, infinite and NaN inputs take SVML's special-case path,
// whose results equal std::log2's.
//
// Requires AVX512F (for the reciprocal estimate): call it only when
// NumpyLog2UsesSvml() is true.
double SvmlLog2(double x);

}  // namespace icount::fuzzer::internal

#endif  // ICOUNT_FUZZER_INTERNAL_NUMPY_LOG2_H_
