// //tools:main: the main job. Until the suite runner lands (worker issue),
// it reports what this build contains and measures nothing; it says so
// rather than printing made-up results.
#include <cstdio>

#include "tools/versions.h"

int main(int argc, char** argv) {
  icount::ParseToolFlags(argc, argv,
                         "Runs the icount standard suite.\n\n"
                         "Usage: bazel run //tools:main -- [flags]");
  std::printf("%s\n", icount::LibraryVersions().c_str());
  std::printf(
      "icount main: the standard suite and its runner are not built yet, so this run measures "
      "nothing.\n"
      "What works today: the offline Bazel build and the system-library wiring, checked by\n"
      "  ./bazelw test //...\n");
  return 0;
}
