#ifndef ICOUNT_WORKER_COMPILED_CASES_H_
#define ICOUNT_WORKER_COMPILED_CASES_H_

// C++ benchmark cases compiled into a worker binary at build time. Each
// translation unit the suite generator writes (expand/generate.cc) defines
// a function per case with the snippet ABI (SnippetFunctionSource in
// timer/snippet_abi.h) and registers it under the case's key:
//
//   namespace {
//   // Pointwise / Math / add / Case:  0
//   int icount_case_17(const IcountBlockControl* control, char* error, size_t size) {...}
//   const icount::worker::CompiledCaseRegistrar icount_registrar_17(
//       "Pointwise/Math/add/Case:  0|Eager|Forward|C++|1", &icount_case_17);
//   }  // namespace
//
// and a work order names the key in `compiled_case`.
//
// The generator spells what this header declares with the names below, so
// that its dependency on the worker is one the build sees.

#include <string>

#include "timer/snippet_abi.h"

namespace icount::worker {

// This header, as generated code includes it.
inline constexpr char kCompiledCasesHeader[] = "worker/compiled_cases.h";
// The registrar's class and the artifact path's call, fully qualified.
inline constexpr char kCompiledCaseRegistrar[] = "icount::worker::CompiledCaseRegistrar";
inline constexpr char kArtifactPathCall[] = "icount::worker::icount_artifact_path()";

// Null when no case has that key.
IcountSnippetEntry FindCompiledCase(const std::string& key);
int NumCompiledCases();

class CompiledCaseRegistrar {
 public:
  CompiledCaseRegistrar(const char* key, IcountSnippetEntry entry);
};

// The TorchScript artifact of the order being run, for generated C++ setup
// code (`const std::string ICOUNT_ARTIFACT_PATH = icount_artifact_path();`).
extern "C" const char* icount_artifact_path();
void SetCurrentArtifactPath(const std::string& path);

}  // namespace icount::worker

#endif  // ICOUNT_WORKER_COMPILED_CASES_H_
