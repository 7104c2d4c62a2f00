#include "cli/tool_flags.h"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/flags/internal/program_name.h"
#include "absl/flags/internal/usage.h"
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

std::map<std::string, std::string> LibraryVersionMap() {
  return {{"timer", kTimerVersion},
          {"compare", kCompareVersion},
          {"fuzzer", kFuzzerVersion},
          {"expand", kExpandVersion},
          {"worker", kWorkerVersion}};
}

std::vector<char*> ParseToolFlags(int argc, char** argv, const char* usage) {
  absl::FlagsUsageConfig config;
  config.version_string = [] { return LibraryVersions() + "\n"; };
  // Only our own flags in --help; --helpfull shows abseil's too.
  config.contains_help_flags = [](absl::string_view path) {
    return !absl::StrContains(path, "absl/");
  };
  absl::SetFlagsUsageConfig(config);
  absl::SetProgramUsageMessage(usage);
  // Parsing sets the program name too, but --help is answered before that.
  absl::flags_internal::SetProgramInvocationName(argv[0]);
  // abseil exits 1 after --help; asking for help is a success here.
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-help") == 0) {
      absl::flags_internal::SetFlagsHelpMode(absl::flags_internal::HelpMode::kImportant);
      absl::flags_internal::HandleUsageFlags(std::cout, absl::ProgramUsageMessage());
      std::exit(0);
    }
  }
  return absl::ParseCommandLine(argc, argv);
}

}  // namespace icount
