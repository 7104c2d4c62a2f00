#ifndef ICOUNT_TIMER_INTERNAL_CALLGRIND_PARSER_PARTS_H_
#define ICOUNT_TIMER_INTERNAL_CALLGRIND_PARSER_PARTS_H_

// The two halves of the callgrind parser (callgrind_parser.h) and what they
// share: the Parser reads callgrind's file format line by line
// (callgrind_parser.cc) and builds the profile from what it read: the
// functions, their costs and calls, and the program totals
// (callgrind_profile_builder.cc).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "timer/internal/callgrind_parser.h"

namespace icount::timer::internal::callgrind_parsing {

inline bool IsSpace(char c) { return c == ' ' || c == '\t'; }
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Splits a line at runs of spaces and tabs (the format's "Space") without
// allocating: cost lines are nearly all of a file, so this is the hot path.
class Tokens {
 public:
  explicit Tokens(absl::string_view text) : rest_(text) {}

  bool Next(absl::string_view* token) {
    size_t begin = 0;
    while (begin < rest_.size() && IsSpace(rest_[begin])) ++begin;
    if (begin == rest_.size()) {
      rest_ = {};
      return false;
    }
    size_t end = begin;
    while (end < rest_.size() && !IsSpace(rest_[end])) ++end;
    *token = rest_.substr(begin, end - begin);
    rest_.remove_prefix(end);
    return true;
  }

 private:
  absl::string_view rest_;
};

// Each of these keeps its own table of compressed names "(id)" (the spec's
// "separate ID mapping for each position specification"): fi=, fe=, cfi=,
// cfl= and jfi= share fl='s table, cfn= and jfn= share fn='s, cob= shares
// ob='s.
enum NameTable { kObjectNames = 0, kFileNames = 1, kFunctionNames = 2 };
constexpr int kNumNameTables = 3;

// Everything known about one "file:function" name, in callgrind_annotate's
// terms.
struct Function {
  // The object (ob=) in effect at the last fn= line naming this function;
  // empty if none. It becomes the " [object]" suffix of the key.
  std::string object;
  // Self cost: the cost lines while this was the current function.
  int64_t self = 0;
  // Self cost plus the inclusive cost of the calls it made (annotate's
  // fn_totals with --inclusive=yes).
  int64_t self_and_calls = 0;
  // The inclusive cost of all calls into this function (annotate's
  // cfn_totals).
  int64_t called_inclusive = 0;
  // Whether this was ever the current function (fn=, fi=, fe=): annotate
  // lists exactly these with --inclusive=no.
  bool listed = false;
  // Whether a call cost line ever named this as the target: with
  // --inclusive=yes annotate also lists these, with `called_inclusive`.
  bool called = false;
  // Callgrind found no symbol: the name is the function's address, e.g.
  // "0x000000000004cf40". `file` is the key's file part.
  bool unnamed = false;
  std::string file;
  // As callgrind names it, recursion suffix ("'2") included.
  std::string name;
};

// One part (dump) of the file: a header and a body.
struct Part {
  int number = 1;      // 1-based position in the file
  int first_line = 1;  // for error messages
  bool has_events_line = false;
  std::optional<std::vector<int64_t>> summary;
  std::optional<std::vector<int64_t>> totals;
  int totals_line = 0;
  // Sum of the part's self cost lines, per event: what "totals:" must say.
  std::vector<int64_t> self_sum;
};

class Parser {
 public:
  Parser(absl::string_view source_name, const ObjectNames& object_names)
      : source_name_(source_name), object_names_(object_names) {}

  absl::StatusOr<CallgrindProfile> Parse(absl::string_view text);

 private:
  static constexpr size_t kNoFunction = static_cast<size_t>(-1);

  absl::Status ParseLine(absl::string_view line);
  absl::Status ParseHeaderLine(absl::string_view line, absl::string_view key,
                               absl::string_view value);
  absl::Status ParseTotalsLine(absl::string_view line, absl::string_view key,
                               absl::string_view value);
  absl::Status StartNextPart();
  absl::Status ParseVersionLine(absl::string_view line, absl::string_view value);
  absl::Status ParsePositionsLine(absl::string_view line, absl::string_view value);
  absl::Status ParseEventsLine(absl::string_view line, absl::string_view value);
  absl::Status ParseSpecLine(absl::string_view line, absl::string_view key,
                             absl::string_view value);
  // ob=, cob=, fl=, fi=, fe=, fn=
  absl::Status ParsePositionSpec(absl::string_view line, absl::string_view key,
                                 absl::string_view value);
  // cfi=, cfl=, cfn=, calls=
  absl::Status ParseCallSpec(absl::string_view line, absl::string_view key,
                             absl::string_view value);
  // jump=, jcnd=, jfi=, jfn=
  absl::Status ParseJumpSpec(absl::string_view line, absl::string_view key,
                             absl::string_view value);
  absl::Status ParseCostLine(absl::string_view line);
  // Books the cost line just read (costs_) to the pending call, or else to
  // the current function (callgrind_profile_builder.cc).
  absl::Status BookCosts();
  absl::Status ParseAssociationTarget(absl::string_view line, Tokens& tokens);
  absl::Status ParseCosts(absl::string_view line, Tokens& tokens, std::vector<int64_t>* costs);
  absl::Status ResolveName(NameTable table, absl::string_view line, absl::string_view value,
                           std::string* name);
  absl::Status EnterBody(absl::string_view line);
  // Checks the part's "totals:" and adds its program totals to the
  // profile's (callgrind_profile_builder.cc).
  absl::Status FinishPart(int line_number);
  // The profile of everything read (callgrind_profile_builder.cc).
  absl::StatusOr<CallgrindProfile> Finish();

  // The current function handling, mirroring callgrind_annotate: Commit()
  // adds the current function to the listing; Enter() makes `name` current
  // (callgrind_profile_builder.cc).
  void Commit();
  void Enter(const std::string& file, const std::string& function);
  size_t Intern(const std::string& file, const std::string& function);

  absl::Status Error(absl::StatusCode code, int line_number, absl::string_view message) const {
    return absl::Status(code, absl::StrCat(source_name_, ":", line_number, ": ", message));
  }
  absl::Status Invalid(absl::string_view message) const {
    return Error(absl::StatusCode::kInvalidArgument, line_number_, message);
  }

  absl::string_view source_name_;
  const ObjectNames& object_names_;
  int line_number_ = 0;
  CallgrindProfile profile_;

  Part part_;
  bool in_body_ = false;
  size_t num_positions_ = 1;  // "positions:" defaults to "line"
  // Reused buffer for one line's costs, one slot per event.
  std::vector<int64_t> costs_;

  absl::flat_hash_map<uint64_t, std::string> names_[kNumNameTables];

  // Every "file:function" name seen, as an index into functions_.
  absl::flat_hash_map<std::string, size_t> function_index_;
  std::vector<Function> functions_;

  // Position state, as in callgrind_annotate: the current object, file and
  // function, and the pending call target.
  std::string current_object_;
  std::string current_file_;
  std::string current_function_name_;
  size_t current_ = kNoFunction;
  std::string call_file_;  // cfi=/cfl=, consumed by the next cfn=
  size_t callee_ = kNoFunction;
  int64_t call_count_ = 0;  // of the pending calls=
  // (caller, callee) index pairs -> calls and their inclusive cost.
  absl::flat_hash_map<std::pair<size_t, size_t>, std::pair<int64_t, int64_t>> arcs_;
  // The line of a calls= whose cost line has not been read yet, or 0.
  int pending_call_line_ = 0;
  bool is_callgrind_ = false;

  int64_t total_ = 0;
  bool total_is_calculated_ = false;
};

}  // namespace icount::timer::internal::callgrind_parsing

#endif  // ICOUNT_TIMER_INTERNAL_CALLGRIND_PARSER_PARTS_H_
