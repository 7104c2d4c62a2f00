// What a call tree costs the worker per case: parsing a dump (done anyway
// for the counts) and unfolding its call graph (BuildCallTree), on real
// dumps of the suite's add case (C++ and Python; timer/testdata).
//
//   bazel run //timer/internal:call_tree_benchmark
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/runfiles.h"
#include "timer/internal/call_tree_builder.h"
#include "timer/internal/callgrind_parser.h"

namespace icount::timer::internal {
namespace {

double Microseconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

int Main() {
  constexpr int kRounds = 200;
  for (const char* name : {"add_cpp.callgrind.out", "add_python.callgrind.out"}) {
    absl::StatusOr<std::string> path =
        base::FindRunfile(absl::StrCat("icount/timer/testdata/", name));
    if (!path.ok()) {
      std::fprintf(stderr, "%s\n", std::string(path.status().message()).c_str());
      return 1;
    }
    auto start = std::chrono::steady_clock::now();
    absl::StatusOr<CallgrindProfile> profile;
    for (int i = 0; i < kRounds; ++i) profile = ParseCallgrindFile(*path);
    const double parse = Microseconds(std::chrono::steady_clock::now() - start) / kRounds;
    if (!profile.ok()) {
      std::fprintf(stderr, "%s\n", std::string(profile.status().message()).c_str());
      return 1;
    }
    start = std::chrono::steady_clock::now();
    CallTree tree;
    for (int i = 0; i < kRounds; ++i) tree = BuildCallTree(*profile);
    const double build = Microseconds(std::chrono::steady_clock::now() - start) / kRounds;
    const std::string proto = CallTreeToProto(tree).SerializeAsString();
    std::printf(
        "%-26s %4zu functions %5zu call arcs: parse %7.0f us, call tree %6.0f us "
        "(%zu nodes, %zu functions, %zu bytes as proto)\n",
        name, profile->exclusive.size(), profile->calls.size(), parse, build, tree.nodes.size(),
        tree.functions.size(), proto.size());
  }
  return 0;
}

}  // namespace
}  // namespace icount::timer::internal

int main() { return icount::timer::internal::Main(); }
