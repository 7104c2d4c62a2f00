#ifndef ICOUNT_BASE_STATUS_H_
#define ICOUNT_BASE_STATUS_H_

// Early returns for absl::Status and absl::StatusOr, and context for errors
// that travel up:
//
//   absl::StatusOr<Results> Load(const std::string& path) {
//     ICOUNT_ASSIGN_OR_RETURN(std::string text, base::ReadFileToString(path));
//     ICOUNT_RETURN_IF_ERROR(CheckSyntax(text));
//     ICOUNT_ASSIGN_OR_RETURN(Results results, Parse(text),
//                             base::WithContext(_, "reading " + path));
//     return results;
//   }
//
// The optional last argument of either macro rewrites the error before it
// is returned; `_` names the failed absl::Status there.

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace icount::base {

// `status` with "context: " in front of its message, same code; OK stays OK.
// A message that already starts with "context: " keeps it once: a layer
// that names the flag or side it checks and a caller that names it again
// say "--root: /x: no such directory", not "--root: --root: /x: ...".
inline absl::Status WithContext(const absl::Status& status, absl::string_view context) {
  if (status.ok()) return status;
  const absl::string_view message = status.message();
  if (message.size() > context.size() + 1 && message.substr(0, context.size()) == context &&
      message.substr(context.size(), 2) == ": ") {
    return status;
  }
  return absl::Status(status.code(), absl::StrCat(context, ": ", message));
}

namespace internal {
inline const absl::Status& AsStatus(const absl::Status& status) { return status; }
template <typename T>
const absl::Status& AsStatus(const T& status_or) {
  return status_or.status();
}
}  // namespace internal

}  // namespace icount::base

#define ICOUNT_STATUS_CONCAT_INNER_(a, b) a##b
#define ICOUNT_STATUS_CONCAT_(a, b) ICOUNT_STATUS_CONCAT_INNER_(a, b)
#define ICOUNT_STATUS_SELECT_(_1, _2, _3, NAME, ...) NAME

// ICOUNT_RETURN_IF_ERROR(expr) or ICOUNT_RETURN_IF_ERROR(expr, rewrite):
// returns the error of `expr` (a Status or a StatusOr) from the enclosing
// function, rewritten by `rewrite` (an expression of `_`) when given.
#define ICOUNT_RETURN_IF_ERROR(...)                                                        \
  ICOUNT_STATUS_SELECT_(__VA_ARGS__, ICOUNT_RETURN_IF_ERROR_3_, ICOUNT_RETURN_IF_ERROR_2_, \
                        ICOUNT_RETURN_IF_ERROR_1_)                                         \
  (__VA_ARGS__)
#define ICOUNT_RETURN_IF_ERROR_1_(expr) ICOUNT_RETURN_IF_ERROR_2_(expr, _)
#define ICOUNT_RETURN_IF_ERROR_2_(expr, rewrite)                                                  \
  do {                                                                                            \
    if (const absl::Status _ = ::icount::base::internal::AsStatus(expr); !_.ok()) return rewrite; \
  } while (false)
#define ICOUNT_RETURN_IF_ERROR_3_(...) \
  static_assert(false, "ICOUNT_RETURN_IF_ERROR takes 1 or 2 arguments")

// ICOUNT_ASSIGN_OR_RETURN(lhs, expr) or (lhs, expr, rewrite): evaluates the
// StatusOr `expr`; on error returns it (rewritten by `rewrite`, an
// expression of `_`), else moves its value into `lhs` (which may declare a
// variable: `std::string text`).
#define ICOUNT_ASSIGN_OR_RETURN(...)                                                         \
  ICOUNT_STATUS_SELECT_(__VA_ARGS__, ICOUNT_ASSIGN_OR_RETURN_3_, ICOUNT_ASSIGN_OR_RETURN_2_, \
                        ICOUNT_ASSIGN_OR_RETURN_1_)                                          \
  (__VA_ARGS__)
#define ICOUNT_ASSIGN_OR_RETURN_1_(...) \
  static_assert(false, "ICOUNT_ASSIGN_OR_RETURN takes 2 or 3 arguments")
#define ICOUNT_ASSIGN_OR_RETURN_2_(lhs, expr) ICOUNT_ASSIGN_OR_RETURN_3_(lhs, expr, _)
#define ICOUNT_ASSIGN_OR_RETURN_3_(lhs, expr, rewrite)                                         \
  ICOUNT_ASSIGN_OR_RETURN_IMPL_(ICOUNT_STATUS_CONCAT_(icount_status_or_, __LINE__), lhs, expr, \
                                rewrite)
#define ICOUNT_ASSIGN_OR_RETURN_IMPL_(status_or, lhs, expr, rewrite) \
  auto status_or = (expr);                                           \
  if (!status_or.ok()) {                                             \
    const absl::Status _ = std::move(status_or).status();            \
    return rewrite;                                                  \
  }                                                                  \
  lhs = *std::move(status_or)

#endif  // ICOUNT_BASE_STATUS_H_
