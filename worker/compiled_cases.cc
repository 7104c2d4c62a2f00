#include "worker/compiled_cases.h"

#include <map>
#include <string>

namespace icount::worker {
namespace {

// Function-local statics: registrars run during static initialisation, in
// any order across translation units.
std::map<std::string, IcountSnippetEntry>& Registry() {
  static auto* registry = new std::map<std::string, IcountSnippetEntry>();
  return *registry;
}

std::string& CurrentArtifactPath() {
  static auto* path = new std::string();
  return *path;
}

}  // namespace

IcountSnippetEntry FindCompiledCase(const std::string& key) {
  auto it = Registry().find(key);
  return it == Registry().end() ? nullptr : it->second;
}

int NumCompiledCases() { return static_cast<int>(Registry().size()); }

CompiledCaseRegistrar::CompiledCaseRegistrar(const char* key, IcountSnippetEntry entry) {
  Registry()[key] = entry;
}

extern "C" const char* icount_artifact_path() { return CurrentArtifactPath().c_str(); }

void SetCurrentArtifactPath(const std::string& path) { CurrentArtifactPath() = path; }

}  // namespace icount::worker
