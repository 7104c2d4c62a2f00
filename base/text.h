#ifndef ICOUNT_BASE_TEXT_H_
#define ICOUNT_BASE_TEXT_H_

// Text helpers every icount library may use: the parts of Python's textwrap
// that benchmark snippets rely on, JSON string literals in the two
// spellings icount writes, and counted nouns for messages.
//
//   Dedent("  a\n    b\n")       // "a\n  b\n"
//   NormalizeSnippet("\n  x = 1\n")  // "x = 1"
//   JsonString("a\"b")           // "\"a\\\"b\""
//   PythonJsonString("caf\xc3\xa9")  // "\"caf\\u00e9\""
//   CountOf(1, "case")           // "1 case"

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace icount::base {

// True when `line` holds only spaces, tabs or other ASCII whitespace (no
// newline).
bool IsBlank(absl::string_view line);

// Python's textwrap.dedent: removes the longest common leading whitespace of
// all non-blank lines (tabs and spaces are not equated); blank lines become
// empty.
std::string Dedent(absl::string_view text);

// Python's textwrap.indent(text, prefix): prefixes every non-blank line.
std::string Indent(absl::string_view text, absl::string_view prefix);

// The canonical form of a snippet (a statement, a setup, a global setup),
// the one icount stores, prints and keys results by, whether it came to the
// timer directly or from a suite definition: dedented, trailing whitespace
// removed from every line, and leading and trailing blank lines dropped.
// Interior blank lines stay. Snippets are often written as indented raw
// string literals, so this is what makes R"(\n    x = 1\n  )" and "x = 1"
// the same snippet. torch.utils.benchmark's Timer dedents and strips the
// text as a whole; this also strips each line, so a table of snippets
// parses the same with or without trailing spaces.
//
//   NormalizeSnippet("\n    x = 1  \n      y = 2\n  ")  // "x = 1\n  y = 2"
std::string NormalizeSnippet(absl::string_view text);

// `text` as a JSON string literal, quotes included: '"' and '\\' escaped,
// control characters as \n, \t or \u00XX; other bytes (UTF-8) as they are.
//   JsonString("a\"b") == "\"a\\\"b\""
std::string JsonString(absl::string_view text);


// A JSON string as Python's json.dumps writes it (ensure_ascii=True), for
// output that must match the reference byte for byte: non-ASCII characters
// become \uXXXX escapes (surrogate pairs beyond the BMP); bytes that are not
// valid UTF-8 are taken as Latin-1.
std::string PythonJsonString(absl::string_view text);

// `text` as a C++ string literal for generated code, quotes included: '"',
// '\\' and newlines escaped, other bytes as they are.
//   CppStringLiteral("a\"b\n") == "\"a\\\"b\\n\""
std::string CppStringLiteral(absl::string_view text);

// `text` as a raw, triple-quoted Python literal for generated scripts,
// r'''text''' (for paths and source without a triple quote).
std::string PythonRawLiteral(absl::string_view text);

// `n` and a noun that takes an "s" in the plural, as messages count
// things: CountOf(1, "case") == "1 case", CountOf(0, "work order") ==
// "0 work orders".
std::string CountOf(size_t n, absl::string_view noun);

}  // namespace icount::base

#endif  // ICOUNT_BASE_TEXT_H_
