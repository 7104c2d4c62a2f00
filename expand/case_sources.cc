#include "expand/case_sources.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/fnv.h"
#include "expand/case_modes.h"
#include "expand/materialize.h"
#include "timer/task_spec.h"

namespace icount::expand {
namespace {

std::string ModesText(const SuiteCaseProto& c) {
  const int threads = c.task_spec().has_num_threads() ? c.task_spec().num_threads() : 1;
  return absl::StrFormat("%s %s %s%s", timer::LanguageName(timer::Language::kCpp),
                         RuntimeName(c.runtime()), AutogradName(c.autograd()),
                         threads > 1 ? absl::StrCat(", ", threads, " threads") : "");
}

std::string DefinitionFile(const SuiteCaseProto& c) {
  return c.definition_file().empty() ? "<definitions>" : c.definition_file();
}

// The keys of the cases whose code a compiler line starts naming
// ("NAME:12:3: error: ...", "NAME: In function ..."); null when none.
const std::vector<std::string>* NamedCases(
    const std::string& line, const std::map<std::string, std::vector<std::string>>& cases) {
  // A name holds colons of its own ("Case:  0"): try each.
  for (size_t colon = line.find(':'); colon != std::string::npos;
       colon = line.find(':', colon + 1)) {
    auto it = cases.find(line.substr(0, colon));
    if (it != cases.end()) return &it->second;
  }
  return nullptr;
}

}  // namespace

std::string CaseSourceName(const SuiteCaseProto& c) {
  return absl::StrCat(DefinitionFile(c), " (", LabelText({c.label().begin(), c.label().end()}),
                      ", ", ModesText(c), ")");
}

std::string GlobalSetupSourceName(const SuiteCaseProto& c) {
  return absl::StrCat(DefinitionFile(c), " (", LabelText({c.label().begin(), c.label().end()}),
                      ", ", ModesText(c), ", global setup)");
}

std::string LeaveOutMacro(const std::string& key) {
  base::Fnv1a64 hash;
  hash.Add(key);
  return "ICOUNT_LEAVE_OUT_" + hash.Hex();
}

std::map<std::string, std::string> CaseCompileErrors(const SuiteManifestProto& manifest,
                                                     const std::vector<std::string>& lines) {
  std::map<std::string, std::vector<std::string>> cases;  // by source name
  std::map<std::string, std::vector<std::string>> sharing;  // by global setup
  for (const SuiteCaseProto& c : manifest.cases()) {
    if (c.compiled_case().empty()) continue;
    cases[CaseSourceName(c)].push_back(c.key());
    if (!c.task_spec().global_setup().empty()) {
      sharing[c.task_spec().global_setup()].push_back(c.key());
    }
  }
  for (const SuiteCaseProto& c : manifest.cases()) {
    if (c.compiled_case().empty() || c.task_spec().global_setup().empty()) continue;
    cases[GlobalSetupSourceName(c)] = sharing[c.task_spec().global_setup()];
  }
  std::map<std::string, std::string> errors;
  const std::vector<std::string>* context = nullptr;
  for (const std::string& line : lines) {
    if (const std::vector<std::string>* named = NamedCases(line, cases); named != nullptr) {
      context = named;
    } else if (absl::StartsWith(line, "<icount generated>") || absl::StartsWith(line, "ERROR: ") ||
               absl::StartsWith(line, "INFO: ")) {
      // Generated glue, or Bazel's next action: no case's code.
      context = nullptr;
    }
    if (context == nullptr) continue;
    if (absl::StrContains(line, ": error: ") || absl::StrContains(line, ": fatal error: ")) {
      for (const std::string& key : *context) errors.emplace(key, line);
    }
  }
  return errors;
}

}  // namespace icount::expand
