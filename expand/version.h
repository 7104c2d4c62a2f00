#ifndef ICOUNT_EXPAND_VERSION_H_
#define ICOUNT_EXPAND_VERSION_H_

namespace icount::expand {

// The semantic version of //expand. Bump it with every change to //expand's
// public API or to the data it writes; tools print it with --version and
// serialised artifacts record it.
inline constexpr char kExpandVersion[] = "0.6.0";

}  // namespace icount::expand

#endif  // ICOUNT_EXPAND_VERSION_H_
