#ifndef ICOUNT_HISTORY_VERSION_H_
#define ICOUNT_HISTORY_VERSION_H_

// The version of //history, the run store. Its file format has a version
// of its own (kHistorySchemaVersion in store.h).

namespace icount {

inline constexpr char kHistoryVersion[] = "0.1.0";

}  // namespace icount

#endif  // ICOUNT_HISTORY_VERSION_H_
