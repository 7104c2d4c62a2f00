#ifndef ICOUNT_TIMER_FUNCTION_KEY_H_
#define ICOUNT_TIMER_FUNCTION_KEY_H_

// Which function a count belongs to, as callgrind tells functions apart: the
// source file, the function's name, the object (executable or shared
// library) it was loaded from, and callgrind's recursion level. The parser
// makes these; counts, call trees, results files and the report carry them
// as they are, so that no reader has to take a name apart again:
//
//   FunctionKey key("./malloc/malloc.c", "malloc", "/lib/libc.so.6");
//   key.function();  // "malloc"
//   key.text();      // "./malloc/malloc.c:malloc [/lib/libc.so.6]"
//
// text() is callgrind_annotate's spelling, what people read and what keys
// are ordered by; keys are equal when their texts are.

#include <string>
#include <utility>

#include "absl/strings/string_view.h"
#include "timer/measurement.pb.h"

namespace icount::timer {

class FunctionKey {
 public:
  FunctionKey() : FunctionKey("", "", "") {}
  // `file`: "???" when callgrind had no debug information. `function`: the
  // symbol, or callgrind's "0x..." address where there is none, without a
  // recursion suffix. `object`: empty when callgrind named none.
  // `recursion`: 1, or N for callgrind's "f'N" (a call of f within f).
  FunctionKey(std::string file, std::string function, std::string object, int recursion = 1);

  const std::string& file() const { return file_; }
  const std::string& function() const { return function_; }
  const std::string& object() const { return object_; }
  int recursion() const { return recursion_; }
  // "file:function'N [object]", the recursion and object parts only where
  // they are.
  const std::string& text() const { return text_; }

  // The object's file name: "libc.so.6" for "/lib/libc.so.6".
  absl::string_view object_name() const;
  // Whether callgrind found no symbol: the function is its address.
  bool unnamed() const;

  friend bool operator==(const FunctionKey& a, const FunctionKey& b) { return a.text_ == b.text_; }
  friend bool operator!=(const FunctionKey& a, const FunctionKey& b) { return !(a == b); }
  friend bool operator<(const FunctionKey& a, const FunctionKey& b) { return a.text_ < b.text_; }
  friend bool operator>(const FunctionKey& a, const FunctionKey& b) { return b < a; }
  template <typename H>
  friend H AbslHashValue(H state, const FunctionKey& key) {
    return H::combine(std::move(state), key.text_);
  }

 private:
  std::string file_;
  std::string function_;
  std::string object_;
  int recursion_ = 1;
  std::string text_;
};

// Takes callgrind's recursion suffix off a function's name and returns the
// level: "f'2" becomes "f" and 2; a name without one stays and is level 1.
int TakeRecursionSuffix(absl::string_view& name);

FunctionKeyProto FunctionKeyToProto(const FunctionKey& key);
FunctionKey FunctionKeyFromProto(const FunctionKeyProto& proto);

// Reads a key from its text, for results files that carry keys as text
// alone (written by timer versions before 0.23): the object is the last
// " [...]" of a text ending in "]", the file ends at the first ':' that is
// not part of "::", and a trailing "'N" is the recursion level.
FunctionKey FunctionKeyFromText(absl::string_view text);

}  // namespace icount::timer

#endif  // ICOUNT_TIMER_FUNCTION_KEY_H_
