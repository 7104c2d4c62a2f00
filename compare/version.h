#ifndef ICOUNT_COMPARE_VERSION_H_
#define ICOUNT_COMPARE_VERSION_H_

namespace icount::compare {

// The semantic version of //compare. Bump it with every change to //compare's
// public API or to the data it writes; tools print it with --version and
// serialised artifacts record it.
inline constexpr char kCompareVersion[] = "0.7.0";

}  // namespace icount::compare

#endif  // ICOUNT_COMPARE_VERSION_H_
