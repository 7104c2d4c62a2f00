#include "fuzzer/value.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <system_error>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace icount::fuzzer {
namespace {

// 2**63 as a double: the first double above every int64_t.
constexpr double kTwoTo63 = 9223372036854775808.0;

// The number a Value stands for in Python arithmetic: bool is an int there.
std::variant<int64_t, double> Numeric(const Value& v) {
  if (v.is_double()) return v.double_value();
  if (v.is_bool()) return static_cast<int64_t>(v.bool_value());
  return v.int_value();
}

template <typename T>
int Sign(T a, T b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

// Exact comparison of an int with a (non-NaN) double, as Python does it.
int CompareIntDouble(int64_t i, double d) {
  if (d >= kTwoTo63) return -1;
  if (d < -kTwoTo63) return 1;
  const double floor = std::floor(d);  // in [-2**63, 2**63): fits in int64_t
  const int64_t f = static_cast<int64_t>(floor);
  if (i != f) return Sign(i, f);
  return d > floor ? -1 : 0;
}

}  // namespace

double Value::AsDouble() const {
  if (is_double()) return double_value();
  if (is_bool()) return bool_value() ? 1.0 : 0.0;
  return static_cast<double>(int_value());
}

bool Value::Truthy() const {
  if (is_double()) return double_value() != 0.0;  // NaN is truthy, as in Python
  if (is_bool()) return bool_value();
  return int_value() != 0;
}

std::string Value::ToPython() const {
  if (is_double()) return FormatDouble(double_value());
  if (is_bool()) return bool_value() ? "True" : "False";
  return absl::StrCat(int_value());
}

std::string Value::ToJson() const {
  if (is_double()) return FormatDoubleJson(double_value());
  if (is_bool()) return bool_value() ? "true" : "false";
  return absl::StrCat(int_value());
}

int CompareValues(const Value& a, const Value& b) {
  const auto x = Numeric(a);
  const auto y = Numeric(b);
  if (std::holds_alternative<int64_t>(x) && std::holds_alternative<int64_t>(y)) {
    return Sign(std::get<int64_t>(x), std::get<int64_t>(y));
  }
  if (std::holds_alternative<double>(x) && std::holds_alternative<double>(y)) {
    return Sign(std::get<double>(x), std::get<double>(y));
  }
  if (std::holds_alternative<int64_t>(x)) {
    return CompareIntDouble(std::get<int64_t>(x), std::get<double>(y));
  }
  return -CompareIntDouble(std::get<int64_t>(y), std::get<double>(x));
}

bool operator==(const Value& a, const Value& b) {
  const bool a_nan = a.is_double() && std::isnan(a.double_value());
  const bool b_nan = b.is_double() && std::isnan(b.double_value());
  if (a_nan || b_nan) return false;
  return CompareValues(a, b) == 0;
}

std::string FormatDouble(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";

  // Shortest round-trip digits, in scientific form "d.ddde[+-]XX".
  char buffer[64];
  const std::to_chars_result result =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  const absl::string_view scientific(buffer, result.ptr - buffer);

  const bool negative = scientific[0] == '-';
  const size_t e_pos = scientific.find('e');
  const absl::string_view mantissa =
      scientific.substr(negative ? 1 : 0, e_pos - (negative ? 1 : 0));
  const int exponent = std::atoi(std::string(scientific.substr(e_pos + 1)).c_str());
  std::string digits;
  for (const char c : mantissa) {
    if (c != '.') digits.push_back(c);
  }

  // Python's float_repr_style 'short' (format code 'r'): decpt is where the
  // decimal point goes relative to the digits.
  const int decpt = exponent + 1;
  std::string out = negative ? "-" : "";
  if (decpt <= -4 || decpt > 16) {
    out += digits.substr(0, 1);
    if (digits.size() > 1) absl::StrAppend(&out, ".", digits.substr(1));
    const int abs_exponent = exponent < 0 ? -exponent : exponent;
    absl::StrAppend(&out, "e", exponent < 0 ? "-" : "+", abs_exponent < 10 ? "0" : "",
                    abs_exponent);
  } else if (decpt <= 0) {
    absl::StrAppend(&out, "0.", std::string(-decpt, '0'), digits);
  } else if (static_cast<size_t>(decpt) >= digits.size()) {
    absl::StrAppend(&out, digits, std::string(decpt - digits.size(), '0'), ".0");
  } else {
    absl::StrAppend(&out, digits.substr(0, decpt), ".", digits.substr(decpt));
  }
  return out;
}

std::string FormatDoubleJson(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return FormatDouble(value);
}

const Value* Params::Find(absl::string_view name) const {
  for (const Entry& entry : entries_) {
    if (entry.first == name) return &entry.second;
  }
  return nullptr;
}

const Value& Params::at(absl::string_view name) const {
  const Value* value = Find(name);
  if (value == nullptr) {
    throw std::out_of_range(absl::StrCat("no parameter named '", name, "'"));
  }
  return *value;
}

void Params::Set(absl::string_view name, Value value) {
  for (Entry& entry : entries_) {
    if (entry.first == name) {
      entry.second = value;
      return;
    }
  }
  entries_.emplace_back(std::string(name), value);
}

}  // namespace icount::fuzzer
