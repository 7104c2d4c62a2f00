#ifndef ICOUNT_TOOLS_VERSIONS_H_
#define ICOUNT_TOOLS_VERSIONS_H_

#include <map>
#include <string>
#include <vector>

namespace icount {

// "timer 0.1.0, compare 0.1.0, ..." for every front end's --version.
std::string LibraryVersions();
// {"timer": "0.1.0", "compare": ..., ...}, as results files record them.
std::map<std::string, std::string> LibraryVersionMap();

// Installs LibraryVersions() as absl's --version text and `usage` as the
// --help text, then parses argv. Returns the positional arguments.
std::vector<char*> ParseToolFlags(int argc, char** argv, const char* usage);

}  // namespace icount

#endif  // ICOUNT_TOOLS_VERSIONS_H_
