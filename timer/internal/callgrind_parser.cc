// The callgrind parser's first half (callgrind_parser_parts.h): reads
// callgrind's file format line by line.
#include "timer/internal/callgrind_parser.h"

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
#include "timer/internal/callgrind_parser_parts.h"

namespace icount::timer::internal {
namespace callgrind_parsing {
namespace {

// Error messages quote at most this much of the offending line.
constexpr size_t kMaxQuotedChars = 100;

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

}  // namespace

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
  // A call's cost line follows its calls=, which comes after an fn= line.
  if (pending_call_line_ == 0 && current_ == kNoFunction) {
    return Invalid(absl::StrCat("cost line ", Quote(line),
                                " before any \"fn=\" line; expected the "
                                "function it belongs to first"));
  }
  return BookCosts();
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

}  // namespace callgrind_parsing

absl::StatusOr<CallgrindProfile> ParseCallgrindOutput(std::string_view text,
                                                      std::string_view source_name,
                                                      const ObjectNames& object_names) {
  // Debian's abseil is built with its own absl::string_view rather than an
  // alias of std::string_view, so convert once at the boundary.
  return callgrind_parsing::Parser(absl::string_view(source_name.data(), source_name.size()),
                                   object_names)
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
