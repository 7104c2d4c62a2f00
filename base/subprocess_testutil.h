#ifndef ICOUNT_BASE_SUBPROCESS_TESTUTIL_H_
#define ICOUNT_BASE_SUBPROCESS_TESTUTIL_H_

// For tests of processes that must not outlive what started them.
//
//   // A child started with die_with_parent dies with its starter:
//   absl::StatusOr<std::string> ended = HowAStartedProcessEndsWhenItsStarterIsKilled([] {
//     SpawnOptions options;
//     options.die_with_parent = true;
//     absl::StatusOr<pid_t> child = Spawn({"sleep", "40"}, options);
//     return child.ok() ? *child : -1;
//   });
//   EXPECT_EQ(*ended, "killed by signal 9 (Killed)");

#include <sys/types.h>

#include <functional>
#include <string>

#include "absl/status/statusor.h"

namespace icount::base {

// Runs `start` in a forked starter process; `start` starts a process and
// returns its pid. Then kills the starter with SIGKILL, which no handler
// sees, and waits (as the orphan's subreaper) for that process to end:
// how it ended, as DescribeExit says it. Make the process end by itself
// well inside the test's time limit, so that one that outlives its starter
// shows as exited rather than hanging the test. An error when the starter
// could not start it.
absl::StatusOr<std::string> HowAStartedProcessEndsWhenItsStarterIsKilled(
    const std::function<pid_t()>& start);

}  // namespace icount::base

#endif  // ICOUNT_BASE_SUBPROCESS_TESTUTIL_H_
