#include "timer/internal/cpp_snippet.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <torch/version.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/files.h"
#include "base/subprocess.h"
#include "third_party/libtorch/libtorch_install.h"
#include "timer/internal/kernel.h"
#include "timer/internal/snippet_compiler.h"
#include "timer/measurement_io.h"

namespace icount::timer::internal {
namespace {

// 128-bit FNV-1a over the inputs that determine the shared object. Not
// cryptographic; the cached source is compared byte for byte on a hit.
std::string ContentHash(const std::vector<std::string>& parts) {
  uint64_t a = 0xcbf29ce484222325ULL;
  uint64_t b = 0x84222325cbf29ce4ULL;
  for (const std::string& part : parts) {
    for (unsigned char c : part) {
      a = (a ^ c) * 0x100000001b3ULL;
      b = (b ^ c) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL;
    }
    a = (a ^ 0xff) * 0x100000001b3ULL;  // separator, so ("ab","c") != ("a","bc")
    b = (b ^ 0xfe) * 0x100000001b3ULL;
  }
  char hex[33];
  std::snprintf(hex, sizeof(hex), "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return hex;
}

bool FileExists(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

// Keeps the compiler's lines about the user's code (located in "stmt",
// "setup" or "global_setup", thanks to #line), its errors wherever they are
// located (in a header the snippet's call instantiated: the line in "stmt"
// then only says "required from here"), and the source excerpts that follow
// them; drops the harness' own noise. Falls back to everything.
std::string SnippetCompilerMessages(const std::string& output) {
  std::vector<std::string> kept;
  bool keeping = false;
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    const bool located = absl::StartsWith(line, "stmt:") || absl::StartsWith(line, "setup:") ||
                         absl::StartsWith(line, "global_setup:") ||
                         absl::StrContains(line, ": error: ");
    if (located) {
      keeping = true;
    } else if (!absl::StartsWith(line, " ")) {
      keeping = false;
    }
    if (keeping) kept.emplace_back(line);
  }
  return kept.empty() ? output : absl::StrJoin(kept, "\n");
}

// The error for a compiled snippet that dlopen refused (`why`): a symbol
// nothing defines is the snippet's mistake, which a rebuild repeats, so its
// object and source leave the cache.
absl::Status LoadError(const std::string& why, const std::string& object_path,
                       const std::string& source_path) {
  constexpr char kUndefined[] = "undefined symbol: ";
  const size_t at = why.find(kUndefined);
  if (at == std::string::npos) {
    return absl::InternalError(absl::StrCat("cannot load compiled snippet ", object_path, ": ", why,
                                            " (delete it to force a rebuild)"));
  }
  std::remove(object_path.c_str());
  std::remove(source_path.c_str());
  const std::string symbol = why.substr(at + std::strlen(kUndefined));
  int demangled_status = -1;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &demangled_status), std::free);
  return absl::InvalidArgumentError(absl::StrCat(
      "C++ snippet calls ", demangled_status == 0 ? demangled.get() : symbol.c_str(),
      demangled_status == 0 ? absl::StrCat(" (", symbol, ")") : "",
      ", which nothing defines: a snippet is linked on its own, against LibTorch and the C++ "
      "standard library; define what else it calls in global_setup (a function of the "
      "program that times it is not seen), or time that code with Timer::ForCallable"));
}

// Everything that determines the shared object of the snippet whose
// generated source is `text`: its name in the cache is their hash.
std::vector<std::string> SnippetKeyParts(const std::string& text) {
  // The prelude changes how fast the snippet compiles, not what it compiles
  // to: the key leaves it out.
  std::vector<std::string> key_parts = {
      text, absl::StrJoin(SnippetCompilerCommand("", "", std::nullopt), " "), TORCH_VERSION,
      absl::StrCat(kBlockControlAbiVersion)};
  // A LibTorch other than Debian's may change in place (a developer's
  // build): its headers' fingerprint keeps stale objects out.
  if (*libtorch_install::kFingerprint != '\0') key_parts.push_back(libtorch_install::kFingerprint);
  return key_parts;
}

// Writes `text` to `source_path` and compiles it to `object_path`.
absl::Status CompileIntoCache(const std::string& text, const std::string& source_path,
                              const std::string& object_path) {
  if (absl::Status status = base::WriteFileAtomically(source_path, text); !status.ok())
    return status;
  // Compile to a private name, then rename: concurrent compiles of the
  // same snippet never load a half-written object.
  const std::string temporary = absl::StrCat(object_path, ".tmp.", getpid());
  absl::StatusOr<base::CommandResult> result =
      base::RunCommand(SnippetCompilerCommand(source_path, temporary, FindSnippetPrelude()));
  if (!result.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot run the C++ compiler for a snippet (install g++, or set ICOUNT_CXX): ",
        result.status().message()));
  }
  if (result->exit_code != 0 || result->signal != 0) {
    std::remove(temporary.c_str());
    return absl::InvalidArgumentError(absl::StrCat("C++ snippet does not compile (",
                                                   base::DescribeExit(*result), "):\n",
                                                   SnippetCompilerMessages(result->output)));
  }
  if (std::rename(temporary.c_str(), object_path.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("cannot move ", temporary,
                                            " into the snippet cache: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace

std::string GenerateCppSnippetSource(const CompiledCppSnippet::Source& source) {
  // #line directives make the compiler report the user's own line numbers,
  // under the names "global_setup", "setup" and "stmt".
  return absl::StrCat(
      "// Generated by icount's Timer. Do not edit.\n"
      "#include <torch/script.h>\n"
      "#include <cstddef>\n#include <cstdint>\n#include <cstring>\n#include <exception>\n",
      BlockControlDeclaration(), "#line 1 \"global_setup\"\n", source.global_setup,
      "\n#line 1 \"<icount harness>\"\n"
      "extern \"C\" __attribute__((visibility(\"default\")))\n",
      SnippetFunctionSource(kSnippetEntrySymbol, source.setup, source.stmt, "#line 1 \"setup\"",
                            "#line 1 \"stmt\""));
}

absl::StatusOr<std::shared_ptr<CompiledCppSnippet>> CompiledCppSnippet::Compile(
    const Source& source) {
  const std::string text = GenerateCppSnippetSource(source);
  const std::string directory = absl::StrCat(base::CacheDirectory(), "/snippets");
  if (absl::Status status = base::MakeDirectories(directory); !status.ok()) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create the snippet cache: ", status.message()));
  }
  const std::vector<std::string> key_parts = SnippetKeyParts(text);
  const std::string key = ContentHash(key_parts);
  const std::string source_path = absl::StrCat(directory, "/", key, ".cc");
  const std::string object_path = absl::StrCat(directory, "/", key, ".so");

  std::shared_ptr<CompiledCppSnippet> snippet(new CompiledCppSnippet());
  snippet->path_ = object_path;
  absl::StatusOr<std::string> cached_source =
      FileExists(object_path) ? base::ReadFileToString(source_path) : absl::NotFoundError("");
  snippet->from_cache_ = cached_source.ok() && *cached_source == text;
  if (!snippet->from_cache_) {
    if (absl::Status status = CompileIntoCache(text, source_path, object_path); !status.ok()) {
      return status;
    }
  }
  snippet->handle_ = dlopen(object_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (snippet->handle_ == nullptr) return LoadError(dlerror(), object_path, source_path);
  snippet->entry_ =
      reinterpret_cast<IcountSnippetEntry>(dlsym(snippet->handle_, kSnippetEntrySymbol));
  if (snippet->entry_ == nullptr) {
    return absl::InternalError(
        absl::StrCat(object_path, " has no ", kSnippetEntrySymbol, " (delete it to rebuild)"));
  }
  return snippet;
}

absl::Status CompiledCppSnippet::Run(const IcountBlockControl& control) const {
  return RunSnippetEntry(entry_, control);
}

CompiledCppSnippet::~CompiledCppSnippet() {
  // Never dlclose: LibTorch registrations or static destructors inside the
  // snippet may still be referenced; the mapping is cheap to keep.
}

}  // namespace icount::timer::internal
