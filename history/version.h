#ifndef ICOUNT_HISTORY_VERSION_H_
#define ICOUNT_HISTORY_VERSION_H_

// The version of //history, the run store. Its file format has a version
// of its own (kHistorySchemaVersion in store.h).

namespace icount::history {

inline constexpr char kHistoryVersion[] = "0.3.0";

}  // namespace icount::history

#endif  // ICOUNT_HISTORY_VERSION_H_
