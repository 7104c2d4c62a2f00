#ifndef ICOUNT_TIMER_INTERNAL_SUBPROCESS_H_
#define ICOUNT_TIMER_INTERNAL_SUBPROCESS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace icount::timer_internal {

struct CommandResult {
  int exit_code = -1;    // valid when signal == 0
  int signal = 0;        // the signal that killed the child, or 0
  std::string output;    // stdout and stderr, interleaved
};

struct CommandOptions {
  // Replaces the environment ("NAME=value" strings) when set.
  std::optional<std::vector<std::string>> env;
  // Starts the child with address-space randomisation off (as `setarch -R`),
  // so pointer-keyed hashing and allocation patterns repeat run to run.
  bool disable_aslr = false;
};

// Runs argv[0] (looked up on PATH) with `argv`, waiting for it, with stdin
// from /dev/null. Fails only when the command cannot be started; a non-zero
// exit is reported in the result.
//
//   auto result = RunCommand({"g++", "--version"});
//   if (result.ok() && result->exit_code == 0) ...
absl::StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                         const CommandOptions& options = {});

// "exit code 1" or "killed by signal 11 (Segmentation fault)".
std::string DescribeExit(const CommandResult& result);

}  // namespace icount::timer_internal

#endif  // ICOUNT_TIMER_INTERNAL_SUBPROCESS_H_
