#ifndef ICOUNT_TIMER_SNIPPET_ABI_H_
#define ICOUNT_TIMER_SNIPPET_ABI_H_

// The C interface between the Timer and a measured statement, whatever its
// kind (C++ callable, C++ string compiled into a shared object, Python
// string). The statement's harness runs its setup once, then asks for blocks:
//
//   setup
//   while ((number = next_block(context)) >= 0) {
//     begin_block(context);             // e.g. read the clock, or start
//     for (i = 0; i < number; ++i) stmt  //      callgrind collection
//     end_block(context);
//   }
//
// Wall time uses one block per harness run (setup reruns per block, as in
// torch.utils.benchmark); callgrind uses one block per repeat. The struct is
// plain C so that run-time compiled snippets can declare it themselves; its
// layout is part of the snippet cache key (kBlockControlAbiVersion).
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct IcountBlockControl {
  void* context;
  // The number of runs in the next block, or a negative value to stop.
  int64_t (*next_block)(void* context);
  void (*begin_block)(void* context);
  void (*end_block)(void* context);
} IcountBlockControl;

// A snippet's entry point: returns 0, or 1 with a NUL-terminated message in
// `error` when the statement or its setup threw.
typedef int (*IcountSnippetEntry)(const IcountBlockControl* control, char* error,
                                  size_t error_size);

#ifdef __cplusplus
}  // extern "C"
#endif

#ifdef __cplusplus
#include <string>

namespace icount::timer {
inline constexpr int kBlockControlAbiVersion = 1;
inline constexpr char kSnippetEntrySymbol[] = "icount_snippet_entry";
// A function with the snippet ABI that runs `setup` once, the statement
// once to warm up, then the blocks it is asked for. The statement is pasted
// once, into an always-inlined lambda, so it compiles (and reports errors)
// once and still costs no call per run. The `*_line` arguments are #line
// directives placing compiler messages in the user's own coordinates. Needs
// <cstddef>, <cstdint>, <cstring>, <exception> and the IcountBlockControl
// declaration before it. The suite generator (//expand) and the Timer's
// run-time snippet compiler both write C++ cases with it:
//
//   SnippetFunctionSource("case_0", "auto x = torch::ones({4});", "x.sum();",
//                         "#line 3 \"defs.cc\"", "#line 4 \"defs.cc\"")
std::string SnippetFunctionSource(const std::string& function_name, const std::string& setup,
                                  const std::string& stmt, const std::string& setup_line,
                                  const std::string& stmt_line);

// The C declaration of IcountBlockControl, for generated code.
std::string BlockControlDeclaration();

// The identifier a setup reads its TorchScript artifact's path from
// (expand/materialize.h describes the convention).
inline constexpr char kArtifactPathName[] = "ICOUNT_ARTIFACT_PATH";

// The setup line that defines kArtifactPathName as `value`, an expression
// of the setup's language, for everything that prepares a TorchScript
// case's setup (the suite generator, the worker):
//
//   ArtifactPathDefinition(/*cpp=*/true, "\"/a/m.pt\"")
//       == "const std::string ICOUNT_ARTIFACT_PATH = \"/a/m.pt\";\n"
//   ArtifactPathDefinition(/*cpp=*/false, "r'''/a/m.pt'''")
//       == "ICOUNT_ARTIFACT_PATH = r'''/a/m.pt'''\n"
std::string ArtifactPathDefinition(bool cpp, const std::string& value);

// Python code to run before the first `import torch`, so that it loads the
// torch package of the LibTorch this binary is built against
// (third_party/libtorch/libtorch_install.h) and never a second LibTorch:
// "" for Debian's python3-torch, else a sys.path insertion such as
//
//   import sys
//   sys.path.insert(0, r'/venv/lib/python3.11/site-packages')
std::string TorchImportPrelude();

}  // namespace icount::timer
#endif

#endif  // ICOUNT_TIMER_SNIPPET_ABI_H_
