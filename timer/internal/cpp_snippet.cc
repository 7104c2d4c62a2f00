#include "timer/internal/cpp_snippet.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <torch/version.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "timer/internal/kernel.h"
#include "timer/internal/subprocess.h"
#include "timer/measurement_io.h"

namespace icount::timer_internal {
namespace {

// The compiler and flags used for snippets. -O2 matches how LibTorch users
// build; no -g: callgrind attributes counts by symbol, and debug info would
// double compile time (and need -gdwarf-4 for valgrind 3.19).
std::vector<std::string> CompilerCommand(const std::string& source_path,
                                         const std::string& output_path) {
  const char* cxx = std::getenv("ICOUNT_CXX");
  return {cxx != nullptr && *cxx != '\0' ? cxx : "c++",
          "-std=c++17",
          "-O2",
          "-fPIC",
          "-shared",
          "-w",  // the user's snippet is not ours to lint
          "-isystem",
          "/usr/include/torch/csrc/api/include",
          "-o",
          output_path,
          source_path,
          "-ltorch",
          "-ltorch_cpu",
          "-lc10"};
}

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

absl::Status MakeDirectories(const std::string& path) {
  std::string prefix;
  for (absl::string_view part : absl::StrSplit(path, '/', absl::SkipEmpty())) {
    absl::StrAppend(&prefix, "/", part);
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot create the snippet cache ", prefix, ": ", std::strerror(errno)));
    }
  }
  return absl::OkStatus();
}

bool FileExists(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

// Keeps the compiler's lines about the user's code (located in "stmt",
// "setup" or "global_setup", thanks to #line) and the source excerpts that
// follow them; drops the harness' own noise. Falls back to everything.
std::string SnippetCompilerMessages(const std::string& output) {
  std::vector<std::string> kept;
  bool keeping = false;
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    const bool located = absl::StartsWith(line, "stmt:") || absl::StartsWith(line, "setup:") ||
                         absl::StartsWith(line, "global_setup:");
    if (located) {
      keeping = true;
    } else if (!absl::StartsWith(line, " ")) {
      keeping = false;
    }
    if (keeping) kept.emplace_back(line);
  }
  return kept.empty() ? output : absl::StrJoin(kept, "\n");
}

}  // namespace

std::string CacheDirectory() {
  if (const char* dir = std::getenv("ICOUNT_CACHE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return absl::StrCat(xdg, "/icount");
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return absl::StrCat(home, "/.cache/icount");
  }
  // Inside `bazel test` HOME is unset: the test's own directory, so tests
  // neither share a cache nor leave one behind.
  if (const char* test_tmpdir = std::getenv("TEST_TMPDIR");
      test_tmpdir != nullptr && *test_tmpdir != '\0') {
    return absl::StrCat(test_tmpdir, "/icount-cache");
  }
  return absl::StrCat("/tmp/icount-cache-", getuid());
}

std::string BlockControlDeclaration() {
  return "extern \"C\" {\n"
         "typedef struct IcountBlockControl {\n"
         "  void* context;\n"
         "  int64_t (*next_block)(void* context);\n"
         "  void (*begin_block)(void* context);\n"
         "  void (*end_block)(void* context);\n"
         "} IcountBlockControl;\n"
         "}\n";
}

std::string SnippetFunctionSource(const std::string& function_name, const std::string& setup,
                                  const std::string& stmt, const std::string& setup_line,
                                  const std::string& stmt_line) {
  return absl::StrCat(
      "int ", function_name,
      "(const IcountBlockControl* control, char* error, size_t size) {\n"
      "  try {\n",
      setup_line, "\n", setup,
      "\n#line 1 \"<icount harness>\"\n"
      "    auto icount_stmt = [&]() __attribute__((always_inline)) {\n",
      stmt_line, "\n", stmt,
      "\n#line 1 \"<icount harness>\"\n"
      "    };\n"
      "    icount_stmt();  // warm-up run, as torch.utils.benchmark's C++ template does\n"
      "    for (int64_t number; (number = control->next_block(control->context)) >= 0;) {\n"
      "      control->begin_block(control->context);\n"
      "      for (int64_t i = 0; i < number; ++i) {\n"
      "        icount_stmt();\n"
      "        asm volatile(\"\" ::: \"memory\");  // keep each run inside the block\n"
      "      }\n"
      "      control->end_block(control->context);\n"
      "    }\n"
      "    return 0;\n"
      "  } catch (const std::exception& e) {\n"
      "    std::strncpy(error, e.what(), size - 1);\n"
      "  } catch (...) {\n"
      "    std::strncpy(error, \"unknown C++ exception\", size - 1);\n"
      "  }\n"
      "  error[size - 1] = '\\0';\n"
      "  return 1;\n"
      "}\n");
}

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
  const std::string directory = absl::StrCat(CacheDirectory(), "/snippets");
  if (absl::Status status = MakeDirectories(directory); !status.ok()) return status;
  const std::string key = ContentHash(
      {text, absl::StrJoin(CompilerCommand("", ""), " "), TORCH_VERSION,
       absl::StrCat(kBlockControlAbiVersion)});
  const std::string source_path = absl::StrCat(directory, "/", key, ".cc");
  const std::string object_path = absl::StrCat(directory, "/", key, ".so");

  std::shared_ptr<CompiledCppSnippet> snippet(new CompiledCppSnippet());
  snippet->path_ = object_path;
  absl::StatusOr<std::string> cached_source =
      FileExists(object_path) ? ReadFileToString(source_path) : absl::NotFoundError("");
  snippet->from_cache_ = cached_source.ok() && *cached_source == text;
  if (!snippet->from_cache_) {
    if (absl::Status status = WriteFileAtomically(source_path, text); !status.ok()) return status;
    // Compile to a private name, then rename: concurrent compiles of the
    // same snippet never load a half-written object.
    const std::string temporary = absl::StrCat(object_path, ".tmp.", getpid());
    absl::StatusOr<CommandResult> result = RunCommand(CompilerCommand(source_path, temporary));
    if (!result.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot run the C++ compiler for a snippet (install g++, or set ICOUNT_CXX): ",
          result.status().message()));
    }
    if (result->exit_code != 0 || result->signal != 0) {
      std::remove(temporary.c_str());
      return absl::InvalidArgumentError(
          absl::StrCat("C++ snippet does not compile (", DescribeExit(*result), "):\n",
                       SnippetCompilerMessages(result->output)));
    }
    if (std::rename(temporary.c_str(), object_path.c_str()) != 0) {
      return absl::InternalError(
          absl::StrCat("cannot move ", temporary, " into the snippet cache: ", std::strerror(errno)));
    }
  }
  snippet->handle_ = dlopen(object_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (snippet->handle_ == nullptr) {
    return absl::InternalError(absl::StrCat("cannot load compiled snippet ", object_path, ": ",
                                            dlerror(), " (delete it to force a rebuild)"));
  }
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

}  // namespace icount::timer_internal
