#ifndef ICOUNT_BASE_JSON_SYNTAX_H_
#define ICOUNT_BASE_JSON_SYNTAX_H_

// Where a text stops being JSON (RFC 8259), so that an error can point at
// the line and column of a mistake in a hand-edited file; protobuf's parser
// only quotes the text around it.
//
//   JsonSyntaxError("{\"a\": 1,}")
//   // "1:9: invalid JSON: expected an object key in double quotes
//   //   {"a": 1,}
//   //           ^"

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace icount::base {

// "LINE:COLUMN: invalid JSON: what is wrong" and the line with a caret under
// the column (lines up to 160 characters), or nullopt when `text` is one
// well-formed JSON value. Columns count characters, not bytes.
std::optional<std::string> JsonSyntaxError(absl::string_view text);

}  // namespace icount::base

#endif  // ICOUNT_BASE_JSON_SYNTAX_H_
