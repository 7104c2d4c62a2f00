#!/usr/bin/env bash
# examples/consumer, a separate workspace depending on icount through
# local_repository, builds, and its binary and test time a lambda and a C++
# string (wall time and instruction counts). Drives a nested bazel with its
# own output root in the test's directory (nothing outlives the test), so
# the test runs unsandboxed (tag no-sandbox) and, since Bazel cannot see the
# other workspace's files, always (external). Its actions are cached in the
# machine's icount disk cache (the one .bazelrc names), so only the first
# run on a machine compiles them.
set -u
source "$TEST_SRCDIR/icount/tests/test_steps.sh"
readme="$(readlink -f "$1")"
root="$(dirname "$readme")"
output_root="$TEST_TMPDIR/consumer-output-root"
# Bazel gives a test no HOME; the disk cache is the user's (or the one
# bench/ci_time.sh passes with --test_env=ICOUNT_TEST_DISK_CACHE).
home=$(getent passwd "$(id -u)" | cut -d: -f6)
disk_cache="${ICOUNT_TEST_DISK_CACHE:-${home:-$TEST_TMPDIR}/.cache/icount/bazel-disk-cache}"
cd "$root/examples/consumer" || fail "no examples/consumer under $root"
nested() {
  /usr/bin/bazel --batch --output_user_root="$output_root" "$@" --symlink_prefix=/ \
    --disk_cache="$disk_cache"
}
step "bazel test //:all in examples/consumer (disk cache $disk_cache)"
nested test //:all > "$TEST_TMPDIR/test.log" 2>&1 || fail "consumer tests: $(tail -40 "$TEST_TMPDIR/test.log")"
# //:all built the binary too: it runs in its runfiles, as `bazel run
# //:time_add` would run it, without a second nested Bazel.
step "the consumer's binary, //:time_add"
time_add=$(find "$output_root" -path '*/bin/time_add' -type f -perm -u+x | head -1)
[[ -n $time_add ]] || fail "no time_add binary under $output_root"
(cd "$time_add.runfiles/consumer" && "$time_add") > "$TEST_TMPDIR/run.log" 2>&1 || fail "consumer binary: $(tail -40 "$TEST_TMPDIR/run.log")"
grep -q "instructions per run" "$TEST_TMPDIR/run.log" || fail "no counts: $(tail "$TEST_TMPDIR/run.log")"
grep -q "Median:" "$TEST_TMPDIR/run.log" || fail "no wall time"
echo PASS
