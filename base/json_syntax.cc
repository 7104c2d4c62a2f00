#include "base/json_syntax.h"

#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace icount::base {
namespace {

// A recursive-descent checker that stops at the first mistake.
class JsonSyntax {
 public:
  explicit JsonSyntax(absl::string_view text) : text_(text) {}

  // "LINE:COLUMN: invalid JSON: what is wrong" and the line with a caret
  // under the column, or nullopt when the text is one well-formed JSON value.
  std::optional<std::string> FirstError() {
    SkipSpace();
    if (Value(0)) {
      SkipSpace();
      if (pos_ == text_.size()) return std::nullopt;
      error_ = "unexpected text after the end of the JSON value";
    }
    return Describe();
  }

 private:
  // Deeper nesting is no results file, and must not exhaust the stack.
  static constexpr int kMaxDepth = 200;

  bool Fail(const char* what) {
    error_ = what;
    return false;
  }
  bool At(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool AtDigit() const { return pos_ < text_.size() && absl::ascii_isdigit(text_[pos_]); }
  void SkipSpace() {
    while (pos_ < text_.size() &&
           absl::string_view(" \t\n\r").find(text_[pos_]) != absl::string_view::npos) {
      ++pos_;
    }
  }

  bool Value(int depth) {
    if (depth > kMaxDepth) return Fail("nested too deeply");
    if (pos_ == text_.size()) return Fail("unexpected end of file; expected a value");
    switch (text_[pos_]) {
      case '{':
        return Members(depth, '}');
      case '[':
        return Members(depth, ']');
      case '"':
        return String();
      case 't':
        return Literal("true");
      case 'f':
        return Literal("false");
      case 'n':
        return Literal("null");
      default:
        return Number();
    }
  }

  // An object (close == '}') or an array (close == ']').
  bool Members(int depth, char close) {
    const bool object = close == '}';
    ++pos_;
    SkipSpace();
    if (At(close)) {
      ++pos_;
      return true;
    }
    while (true) {
      if (object) {
        if (!At('"')) return Fail("expected an object key in double quotes");
        if (!String()) return false;
        SkipSpace();
        if (!At(':')) return Fail("expected ':' after an object key");
        ++pos_;
        SkipSpace();
      }
      if (!Value(depth + 1)) return false;
      SkipSpace();
      if (At(close)) {
        ++pos_;
        return true;
      }
      if (!At(',')) {
        return Fail(object ? "expected ',' or '}' after an object member"
                           : "expected ',' or ']' after an array element");
      }
      ++pos_;
      SkipSpace();
    }
  }

  bool String() {
    ++pos_;  // the opening quote
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        return Fail("control character in a string; write it as an escape such as \\n");
      }
      ++pos_;
      if (c != '\\') continue;
      if (pos_ == text_.size()) break;
      const char escape = text_[pos_++];
      if (escape == 'u') {
        for (int i = 0; i < 4; ++i, ++pos_) {
          if (pos_ == text_.size() || !absl::ascii_isxdigit(text_[pos_])) {
            return Fail("expected four hex digits after \\u");
          }
        }
      } else if (absl::string_view("\"\\/bfnrt").find(escape) == absl::string_view::npos) {
        --pos_;
        return Fail("invalid escape sequence in a string");
      }
    }
    return Fail("unexpected end of file inside a string");
  }

  bool Number() {
    if (At('-')) ++pos_;
    if (At('0')) {
      ++pos_;
    } else if (AtDigit()) {
      while (AtDigit()) ++pos_;
    } else {
      return Fail("expected a value: an object, array, string, number, true, false or null");
    }
    if (At('.')) {
      ++pos_;
      if (!AtDigit()) return Fail("expected a digit after the decimal point");
      while (AtDigit()) ++pos_;
    }
    if (At('e') || At('E')) {
      ++pos_;
      if (At('+') || At('-')) ++pos_;
      if (!AtDigit()) return Fail("expected a digit in the exponent");
      while (AtDigit()) ++pos_;
    }
    return true;
  }

  bool Literal(absl::string_view word) {
    if (text_.substr(pos_, word.size()) != word) {
      return Fail("expected a value: an object, array, string, number, true, false or null");
    }
    pos_ += word.size();
    return true;
  }

  std::string Describe() const {
    const size_t line_start = pos_ == 0 ? absl::string_view::npos : text_.rfind('\n', pos_ - 1);
    const size_t begin = line_start == absl::string_view::npos ? 0 : line_start + 1;
    const size_t end = std::min(text_.find('\n', pos_), text_.size());
    const int line = 1 + std::count(text_.begin(), text_.begin() + begin, '\n');
    // Columns count characters, not bytes, so the caret lines up.
    int column = 1;
    for (size_t i = begin; i < pos_; ++i) {
      if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++column;
    }
    std::string message = absl::StrCat(line, ":", column, ": invalid JSON: ", error_);
    const absl::string_view source_line = text_.substr(begin, end - begin);
    if (source_line.size() <= 160) {  // a long line would bury the message
      absl::StrAppend(&message, "\n  ", source_line, "\n  ", std::string(column - 1, ' '), "^");
    }
    return message;
  }

  absl::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

std::optional<std::string> JsonSyntaxError(absl::string_view text) {
  return JsonSyntax(text).FirstError();
}

}  // namespace icount::base
