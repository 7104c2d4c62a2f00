#ifndef ICOUNT_BASE_STUDENT_T_H_
#define ICOUNT_BASE_STUDENT_T_H_

// Student's t distribution, for confidence intervals and tests over a few
// samples (wall-time rounds, a measurement's blocks):
//
//   // 95% interval of a mean over 6 samples with standard error se:
//   double half_width = icount::base::StudentTQuantile(0.975, 5) * se;  // 2.5706 * se
//   double p = icount::base::StudentTTwoSidedP(mean / se, 5);

namespace icount::base {

// P(|T| >= |t|) for Student's t with `df` degrees of freedom.
double StudentTTwoSidedP(double t, double df);
// The value t with P(T <= t) = p, for 0 < p < 1.
double StudentTQuantile(double p, double df);

}  // namespace icount::base

#endif  // ICOUNT_BASE_STUDENT_T_H_
