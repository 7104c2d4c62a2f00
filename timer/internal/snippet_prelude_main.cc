// Precompiles the prelude of run-time C++ snippets for the genrule
// //timer/internal:snippet_prelude:
//
//   snippet_prelude_main OUT/torch_script.h   # writes it and OUT/torch_script.h.gch
#include <cstdio>
#include <string>

#include "timer/internal/snippet_compiler.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s HEADER (writes HEADER and HEADER.gch)\n", argv[0]);
    return 2;
  }
  absl::Status status = icount::timer::internal::PrecompileSnippetPrelude(argv[1]);
  if (!status.ok()) {
    std::fprintf(stderr, "snippet_prelude_main: %s\n", std::string(status.message()).c_str());
    return 1;
  }
  return 0;
}
