#!/usr/bin/env bash
# examples/consumer, a separate workspace depending on icount through
# local_repository, builds (its binary and test), and its test times a
# lambda and a C++ string (wall time and instruction counts) with the code
# the binary runs; under Bazel 7 and later, examples/consumer_bzlmod (a
# bazel_dep on icount) builds instead. Drives a nested bazel with its own
# output root in the test's directory (nothing outlives the test), so the
# test runs unsandboxed (tag no-sandbox). Bazel sees the examples' files
# through //examples (their data) and what they compile through
# //examples:time_add, so it runs this test again when either changes. The
# nested build's actions and its test's result are cached in the machine's
# icount disk cache (the one .bazelrc names), so only the first run on a
# machine compiles and measures: the binary is built, not run, since a run
# would measure again every time.
set -u
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/test_steps.sh"
root="$(dirname "$(readlink -f "$1")")"
output_root="$TEST_TMPDIR/consumer-output-root"
# Bazel gives a test no HOME; the disk cache is the user's (or the one
# bench/ci_time.sh passes with --test_env=ICOUNT_TEST_DISK_CACHE).
home=$(getent passwd "$(id -u)" | cut -d: -f6)
disk_cache="${ICOUNT_TEST_DISK_CACHE:-${home:-$TEST_TMPDIR}/.cache/icount/bazel-disk-cache}"
# The front door of this machine's Bazel: WORKSPACE up to Bazel 6 (Debian's
# 4.2.3 says "no_version"), MODULE.bazel from Bazel 7 on, whose consumer
# has a binary only (//tests:bazel7_module_test runs it).
example=consumer command=test
if [[ $(/usr/bin/bazel --version 2>/dev/null) =~ ^bazel\ ([0-9]+)\. ]] && ((BASH_REMATCH[1] >= 7)); then
  example=consumer_bzlmod command=build
fi
cd "$root/examples/$example" || fail "no examples/$example under $root"
nested() {
  /usr/bin/bazel --batch --output_user_root="$output_root" "$@" --symlink_prefix=/ \
    --disk_cache="$disk_cache"
}
step "bazel $command //:all in examples/$example (disk cache $disk_cache)"
nested "$command" //:all > "$TEST_TMPDIR/test.log" 2>&1 || fail "consumer tests: $(tail -40 "$TEST_TMPDIR/test.log")"
find "$output_root" -path '*/bin/time_add' -type f -perm -u+x | grep -q . \
  || fail "//:all built no time_add binary under $output_root"
echo PASS
