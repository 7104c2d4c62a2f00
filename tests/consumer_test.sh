#!/usr/bin/env bash
# examples/consumer, a separate workspace depending on icount through
# local_repository, builds, and its binary and test time a lambda and a C++
# string (wall time and instruction counts). Drives a nested bazel with its
# own output root in the test's directory (nothing outlives the test, nothing
# is shared with other runs), so the test runs unsandboxed (tag no-sandbox)
# and, since Bazel cannot see the other workspace's files, always (external).
set -u
readme="$(readlink -f "$1")"
root="$(dirname "$readme")"
output_root="$TEST_TMPDIR/consumer-output-root"
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$root/examples/consumer" || fail "no examples/consumer under $root"
nested() { /usr/bin/bazel --batch --output_user_root="$output_root" "$@" --symlink_prefix=/; }
nested test //:all > "$TEST_TMPDIR/test.log" 2>&1 || fail "consumer tests: $(tail -40 "$TEST_TMPDIR/test.log")"
nested run //:time_add > "$TEST_TMPDIR/run.log" 2>&1 || fail "consumer binary: $(tail -40 "$TEST_TMPDIR/run.log")"
grep -q "instructions per run" "$TEST_TMPDIR/run.log" || fail "no counts: $(tail "$TEST_TMPDIR/run.log")"
grep -q "Median:" "$TEST_TMPDIR/run.log" || fail "no wall time"
echo PASS
