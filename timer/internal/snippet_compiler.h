#ifndef ICOUNT_TIMER_INTERNAL_SNIPPET_COMPILER_H_
#define ICOUNT_TIMER_INTERNAL_SNIPPET_COMPILER_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace icount::timer::internal {

// How C++ snippets are compiled at run time, and the precompiled prelude
// that makes it fast.
//
// Every snippet starts with `#include <torch/script.h>`, whose parsing is
// most of a snippet's compile time (~17 s of ~18 s on a 2-CPU EPYC). The
// build precompiles it once (the genrule //timer/internal:snippet_prelude
// runs PrecompileSnippetPrelude with the very flags a snippet gets), and
// CompiledCppSnippet force-includes it, so a snippet compiles in ~5 s:
//
//   std::optional<std::string> prelude = FindSnippetPrelude();  // in runfiles
//   RunCommand(SnippetCompilerCommand("s.cc", "s.so", prelude));
//
// The shared object is byte for byte the one compiled without the prelude
// (the same tokens reach the compiler; //timer/internal:snippet_compiler_test
// checks it), so counts do not depend on it. A prelude the compiler cannot
// use (another compiler or version) is parsed as text: slower, same result.

// The compiler (ICOUNT_CXX, or c++) and the flags that decide what a snippet
// compiles to: the first element is the compiler.
std::vector<std::string> SnippetCompileFlags();

// The command that compiles `source_path` into the shared object
// `output_path`, force-including `prelude` (a header beside its .gch) first
// when given.
std::vector<std::string> SnippetCompilerCommand(const std::string& source_path,
                                                const std::string& output_path,
                                                const std::optional<std::string>& prelude);

// The prelude's place in a binary's runfiles.
inline constexpr char kSnippetPreludeRunfile[] =
    "icount/timer/internal/snippet_prelude/torch_script.h";

// Writes the prelude header to `header_path` and compiles it into
// `header_path`.gch with SnippetCompileFlags(). The header records the
// compiler, the flags and the LibTorch it was precompiled for.
absl::Status PrecompileSnippetPrelude(const std::string& header_path);

// The first prelude in this binary's runfiles (base::FindRunfiles) whose
// .gch is there and that was precompiled for this binary's compiler, flags
// and LibTorch; runfiles reached through $RUNFILES_DIR may be another
// binary's, built for another LibTorch.
std::optional<std::string> FindSnippetPrelude();

}  // namespace icount::timer::internal

#endif  // ICOUNT_TIMER_INTERNAL_SNIPPET_COMPILER_H_
