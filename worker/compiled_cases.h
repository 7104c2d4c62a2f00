#ifndef ICOUNT_WORKER_COMPILED_CASES_H_
#define ICOUNT_WORKER_COMPILED_CASES_H_

// C++ benchmark cases compiled into a worker binary at build time. The
// generated translation units (expand's suite generator) register each case
// under its key:
//
//   extern "C" int icount_case_17(const IcountBlockControl*, char*, size_t);
//   static icount::CompiledCaseRegistrar registrar_17("Pointwise/add/C++/...",
//                                                     &icount_case_17);
//
// and a work order names the key in `compiled_case`.

#include <string>

#include "timer/snippet_abi.h"

namespace icount {

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

}  // namespace icount

#endif  // ICOUNT_WORKER_COMPILED_CASES_H_
