// The values a fuzzed parameter takes, and the set of values for one sample.
//
// torch.utils.benchmark's fuzzer keeps parameters as Python objects; the ones
// it produces are ints, floats and bools (for instance `coalesced` in the
// sparse op fuzzers). `Value` is that small closed set, with Python's
// semantics where they show: equality across types (1 == 1.0 == True),
// truthiness, and repr() formatting.
//
//   icount::fuzzer::Value k = 16;                // int
//   icount::fuzzer::Value density = 0.05;        // float
//   icount::fuzzer::Value coalesced = true;      // bool
//   k.ToPython();                        // "16"
//   density.ToPython();                  // "0.05"
//   coalesced.ToJson();                  // "true"
//
// `Params` maps parameter names to values in parameter order (fuzzer.py
// builds a dict in that order), and is what constraints and tensor
// constructors receive:
//
//   bool SmallEnough(const icount::fuzzer::Params& params) {
//     return params.at("k0").AsDouble() * params.at("k1").AsDouble() < 1e6;
//   }

#ifndef ICOUNT_FUZZER_VALUE_H_
#define ICOUNT_FUZZER_VALUE_H_

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/string_view.h"

namespace icount::fuzzer {

class Value {
 public:
  // Implicit on purpose, so that `{1, 0.3}` and `Value(0.5)` read like the
  // Python literals they stand for. Integers are held as int64_t (values
  // outside its range are not representable), floating point as double.
  Value(bool value) : rep_(value) {}  // NOLINT(runtime/explicit)
  template <typename T,
            std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Value(T value) : rep_(static_cast<int64_t>(value)) {}  // NOLINT
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Value(T value) : rep_(static_cast<double>(value)) {}  // NOLINT

  bool is_int() const { return std::holds_alternative<int64_t>(rep_); }
  bool is_double() const { return std::holds_alternative<double>(rep_); }
  bool is_bool() const { return std::holds_alternative<bool>(rep_); }

  // The held value. Asking for the wrong type throws std::bad_variant_access.
  int64_t int_value() const { return std::get<int64_t>(rep_); }
  double double_value() const { return std::get<double>(rep_); }
  bool bool_value() const { return std::get<bool>(rep_); }

  // Python's float(value): ints may round (beyond 2**53), True is 1.0.
  double AsDouble() const;

  // Python's bool(value): nonzero numbers and True.
  bool Truthy() const;

  // Python's repr(): "3", "0.5", "1e-05", "2.0", "True".
  std::string ToPython() const;

  // JSON as Python's json.dumps writes it: like ToPython() but "true" and
  // "false", and "NaN" / "Infinity" / "-Infinity" for non-finite floats.
  std::string ToJson() const;

  // Python's ==, exact across types: Value(1) == Value(1.0) == Value(true),
  // but Value((int64_t{1} << 53) + 1) != Value(9007199254740992.0), which is
  // 2**53 exactly. NaN equals nothing.
  friend bool operator==(const Value& a, const Value& b);
  friend bool operator!=(const Value& a, const Value& b) { return !(a == b); }

 private:
  std::variant<int64_t, double, bool> rep_;
};

// Python's ordering of two numbers, exactly (no rounding of ints to double):
// negative if a < b, zero if a == b, positive if a > b. bools count as 0 and
// 1. Neither may be NaN.
int CompareValues(const Value& a, const Value& b);

// repr() of a Python float: the shortest digits that round-trip, positional
// notation for decimal exponents -4 <= e < 16 (with ".0" for integers), and
// otherwise "d.ddde+XX" with at least two exponent digits. "nan", "inf",
// "-inf" for non-finite values.
std::string FormatDouble(double value);

// The same as JSON (Python's json.dumps): non-finite values become "NaN",
// "Infinity" and "-Infinity".
std::string FormatDoubleJson(double value);

// Parameter values by name, in parameter order.
class Params {
 public:
  using Entry = std::pair<std::string, Value>;
  using value_type = Entry;
  using const_iterator = std::vector<Entry>::const_iterator;
  using iterator = const_iterator;  // read-only: use Set() to change values

  Params() = default;

  // The value of `name`, or nullptr if there is no such parameter.
  const Value* Find(absl::string_view name) const;

  // The value of `name`; throws std::out_of_range naming it if absent (like
  // std::map::at; the fuzzer turns exceptions from constraints and tensor
  // constructors into errors).
  const Value& at(absl::string_view name) const;

  // Appends `name`, or replaces its value if present (keeping its position,
  // as a Python dict does).
  void Set(absl::string_view name, Value value);

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }

  friend bool operator==(const Params& a, const Params& b) { return a.entries_ == b.entries_; }
  friend bool operator!=(const Params& a, const Params& b) { return !(a == b); }

 private:
  std::vector<Entry> entries_;
};

}  // namespace icount::fuzzer

#endif  // ICOUNT_FUZZER_VALUE_H_
