#include "timer/internal/allocation_calls.h"

#include <string_view>


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

AllocationCalls CountAllocationCalls(const CallgrindProfile& profile) {
  AllocationCalls calls;
  for (const CallgrindProfile::CallArc& arc : profile.calls) {
    const Family callee = FamilyOf(arc.callee.function());
    if (callee == Family::kNone || FamilyOf(arc.caller.function()) != Family::kNone) continue;
    (callee == Family::kAllocation ? calls.allocations : calls.frees) += arc.calls;
  }
  return calls;
}

}  // namespace icount::timer::internal
