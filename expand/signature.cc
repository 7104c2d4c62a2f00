#include "expand/signature.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "re2/re2.h"

namespace icount::expand {
namespace {

bool IsIdentifier(absl::string_view name) {
  if (name.empty() || absl::ascii_isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

absl::Status Invalid(absl::string_view signature, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid signature \"", signature, "\": ", why,
                   " (expected the form \"f(a, b) -> y\" or \"f(a, b) -> None\")"));
}

}  // namespace

std::string Signature::ArgList() const { return absl::StrJoin(args, ", "); }

std::string Signature::ToString() const {
  return absl::StrCat("f(", ArgList(), ") -> ", output.has_value() ? *output : "None");
}

absl::StatusOr<Signature> ParseSignature(absl::string_view signature) {
  // Both groups are greedy up to the last ")" before "->", so a malformed
  // argument list is caught by the identifier check below, which explains
  // the problem better than a failed match would.
  static const RE2* const kForm = new RE2(R"(^\s*f\s*\((.*)\)\s*->\s*(.*?)\s*$)");
  std::string args_text, output;
  if (!RE2::FullMatch(re2::StringPiece(signature.data(), signature.size()), *kForm, &args_text,
                      &output)) {
    return Invalid(signature, "it does not look like \"f(...) -> ...\"");
  }

  Signature parsed;
  if (!absl::StripAsciiWhitespace(args_text).empty()) {
    absl::flat_hash_set<std::string> seen;
    for (absl::string_view arg : absl::StrSplit(args_text, ',')) {
      arg = absl::StripAsciiWhitespace(arg);
      if (!IsIdentifier(arg)) {
        return Invalid(signature, absl::StrCat("argument \"", arg, "\" is not an identifier"));
      }
      if (!seen.insert(std::string(arg)).second) {
        return Invalid(signature, absl::StrCat("argument \"", arg, "\" appears twice"));
      }
      parsed.args.emplace_back(arg);
    }
  }

  if (output.find(',') != std::string::npos) {
    return Invalid(signature, "multiple return values are not supported");
  }
  if (output != "None") {
    if (!IsIdentifier(output)) {
      return Invalid(signature, absl::StrCat("output \"", output, "\" is not an identifier"));
    }
    parsed.output = output;
  }
  return parsed;
}

}  // namespace icount::expand
