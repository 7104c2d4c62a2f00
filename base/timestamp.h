#ifndef ICOUNT_BASE_TIMESTAMP_H_
#define ICOUNT_BASE_TIMESTAMP_H_

// The one form icount writes a moment in: RFC 3339 in UTC, to the second,
// so such strings sort in time order (results files, history runs).
//
//   NowRfc3339();  // "2026-11-23T19:30:05Z"

#include <cstdint>
#include <optional>
#include <string>

namespace icount::base {

std::string NowRfc3339();

// Seconds since the epoch of a timestamp in NowRfc3339's form
// ("2026-11-23T19:30:05Z", UTC); nullopt for anything else.
std::optional<int64_t> ParseRfc3339(const std::string& text);

}  // namespace icount::base

#endif  // ICOUNT_BASE_TIMESTAMP_H_
