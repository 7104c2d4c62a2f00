#ifndef ICOUNT_CLI_TOOL_FLAGS_H_
#define ICOUNT_CLI_TOOL_FLAGS_H_

#include <map>
#include <string>
#include <vector>

// What every icount front end (the tools and the worker binary) does with
// its command line: --help lists the program's own flags and exits 0,
// --version prints the library versions.
//
//   int main(int argc, char** argv) {
//     icount::ParseToolFlags(argc, argv, "Does X.\n\nUsage: tool --flag=V");
//     ...
//   }

namespace icount {

// "timer 0.1.0, compare 0.1.0, ..." for every front end's --version.
std::string LibraryVersions();
// {"timer": "0.1.0", "compare": ..., ...}, as results files record them.
std::map<std::string, std::string> LibraryVersionMap();

// Installs LibraryVersions() as absl's --version text and `usage` as the
// --help text, then parses argv. Returns the positional arguments. --help
// shows the flags defined outside abseil (--helpfull shows all).
std::vector<char*> ParseToolFlags(int argc, char** argv, const char* usage);

}  // namespace icount

#endif  // ICOUNT_CLI_TOOL_FLAGS_H_
