#ifndef ICOUNT_EXPAND_GENERATE_H_
#define ICOUNT_EXPAND_GENERATE_H_

// The build-time suite generator behind icount_suite() (expand/suite.bzl).
// A generator binary links a suite's definitions and calls
//
//   int main(int argc, char** argv) {
//     return icount::expand::GeneratorMain(argc, argv, "standard_suite",
//                                          [] { return MySuite(); });
//   }
//
// which materialises the suite and writes, into the paths given on its
// command line,
//   * N C++ translation units, every C++ case compiled as a function with
//     the snippet ABI and registered with the worker (worker/compiled_cases.h),
//     with #line directives naming the definition's file, line and label so
//     compile errors point at the benchmark, each case inside a guard that
//     leaves it out when its macro is defined (expand/case_sources.h);
//   * the suite manifest (SuiteManifestProto, binary);
//   * a directory of TorchScript artifacts (<key>.pt), scripted with the
//     embedded python3-torch at build time.

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "expand/definition.h"
#include "expand/materialize.h"
#include "expand/suite.pb.h"

namespace icount::expand {

// The manifest of materialised `cases` (compiled_case set for C++ cases).
SuiteManifestProto MakeManifest(const std::string& suite_name,
                                const std::vector<MaterializedBenchmark>& cases);

// The translation units: C++ cases dealt round-robin over `shards` files.
std::vector<std::string> GenerateTranslationUnits(const std::vector<MaterializedBenchmark>& cases,
                                                  int shards);

// torch.jit.script()s every artifact's model and saves <directory>/<key>.pt.
absl::Status WriteTorchScriptArtifacts(const std::vector<TorchScriptArtifact>& artifacts,
                                       const std::string& directory);

// Usage: generator --manifest=M --artifacts=DIR --tu=A.cc --tu=B.cc ...
int GeneratorMain(int argc, char** argv, const std::string& suite_name,
                  const std::function<BenchmarkTree()>& suite);

}  // namespace icount::expand

#endif  // ICOUNT_EXPAND_GENERATE_H_
