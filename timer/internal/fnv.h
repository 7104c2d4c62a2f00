#ifndef ICOUNT_TIMER_INTERNAL_FNV_H_
#define ICOUNT_TIMER_INTERNAL_FNV_H_

// A 64-bit FNV-1a hash over a sequence of strings, for checksums that only
// need to tell sets of keys apart (not cryptographic):
//
//   Fnv1a64 hash;
//   for (const std::string& key : keys) hash.Add(key);
//   hash.Hex();  // "9f3c01a2b4c5d6e7"

#include <cstdint>
#include <string>

#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace icount::timer_internal {

class Fnv1a64 {
 public:
  // Hashes `part` and a separator, so ("ab", "c") and ("a", "bc") differ.
  void Add(absl::string_view part) {
    for (unsigned char c : part) hash_ = (hash_ ^ c) * kPrime;
    hash_ = (hash_ ^ 0xff) * kPrime;
  }
  uint64_t value() const { return hash_; }
  std::string Hex() const { return absl::StrFormat("%016x", hash_); }

 private:
  static constexpr uint64_t kPrime = 0x100000001b3ULL;
  uint64_t hash_ = 0xcbf29ce484222325ULL;
};

}  // namespace icount::timer_internal

#endif  // ICOUNT_TIMER_INTERNAL_FNV_H_
