#include "timer/internal/allocation_calls.h"

#include <string_view>

#include "absl/strings/ascii.h"

namespace icount::timer::internal {
namespace {

enum class Family { kNone, kAllocation, kFree };

Family FamilyOf(std::string_view function) {
  // glibc exports several names for one entry point; callgrind shows
  // whichever its symbol table prefers.
  static constexpr std::string_view kAllocations[] = {
      "malloc",          "calloc",           "realloc",       "reallocarray",
      "aligned_alloc",   "posix_memalign",   "memalign",      "valloc",
      "pvalloc",         "__libc_malloc",    "__libc_calloc", "__libc_realloc",
      "__libc_memalign", "__posix_memalign", "__libc_valloc", "__libc_pvalloc"};
  static constexpr std::string_view kFrees[] = {"free", "cfree", "__libc_free"};
  for (std::string_view name : kAllocations) {
    if (function == name) return Family::kAllocation;
  }
  for (std::string_view name : kFrees) {
    if (function == name) return Family::kFree;
  }
  // "operator new(unsigned long)", "operator new[](unsigned long,
  // std::align_val_t)", ...; not "operator new_handler" or the like.
  auto is_operator = [function](std::string_view op) {
    return function.size() > op.size() && function.substr(0, op.size()) == op &&
           (function[op.size()] == '(' || function[op.size()] == '[');
  };
  if (is_operator("operator new")) return Family::kAllocation;
  if (is_operator("operator delete")) return Family::kFree;
  return Family::kNone;
}

}  // namespace

std::string_view FunctionOfKey(std::string_view key) {
  // The object suffix: " [/usr/lib/...]". A function name can end in "]"
  // only inside its argument list, which ends in ")".
  if (!key.empty() && key.back() == ']') {
    const size_t open = key.rfind(" [");
    if (open != std::string_view::npos) key = key.substr(0, open);
  }
  // The file part ends at the first ':' that is not part of "::".
  for (size_t i = 0; i < key.size(); ++i) {
    if (key[i] != ':') continue;
    if (i + 1 < key.size() && key[i + 1] == ':') {
      ++i;
      continue;
    }
    key = key.substr(i + 1);
    break;
  }
  // Recursion levels: "f'2".
  const size_t quote = key.rfind('\'');
  if (quote != std::string_view::npos && quote + 1 < key.size()) {
    bool digits = true;
    for (size_t i = quote + 1; i < key.size(); ++i) digits = digits && absl::ascii_isdigit(key[i]);
    if (digits) key = key.substr(0, quote);
  }
  return key;
}

AllocationCalls CountAllocationCalls(const CallgrindProfile& profile) {
  AllocationCalls calls;
  for (const CallgrindProfile::CallArc& arc : profile.calls) {
    const Family callee = FamilyOf(FunctionOfKey(arc.callee));
    if (callee == Family::kNone || FamilyOf(FunctionOfKey(arc.caller)) != Family::kNone) continue;
    (callee == Family::kAllocation ? calls.allocations : calls.frees) += arc.calls;
  }
  return calls;
}

}  // namespace icount::timer::internal
