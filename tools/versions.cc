#include "tools/versions.h"

#include <string>
#include <vector>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compare/version.h"
#include "expand/version.h"
#include "fuzzer/version.h"
#include "timer/version.h"
#include "worker/version.h"

namespace icount {

std::string LibraryVersions() {
  return absl::StrCat("icount libraries: timer ", kTimerVersion, ", compare ", kCompareVersion,
                      ", fuzzer ", kFuzzerVersion, ", expand ", kExpandVersion, ", worker ",
                      kWorkerVersion);
}

std::vector<char*> ParseToolFlags(int argc, char** argv, const char* usage) {
  absl::FlagsUsageConfig config;
  config.version_string = [] { return LibraryVersions() + "\n"; };
  // Only our own flags in --help; --helpfull shows abseil's too.
  config.contains_help_flags = [](absl::string_view path) {
    return absl::StrContains(path, "tools/");
  };
  absl::SetFlagsUsageConfig(config);
  absl::SetProgramUsageMessage(usage);
  return absl::ParseCommandLine(argc, argv);
}

}  // namespace icount
