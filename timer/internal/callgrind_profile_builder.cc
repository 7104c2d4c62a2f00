// The callgrind parser's second half (callgrind_parser_parts.h): builds the
// profile from what callgrind_parser.cc reads.
#include "timer/internal/callgrind_parser_parts.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "timer/function_key.h"
#include "timer/internal/callgrind_parser.h"

namespace icount::timer::internal::callgrind_parsing {
namespace {

// The key of `function`: callgrind's "f'N" is function f at recursion level
// N.
FunctionKey KeyOf(const Function& function) {
  absl::string_view name = function.name;
  const int recursion = TakeRecursionSuffix(name);
  return FunctionKey(function.file, std::string(name), function.object, recursion);
}

// Callgrind names a function without a symbol by its address ("0x1f0970",
// "0x1f0970'2" at recursion level 2).
bool IsAddressName(absl::string_view name) {
  TakeRecursionSuffix(name);
  if (name.size() < 3 || name[0] != '0' || name[1] != 'x') return false;
  return std::all_of(name.begin() + 2, name.end(),
                     [](char c) { return IsDigit(c) || (c >= 'a' && c <= 'f'); });
}

}  // namespace

absl::Status Parser::BookCosts() {
  const int64_t cost = costs_[0];
  auto add = [this](int64_t& sum, int64_t value) {
    if (__builtin_add_overflow(sum, value, &sum)) {
      return Invalid("cost sum overflows 64 bits; expected realistic counts");
    }
    return absl::OkStatus();
  };

  if (pending_call_line_ != 0) {
    // The call's inclusive cost: it counts toward the target (and, for
    // --inclusive=yes, the caller), but is not anyone's self cost.
    pending_call_line_ = 0;
    Function& callee = functions_[callee_];
    callee.called = true;
    if (absl::Status s = add(callee.called_inclusive, cost); !s.ok()) return s;
    std::pair<int64_t, int64_t>& arc = arcs_[{current_, callee_}];
    if (absl::Status s = add(arc.first, call_count_); !s.ok()) return s;
    if (absl::Status s = add(arc.second, cost); !s.ok()) return s;
    return add(functions_[current_].self_and_calls, cost);
  }

  Function& function = functions_[current_];
  if (absl::Status s = add(function.self, cost); !s.ok()) return s;
  if (absl::Status s = add(function.self_and_calls, cost); !s.ok()) return s;
  for (size_t i = 0; i < costs_.size(); ++i) {
    if (absl::Status s = add(part_.self_sum[i], costs_[i]); !s.ok()) return s;
  }
  return absl::OkStatus();
}

size_t Parser::Intern(const std::string& file, const std::string& function) {
  auto [it, inserted] =
      function_index_.try_emplace(absl::StrCat(file, ":", function), functions_.size());
  if (inserted) {
    functions_.emplace_back();
    functions_.back().unnamed = IsAddressName(function);
    functions_.back().file = file;
    functions_.back().name = function;
  }
  return it->second;
}

void Parser::Commit() {
  if (current_ != kNoFunction) functions_[current_].listed = true;
}

void Parser::Enter(const std::string& file, const std::string& function) {
  current_ = Intern(file, function);
}

absl::Status Parser::FinishPart(int line_number) {
  // Callgrind closes every part with "totals:", so a part without one was
  // cut off. Other writers (cachegrind) may omit it.
  if (is_callgrind_ && !part_.totals.has_value()) {
    return Error(absl::StatusCode::kDataLoss, line_number,
                 absl::StrCat("part ", part_.number, " (from line ", part_.first_line,
                              ") ends without a \"totals:\" line; expected "
                              "one, callgrind always writes it (truncated "
                              "file?)"));
  }
  if (part_.totals.has_value()) {
    // The spec: "totals:" must give the total of all cost lines, to allow
    // for a consistency check. A mismatch means lost or damaged lines.
    for (size_t i = 0; i < profile_.events.size(); ++i) {
      const int64_t sum = part_.self_sum.empty() ? 0 : part_.self_sum[i];
      if ((*part_.totals)[i] != sum) {
        return Error(absl::StatusCode::kDataLoss, part_.totals_line,
                     absl::StrCat("\"totals:\" gives ", (*part_.totals)[i], " ", profile_.events[i],
                                  " but the cost lines of part ", part_.number, " sum to ", sum,
                                  "; expected them to agree (corrupt file?)"));
      }
    }
  }
  // callgrind_annotate's choice of PROGRAM TOTALS: "summary:" unless it is
  // missing or all zero, then "totals:", then the sum of self costs.
  auto nonzero = [](const std::optional<std::vector<int64_t>>& costs) {
    if (!costs.has_value()) return false;
    for (int64_t cost : *costs) {
      if (cost > 0) return true;
    }
    return false;
  };
  const std::vector<int64_t>* part_totals;
  if (nonzero(part_.summary)) {
    part_totals = &*part_.summary;
  } else if (nonzero(part_.totals)) {
    part_totals = &*part_.totals;
  } else {
    part_totals = &part_.self_sum;
    total_is_calculated_ = true;
  }
  profile_.event_totals.resize(profile_.events.size(), 0);
  for (size_t i = 0; i < part_totals->size() && i < profile_.event_totals.size(); ++i) {
    if (__builtin_add_overflow(profile_.event_totals[i], (*part_totals)[i],
                               &profile_.event_totals[i])) {
      return Error(absl::StatusCode::kInvalidArgument, line_number,
                   "program total overflows 64 bits; expected realistic counts");
    }
  }
  total_ = profile_.event_totals.empty() ? 0 : profile_.event_totals[0];
  ++profile_.num_parts;
  return absl::OkStatus();
}

absl::StatusOr<CallgrindProfile> Parser::Finish() {
  if (pending_call_line_ != 0) {
    return Error(absl::StatusCode::kDataLoss, line_number_,
                 absl::StrCat("input ends after the \"calls=\" on line ", pending_call_line_,
                              "; expected the call's cost line (truncated "
                              "file?)"));
  }
  if (profile_.events.empty()) {
    return Error(absl::StatusCode::kDataLoss, line_number_,
                 "input ends without an \"events:\" header line; expected a "
                 "callgrind profile (truncated file?)");
  }
  if (absl::Status status = FinishPart(line_number_); !status.ok()) {
    return status;
  }
  // Unlike annotate, which drops the last function's costs when no fl= came
  // before it, the last function is always listed.
  Commit();

  std::vector<FunctionKey> keys(functions_.size());
  for (size_t index = 0; index < functions_.size(); ++index) {
    const Function& function = functions_[index];
    keys[index] = KeyOf(function);
    if (function.unnamed && !function.object.empty()) {
      profile_.unnamed_groups[keys[index]] = FunctionKey(
          function.file, absl::StrCat("(unknown in ", keys[index].object_name(), ")"),
          function.object);
    }
    if (!function.listed && !function.called) continue;
    const FunctionKey& key = keys[index];
    if (function.listed) profile_.exclusive[key] += function.self;
    profile_.inclusive[key] +=
        function.called ? function.called_inclusive : function.self_and_calls;
  }
  profile_.calls.reserve(arcs_.size());
  for (const auto& [ends, arc] : arcs_) {
    profile_.calls.push_back(
        {keys[ends.first], keys[ends.second], arc.first, arc.second});
  }
  // Hash order is not stable between builds; callers and tests want one.
  std::sort(profile_.calls.begin(), profile_.calls.end(),
            [](const CallgrindProfile::CallArc& x, const CallgrindProfile::CallArc& y) {
              return std::tie(x.caller, x.callee) < std::tie(y.caller, y.callee);
            });
  profile_.total = total_;
  profile_.total_is_calculated = total_is_calculated_;
  return std::move(profile_);
}

}  // namespace icount::timer::internal::callgrind_parsing
