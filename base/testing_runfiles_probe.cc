// For //base:runfiles_test: prints where FindRunfile(argv[1]) finds a file,
// or why not, as a binary started from another's runfiles would.
#include <cstdio>
#include <string>

#include "base/runfiles.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  absl::StatusOr<std::string> path = icount::base::FindRunfile(argv[1]);
  std::printf("%s\n", path.ok() ? path->c_str() : std::string(path.status().message()).c_str());
  return path.ok() ? 0 : 1;
}
