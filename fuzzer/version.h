#ifndef ICOUNT_FUZZER_VERSION_H_
#define ICOUNT_FUZZER_VERSION_H_

namespace icount::fuzzer {

// The semantic version of //fuzzer. Bump it with every change to //fuzzer's
// public API or to the data it writes; tools print it with --version and
// serialised artifacts record it.
inline constexpr char kFuzzerVersion[] = "0.2.0";

}  // namespace icount::fuzzer

#endif  // ICOUNT_FUZZER_VERSION_H_
