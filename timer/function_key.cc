#include "timer/function_key.h"

#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace icount::timer {

FunctionKey::FunctionKey(std::string file, std::string function, std::string object,
                         int recursion)
    : file_(std::move(file)),
      function_(std::move(function)),
      object_(std::move(object)),
      recursion_(recursion < 1 ? 1 : recursion) {
  text_ = absl::StrCat(file_, ":", function_);
  if (recursion_ > 1) absl::StrAppend(&text_, "'", recursion_);
  if (!object_.empty()) absl::StrAppend(&text_, " [", object_, "]");
}

absl::string_view FunctionKey::object_name() const {
  const size_t slash = object_.rfind('/');
  return slash == std::string::npos ? absl::string_view(object_)
                                    : absl::string_view(object_).substr(slash + 1);
}

bool FunctionKey::unnamed() const { return absl::StartsWith(function_, "0x"); }

int TakeRecursionSuffix(absl::string_view& name) {
  int recursion = 1;
  const size_t quote = name.rfind('\'');
  if (quote == absl::string_view::npos || quote + 1 == name.size()) return recursion;
  for (size_t i = quote + 1; i < name.size(); ++i) {
    if (!absl::ascii_isdigit(name[i])) return recursion;
  }
  if (absl::SimpleAtoi(name.substr(quote + 1), &recursion)) {
    name = name.substr(0, quote);
  } else {
    recursion = 1;
  }
  return recursion;
}

FunctionKeyProto FunctionKeyToProto(const FunctionKey& key) {
  FunctionKeyProto proto;
  proto.set_file(key.file());
  proto.set_function(key.function());
  proto.set_object(key.object());
  if (key.recursion() > 1) proto.set_recursion(key.recursion());
  return proto;
}

FunctionKey FunctionKeyFromProto(const FunctionKeyProto& proto) {
  return FunctionKey(proto.file(), proto.function(), proto.object(), proto.recursion());
}

FunctionKey FunctionKeyFromText(absl::string_view text) {
  std::string object;
  // A function's name ends in "]" only inside its argument list, which
  // ends in ")".
  if (absl::EndsWith(text, "]")) {
    const size_t open = text.rfind(" [");
    if (open != absl::string_view::npos) {
      object = std::string(text.substr(open + 2, text.size() - open - 3));
      text = text.substr(0, open);
    }
  }
  std::string file;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != ':') continue;
    if (i + 1 < text.size() && text[i + 1] == ':') {
      ++i;
      continue;
    }
    file = std::string(text.substr(0, i));
    text = text.substr(i + 1);
    break;
  }
  const int recursion = TakeRecursionSuffix(text);
  return FunctionKey(std::move(file), std::string(text), std::move(object), recursion);
}

}  // namespace icount::timer
