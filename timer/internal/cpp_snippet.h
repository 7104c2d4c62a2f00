#ifndef ICOUNT_TIMER_INTERNAL_CPP_SNIPPET_H_
#define ICOUNT_TIMER_INTERNAL_CPP_SNIPPET_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "timer/snippet_abi.h"

namespace icount::timer::internal {

// A C++ statement with setup and global_setup, compiled at run time by the
// system compiler into a shared object against LibTorch's headers and loaded
// into this process.
//
// The shared object is cached on disk under base::CacheDirectory()
// "/snippets", keyed by a
// hash of the generated source, the compiler command and LibTorch's
// version, so a second snippet with the same code loads without compiling.
// Compile errors come back as InvalidArgument with the compiler's messages,
// whose locations name the snippet's parts ("stmt:2:7: error: ...").
class CompiledCppSnippet {
 public:
  struct Source {
    std::string stmt;
    std::string setup;
    std::string global_setup;
  };

  static absl::StatusOr<std::shared_ptr<CompiledCppSnippet>> Compile(const Source& source);

  // Runs the snippet's harness (see timer/snippet_abi.h). Exceptions thrown by
  // the statement or its setup come back as an error Status.
  absl::Status Run(const IcountBlockControl& control) const;

  // Whether Compile() found the shared object in the cache.
  bool from_cache() const { return from_cache_; }
  const std::string& shared_object_path() const { return path_; }

  ~CompiledCppSnippet();

 private:
  CompiledCppSnippet() = default;
  void* handle_ = nullptr;
  IcountSnippetEntry entry_ = nullptr;
  std::string path_;
  bool from_cache_ = false;
};

// The generated translation unit, for tests and for error context.
std::string GenerateCppSnippetSource(const CompiledCppSnippet::Source& source);

}  // namespace icount::timer::internal

#endif  // ICOUNT_TIMER_INTERNAL_CPP_SNIPPET_H_
