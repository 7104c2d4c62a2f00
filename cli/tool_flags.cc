#include "cli/tool_flags.h"

#include <map>
#include <string>
#include <vector>

#include "cli/flags.h"
#include "compare/version.h"
#include "expand/version.h"
#include "fuzzer/version.h"
#include "history/version.h"
#include "timer/version.h"
#include "worker/version.h"

namespace icount {

VersionList AllLibraryVersions() {
  return {{"timer", kTimerVersion},
          {"compare", kCompareVersion},
          {"fuzzer", kFuzzerVersion},
          {"expand", kExpandVersion},
          {"worker", kWorkerVersion},
          {"history", kHistoryVersion}};
}

std::string LibraryVersions() { return DescribeVersions(AllLibraryVersions()); }

std::map<std::string, std::string> LibraryVersionMap() {
  const VersionList versions = AllLibraryVersions();
  return {versions.begin(), versions.end()};
}

std::vector<char*> ParseToolFlags(int argc, char** argv, const char* usage) {
  return ParseFlags(argc, argv, usage, AllLibraryVersions());
}

}  // namespace icount
