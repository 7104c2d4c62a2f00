#ifndef ICOUNT_BASE_FNV_H_
#define ICOUNT_BASE_FNV_H_

// FNV-1a over a sequence of strings, for stable checksums and names that
// only need to tell sets of keys apart (not cryptographic). The value is the
// same on every platform and in every run:
//
//   Fnv1a64 hash;
//   for (const std::string& key : keys) hash.Add(key);
//   hash.Hex();  // "9f3c01a2b4c5d6e7"

#include <cstdint>
#include <string>

#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace icount::base {

// Word is uint32_t or uint64_t (the FNV parameters of that width).
template <typename Word>
class Fnv1a {
 public:
  // Hashes `part`, then `separator`, so ("ab", "c") and ("a", "bc") differ.
  void Add(absl::string_view part, unsigned char separator = 0xff) {
    for (unsigned char c : part) Mix(c);
    Mix(separator);
  }
  Word value() const { return hash_; }
  // The value in hexadecimal, zero-padded to the word's width.
  std::string Hex() const { return absl::StrFormat("%0*x", 2 * sizeof(Word), hash_); }

 private:
  static_assert(sizeof(Word) == 4 || sizeof(Word) == 8,
                "FNV-1a is defined here for 32 and 64 bits");
  static constexpr Word kPrime =
      static_cast<Word>(sizeof(Word) == 8 ? 0x100000001b3ULL : 16777619ULL);
  static constexpr Word kOffsetBasis =
      static_cast<Word>(sizeof(Word) == 8 ? 0xcbf29ce484222325ULL : 2166136261ULL);

  void Mix(unsigned char c) { hash_ = (hash_ ^ c) * kPrime; }

  Word hash_ = kOffsetBasis;
};

using Fnv1a32 = Fnv1a<uint32_t>;
using Fnv1a64 = Fnv1a<uint64_t>;

}  // namespace icount::base

#endif  // ICOUNT_BASE_FNV_H_
