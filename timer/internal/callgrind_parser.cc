#include "timer/internal/callgrind_parser.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "base/status.h"

namespace icount::timer::internal {
namespace {

// Error messages quote at most this much of the offending line.
constexpr size_t kMaxQuotedChars = 100;

bool IsSpace(char c) { return c == ' ' || c == '\t'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

absl::string_view StripLeadingSpace(absl::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsSpace(s[i])) ++i;
  return s.substr(i);
}

std::string Quote(absl::string_view line) {
  if (line.size() <= kMaxQuotedChars) {
    return absl::StrCat("'", absl::CHexEscape(line), "'");
  }
  return absl::StrCat("'", absl::CHexEscape(line.substr(0, kMaxQuotedChars)), "...'");
}

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

// Number := "0x" HexDigit+ | Digit+   (no sign; callgrind counters are
// unsigned 64-bit).
bool ParseNumber(absl::string_view text, uint64_t* value) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  if (text.empty() || text[0] == '+' || text[0] == '-') return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *value, base);
  return ec == std::errc() && ptr == end;
}

// SubPosition := Number | "+" Number | "-" Number | "*". Only validated: the
// values (line numbers, addresses) do not affect per-function costs.
bool IsSubPosition(absl::string_view text) {
  if (text == "*") return true;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    text.remove_prefix(1);
  }
  uint64_t ignored;
  return ParseNumber(text, &ignored);
}

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

// The key of `function`: callgrind's "f'N" is function f at recursion level
// N.
FunctionKey KeyOf(const Function& function) {
  absl::string_view name = function.name;
  const int recursion = TakeRecursionSuffix(name);
  return FunctionKey(function.file, std::string(name), function.object, recursion);
}

// Callgrind names a function without a symbol by its address.
bool IsAddressName(absl::string_view name) {
  if (name.size() < 3 || name[0] != '0' || name[1] != 'x') return false;
  return std::all_of(name.begin() + 2, name.end(),
                     [](char c) { return IsDigit(c) || (c >= 'a' && c <= 'f'); });
}

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
  absl::Status ParseAssociationTarget(absl::string_view line, Tokens& tokens);
  absl::Status ParseCosts(absl::string_view line, Tokens& tokens, std::vector<int64_t>* costs);
  absl::Status ResolveName(NameTable table, absl::string_view line, absl::string_view value,
                           std::string* name);
  absl::Status EnterBody(absl::string_view line);
  absl::Status FinishPart(int line_number);
  absl::StatusOr<CallgrindProfile> Finish();

  // The current function handling, mirroring callgrind_annotate: Commit()
  // adds the current function to the listing; Enter() makes `name` current.
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

absl::StatusOr<CallgrindProfile> Parser::Parse(absl::string_view text) {
  if (text.empty()) {
    return Error(absl::StatusCode::kDataLoss, 1, "empty input; expected a callgrind profile");
  }
  size_t pos = 0;
  while (pos < text.size()) {
    ++line_number_;
    size_t newline = text.find('\n', pos);
    if (newline == absl::string_view::npos) {
      // Callgrind ends every line, including the last, with a newline, so a
      // missing one means the writer was cut off (or the file is still being
      // written).
      return Error(absl::StatusCode::kDataLoss, line_number_,
                   absl::StrCat("last line ", Quote(text.substr(pos)),
                                " has no newline; expected a complete file "
                                "(truncated?)"));
    }
    absl::string_view line = text.substr(pos, newline - pos);
    pos = newline + 1;
    if (std::memchr(line.data(), '\0', line.size()) != nullptr) {
      return Error(
          absl::StatusCode::kDataLoss, line_number_,
          absl::StrCat("NUL byte in line ", Quote(line), "; expected text (corrupt file?)"));
    }
    if (absl::Status status = ParseLine(line); !status.ok()) return status;
  }
  return Finish();
}

absl::Status Parser::ParseLine(absl::string_view line) {
  // Blank and comment lines may appear anywhere, even between calls= and its
  // cost line (callgrind_annotate skips them there too).
  if (StripLeadingSpace(line).empty() || line[0] == '#') {
    return absl::OkStatus();
  }
  const char first = line[0];
  if (IsDigit(first) || first == '+' || first == '-' || first == '*') {
    return ParseCostLine(line);
  }
  if (pending_call_line_ != 0) {
    return Invalid(absl::StrCat("got ", Quote(line),
                                "; expected the cost line of the call on line ", pending_call_line_,
                                " (\"calls=\" must be followed by one)"));
  }
  size_t key_end = 0;
  while (key_end < line.size() && IsAlpha(line[key_end])) ++key_end;
  if (key_end > 0 && key_end < line.size()) {
    const absl::string_view key = line.substr(0, key_end);
    const absl::string_view value = line.substr(key_end + 1);
    if (line[key_end] == ':') {
      return ParseHeaderLine(line, key, StripLeadingSpace(value));
    }
    if (line[key_end] == '=') return ParseSpecLine(line, key, value);
  }
  return Invalid(
      absl::StrCat("unrecognized line ", Quote(line),
                   "; expected a header line \"key: value\", a specification \"key=value\""
                   " or a cost line starting with a position"));
}

absl::Status Parser::ParseHeaderLine(absl::string_view line, absl::string_view key,
                                     absl::string_view value) {
  if (key == "summary" || key == "totals") return ParseTotalsLine(line, key, value);
  static constexpr absl::string_view kPartHeaderKeys[] = {
      "version", "creator", "pid", "thread", "part", "cmd", "desc", "positions", "event", "events"};
  bool known = false;
  for (absl::string_view known_key : kPartHeaderKeys) known |= key == known_key;
  if (!known) {
    // The spec allows arbitrary header keys, but in a body an unknown one is
    // far more likely a damaged line than the start of a new part.
    if (in_body_) {
      return Invalid(absl::StrCat("unknown header line ", Quote(line),
                                  " inside a body; expected a cost line or a "
                                  "specification \"key=value\""));
    }
    return absl::OkStatus();
  }
  // A header line after the body (or after "totals:", which ends a part)
  // starts the next part, as in files written with --combine-dumps=yes.
  if (in_body_ || part_.totals.has_value()) {
    ICOUNT_RETURN_IF_ERROR(StartNextPart());
  }
  if (key == "version") return ParseVersionLine(line, value);
  if (key == "positions") return ParsePositionsLine(line, value);
  if (key == "events") return ParseEventsLine(line, value);
  if (key == "creator") {
    profile_.creator = std::string(value);
    is_callgrind_ = absl::StartsWith(value, "callgrind");
  } else if (key == "pid" || key == "thread" || key == "part") {
    uint64_t number;
    if (!ParseNumber(value, &number)) {
      return Invalid(absl::StrCat("malformed ", Quote(line), "; expected \"", key, ": <number>\""));
    }
  } else if (key == "cmd") {
    if (profile_.command.empty()) profile_.command = std::string(value);
  }
  // "desc:" and "event:" (long event names) carry nothing we report.
  return absl::OkStatus();
}

absl::Status Parser::ParseTotalsLine(absl::string_view line, absl::string_view key,
                                     absl::string_view value) {
  if (profile_.events.empty()) {
    return Invalid(absl::StrCat(Quote(line),
                                " comes before the \"events:\" line; "
                                "expected \"events:\" first"));
  }
  Tokens tokens(value);
  std::vector<int64_t> costs;
  ICOUNT_RETURN_IF_ERROR(ParseCosts(line, tokens, &costs));
  if (key == "summary") {
    part_.summary = std::move(costs);
  } else {
    part_.totals = std::move(costs);
    part_.totals_line = line_number_;
  }
  return absl::OkStatus();
}

absl::Status Parser::StartNextPart() {
  ICOUNT_RETURN_IF_ERROR(FinishPart(line_number_));
  Part next;
  next.number = part_.number + 1;
  next.first_line = line_number_;
  part_ = std::move(next);
  in_body_ = false;
  num_positions_ = 1;
  return absl::OkStatus();
}

absl::Status Parser::ParseVersionLine(absl::string_view line, absl::string_view value) {
  uint64_t version;
  if (!ParseNumber(value, &version)) {
    return Invalid(absl::StrCat("malformed ", Quote(line), "; expected \"version: <number>\""));
  }
  if (version > 1) {
    return Invalid(
        absl::StrCat("unsupported format version ", version, "; expected version 0 or 1"));
  }
  return absl::OkStatus();
}

absl::Status Parser::ParsePositionsLine(absl::string_view line, absl::string_view value) {
  Tokens tokens(value);
  absl::string_view token;
  size_t count = 0;
  while (tokens.Next(&token)) {
    // "addr" is not in the spec but callgrind_annotate accepts it.
    if (token != "instr" && token != "addr" && token != "bb" && token != "line") {
      return Invalid(absl::StrCat("unknown position type in ", Quote(line),
                                  "; expected \"instr\", \"bb\" or "
                                  "\"line\""));
    }
    ++count;
  }
  if (count == 0) {
    return Invalid(absl::StrCat("empty ", Quote(line), "; expected \"positions: [instr] [line]\""));
  }
  num_positions_ = count;
  return absl::OkStatus();
}

absl::Status Parser::ParseEventsLine(absl::string_view line, absl::string_view value) {
  if (part_.has_events_line) {
    return Invalid(
        absl::StrCat("second \"events:\" line in part ", part_.number, "; expected one per part"));
  }
  part_.has_events_line = true;
  std::vector<std::string> events;
  Tokens tokens(value);
  absl::string_view token;
  while (tokens.Next(&token)) events.emplace_back(token);
  if (events.empty()) {
    return Invalid(absl::StrCat("empty ", Quote(line), "; expected \"events: <name>...\""));
  }
  if (profile_.events.empty()) {
    profile_.events = std::move(events);
    costs_.assign(profile_.events.size(), 0);
  } else if (events != profile_.events) {
    // Counts of different events cannot be summed across parts.
    return Invalid(absl::StrCat("part ", part_.number, " has events \"", absl::StrJoin(events, " "),
                                "\"; expected the events of the earlier parts, \"",
                                absl::StrJoin(profile_.events, " "), "\""));
  }
  return absl::OkStatus();
}

absl::Status Parser::EnterBody(absl::string_view line) {
  if (in_body_) return absl::OkStatus();
  if (profile_.events.empty()) {
    return Invalid(absl::StrCat("body line ", Quote(line),
                                " before any \"events:\" header line; "
                                "expected \"events: <name>...\" first"));
  }
  in_body_ = true;
  if (part_.self_sum.empty()) part_.self_sum.assign(profile_.events.size(), 0);
  return absl::OkStatus();
}

absl::Status Parser::ParseSpecLine(absl::string_view line, absl::string_view key,
                                   absl::string_view value) {
  ICOUNT_RETURN_IF_ERROR(EnterBody(line));
  if (key == "ob" || key == "cob" || key == "fl" || key == "fi" || key == "fe" || key == "fn") {
    return ParsePositionSpec(line, key, value);
  }
  if (key == "cfi" || key == "cfl" || key == "cfn" || key == "calls") {
    return ParseCallSpec(line, key, value);
  }
  if (key == "jump" || key == "jcnd" || key == "jfi" || key == "jfn") {
    return ParseJumpSpec(line, key, value);
  }
  return Invalid(absl::StrCat("unknown specification ", Quote(line),
                              "; expected one of ob=, fl=, fi=, fe=, fn=, cob=, cfi=, cfl=, cfn=, "
                              "calls=, jump=, jcnd=, jfi=, jfn="));
}

absl::Status Parser::ParsePositionSpec(absl::string_view line, absl::string_view key,
                                       absl::string_view value) {
  std::string name;
  if (key == "ob") {
    ICOUNT_RETURN_IF_ERROR(ResolveName(kObjectNames, line, value, &name));
    auto renamed = object_names_.find(name);
    current_object_ = renamed == object_names_.end() ? std::move(name) : renamed->second;
  } else if (key == "cob") {
    // Defines a compressed name; the target's object is not part of its key.
    return ResolveName(kObjectNames, line, value, &name);
  } else if (key == "fl") {
    ICOUNT_RETURN_IF_ERROR(ResolveName(kFileNames, line, value, &name));
    // Like annotate, this does not change the current function: cost lines
    // before the next fn= still belong to it.
    current_file_ = std::move(name);
  } else if (key == "fi" || key == "fe") {
    if (current_ == kNoFunction) {
      return Invalid(absl::StrCat(Quote(line),
                                  " before any \"fn=\" line; expected a "
                                  "function to hold the inlined code"));
    }
    ICOUNT_RETURN_IF_ERROR(ResolveName(kFileNames, line, value, &name));
    // callgrind_annotate books inlined code under "<inlined file>:<fn>" and
    // keeps that file current until the next fl=.
    Commit();
    current_file_ = std::move(name);
    Enter(current_file_, current_function_name_);
  } else {  // fn=
    ICOUNT_RETURN_IF_ERROR(ResolveName(kFunctionNames, line, value, &name));
    Commit();
    current_function_name_ = std::move(name);
    Enter(current_file_, current_function_name_);
    functions_[current_].object = current_object_;
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseCallSpec(absl::string_view line, absl::string_view key,
                                   absl::string_view value) {
  if (key == "cfi" || key == "cfl") return ResolveName(kFileNames, line, value, &call_file_);
  if (key == "cfn") {
    std::string name;
    ICOUNT_RETURN_IF_ERROR(ResolveName(kFunctionNames, line, value, &name));
    // Without cfi=, annotate takes the caller's current file (which may be an
    // fi=/fe= file); an empty cfi= name counts as no cfi=.
    callee_ = Intern(call_file_.empty() ? current_file_ : call_file_, name);
    call_file_.clear();
    return absl::OkStatus();
  }
  // calls=
  if (current_ == kNoFunction) {
    return Invalid(absl::StrCat(Quote(line),
                                " before any \"fn=\" line; expected the "
                                "calling function first"));
  }
  if (callee_ == kNoFunction) {
    return Invalid(absl::StrCat(Quote(line),
                                " without a preceding \"cfn=\" line; "
                                "expected the called function first"));
  }
  Tokens tokens(value);
  absl::string_view count;
  uint64_t calls;
  if (!tokens.Next(&count) || !ParseNumber(count, &calls) ||
      calls > static_cast<uint64_t>(INT64_MAX)) {
    return Invalid(absl::StrCat("malformed ", Quote(line),
                                "; expected \"calls=<count> <target "
                                "position>\""));
  }
  ICOUNT_RETURN_IF_ERROR(ParseAssociationTarget(line, tokens));
  // The count does not matter for costs: even calls=0 (written for a call
  // that began before the previous dump) is followed by that call's
  // inclusive cost.
  call_count_ = static_cast<int64_t>(calls);
  pending_call_line_ = line_number_;
  return absl::OkStatus();
}

absl::Status Parser::ParseJumpSpec(absl::string_view line, absl::string_view key,
                                   absl::string_view value) {
  std::string name;
  if (key == "jfi") return ResolveName(kFileNames, line, value, &name);
  if (key == "jfn") return ResolveName(kFunctionNames, line, value, &name);
  // Jumps carry no cost; their source position comes on the next line, a
  // cost line without costs. Validated only.
  Tokens tokens(value);
  absl::string_view count;
  uint64_t ignored;
  bool ok = tokens.Next(&count);
  if (ok && key == "jcnd") {
    // Callgrind writes "jcnd=<executed>/<jumped>"; the spec says
    // "jcnd=<executed> <jumped>". Accept both.
    size_t slash = count.find('/');
    if (slash != absl::string_view::npos) {
      ok = ParseNumber(count.substr(slash + 1), &ignored);
      count = count.substr(0, slash);
    } else {
      absl::string_view jumped;
      ok = tokens.Next(&jumped) && ParseNumber(jumped, &ignored);
    }
  }
  if (!ok || !ParseNumber(count, &ignored)) {
    return Invalid(absl::StrCat("malformed ", Quote(line), "; expected \"", key,
                                key == "jump" ? "=<count>" : "=<executed>/<jumped>",
                                " <target position>\""));
  }
  return ParseAssociationTarget(line, tokens);
}

absl::Status Parser::ParseAssociationTarget(absl::string_view line, Tokens& tokens) {
  size_t count = 0;
  absl::string_view token;
  while (tokens.Next(&token)) {
    if (!IsSubPosition(token) || ++count > num_positions_) {
      return Invalid(absl::StrCat("malformed target position in ", Quote(line),
                                  "; expected at most ", num_positions_,
                                  " subposition(s) (number, +N, -N or *)"));
    }
  }
  if (count == 0) {
    return Invalid(absl::StrCat("missing target position in ", Quote(line),
                                "; expected a subposition (number, +N, -N or "
                                "*)"));
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseCosts(absl::string_view line, Tokens& tokens,
                                std::vector<int64_t>* costs) {
  costs->assign(profile_.events.size(), 0);
  absl::string_view token;
  size_t count = 0;
  while (tokens.Next(&token)) {
    if (count == profile_.events.size()) {
      return Invalid(absl::StrCat("too many costs in ", Quote(line), "; expected at most ",
                                  profile_.events.size(),
                                  " (events: ", absl::StrJoin(profile_.events, " "), ")"));
    }
    // "." is an old cachegrind spelling of 0 that annotate still accepts.
    uint64_t value = 0;
    if (token != "." && (!ParseNumber(token, &value) || value > static_cast<uint64_t>(INT64_MAX))) {
      return Invalid(absl::StrCat("malformed cost ", Quote(token), " for event ",
                                  profile_.events[count], " in ", Quote(line),
                                  "; expected a number below 2^63"));
    }
    (*costs)[count++] = static_cast<int64_t>(value);
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseCostLine(absl::string_view line) {
  if (absl::Status status = EnterBody(line); !status.ok()) return status;
  Tokens tokens(line);
  absl::string_view token;
  for (size_t i = 0; i < num_positions_; ++i) {
    if (!tokens.Next(&token) || !IsSubPosition(token)) {
      return Invalid(absl::StrCat(
          "malformed cost line ", Quote(line), "; expected ", num_positions_,
          " subposition(s) (number, +N, -N or *) then up to ", profile_.events.size(), " cost(s)"));
    }
  }
  if (absl::Status status = ParseCosts(line, tokens, &costs_); !status.ok()) {
    return status;
  }
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

  if (current_ == kNoFunction) {
    return Invalid(absl::StrCat("cost line ", Quote(line),
                                " before any \"fn=\" line; expected the "
                                "function it belongs to first"));
  }
  Function& function = functions_[current_];
  if (absl::Status s = add(function.self, cost); !s.ok()) return s;
  if (absl::Status s = add(function.self_and_calls, cost); !s.ok()) return s;
  for (size_t i = 0; i < costs_.size(); ++i) {
    if (absl::Status s = add(part_.self_sum[i], costs_[i]); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Parser::ResolveName(NameTable table, absl::string_view line, absl::string_view value,
                                 std::string* name) {
  // "(id) name" defines id, "(id)" refers to it; anything else is the name
  // itself. Names never start with "(" + digit, so that prefix is reserved.
  if (value.size() < 2 || value[0] != '(' || !IsDigit(value[1])) {
    name->assign(value.data(), value.size());
    return absl::OkStatus();
  }
  const size_t close = value.find(')');
  uint64_t id;
  if (close == absl::string_view::npos || !ParseNumber(value.substr(1, close - 1), &id)) {
    return Invalid(absl::StrCat("malformed compressed name in ", Quote(line),
                                "; expected \"(<id>) <name>\" or \"(<id>)\""));
  }
  const absl::string_view defined = StripLeadingSpace(value.substr(close + 1));
  if (defined.empty()) {
    auto it = names_[table].find(id);
    if (it == names_[table].end()) {
      return Invalid(absl::StrCat("compressed name (", id, ") in ", Quote(line),
                                  " is used before it is defined; expected "
                                  "\"(",
                                  id, ") <name>\" on an earlier line"));
    }
    *name = it->second;
  } else {
    name->assign(defined.data(), defined.size());
    names_[table][id] = *name;
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

}  // namespace

absl::StatusOr<CallgrindProfile> ParseCallgrindOutput(std::string_view text,
                                                      std::string_view source_name,
                                                      const ObjectNames& object_names) {
  // Debian's abseil is built with its own absl::string_view rather than an
  // alias of std::string_view, so convert once at the boundary.
  return Parser(absl::string_view(source_name.data(), source_name.size()), object_names)
      .Parse(absl::string_view(text.data(), text.size()));
}

absl::StatusOr<CallgrindProfile> ParseCallgrindFile(const std::string& path,
                                                    const ObjectNames& object_names) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (file == nullptr) {
    const int error = errno;
    const std::string message = absl::StrCat("cannot open ", path, ": ", std::strerror(error));
    switch (error) {
      case ENOENT:
      case ENOTDIR:
        return absl::NotFoundError(message);
      case EACCES:
      case EPERM:
        return absl::PermissionDeniedError(message);
      default:
        return absl::UnavailableError(message);
    }
  }
  std::string text;
  char buffer[1 << 16];
  size_t read;
  while ((read = std::fread(buffer, 1, sizeof(buffer), file.get())) > 0) {
    text.append(buffer, read);
  }
  if (std::ferror(file.get())) {
    return absl::DataLossError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  return ParseCallgrindOutput(text, path, object_names);
}

}  // namespace icount::timer::internal
