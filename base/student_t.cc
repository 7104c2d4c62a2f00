#include "base/student_t.h"

#include <cmath>

namespace icount::base {
namespace {

// The continued fraction of the regularized incomplete beta function
// I_x(a, b), evaluated with the modified Lentz method; converges quickly
// for x < (a + 1) / (a + b + 2).
double BetaContinuedFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-15;
  double c = 1.0;
  double d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double result = d;
  for (int m = 1; m <= 500; ++m) {
    const double m2 = 2.0 * m;
    // The even step, then the odd step, of the fraction's terms.
    double term = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + term * d;
    c = 1.0 + term / c;
    if (std::fabs(d) < kTiny) d = kTiny;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    result *= d * c;
    term = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + term * d;
    c = 1.0 + term / c;
    if (std::fabs(d) < kTiny) d = kTiny;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double step = d * c;
    result *= step;
    if (std::fabs(step - 1.0) < kEpsilon) break;
  }
  return result;
}

// I_x(a, b), the regularized incomplete beta function, for 0 <= x <= 1.
double RegularizedIncompleteBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  if (x < (a + 1.0) / (a + b + 2.0)) return front * BetaContinuedFraction(a, b, x) / a;
  return 1.0 - front * BetaContinuedFraction(b, a, 1.0 - x) / b;
}

}  // namespace

double StudentTTwoSidedP(double t, double df) {
  if (!std::isfinite(t)) return 0;
  return RegularizedIncompleteBeta(df / 2.0, 0.5, df / (df + t * t));
}

double StudentTQuantile(double p, double df) {
  if (p == 0.5) return 0;
  if (p < 0.5) return -StudentTQuantile(1 - p, df);
  // P(T <= t) = 1 - P(|T| >= t) / 2 rises with t: bisect.
  const double tail = 2 * (1 - p);
  double low = 0;
  double high = 1;
  while (StudentTTwoSidedP(high, df) > tail) high *= 2;
  for (int i = 0; i < 200 && high - low > 1e-12 * high; ++i) {
    const double mid = (low + high) / 2;
    (StudentTTwoSidedP(mid, df) > tail ? low : high) = mid;
  }
  return (low + high) / 2;
}

}  // namespace icount::base
