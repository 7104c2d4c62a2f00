#!/usr/bin/env bash
# icount on Bazel 7 as a module, in Debian sid's root (Bazel 7.7.1, gcc 16,
# abseil 2026, PyTorch 2.14 with C++20): ./bazelw builds //tools:main there
# with MODULE.bazel (bazel/bazel7.bazelrc: bzlmod, Debian's packaged rule
# sets) and the tool runs; examples/consumer_bzlmod, a project depending
# on icount through bazel_dep, runs :time_add, whose lambda and C++ string
# are timed and counted.
#
# The root is the machine's sid root, shared with root_sides_sid_test
# (~/.cache/icount/roots; ICOUNT_TEST_ROOT_CACHE=DIR puts it in DIR), and
# so is the disk cache of builds in it (`roots list sid` names their
# directory): the builds here take turns with icount's own in the root
# (its build.lock), so the worker's objects are compiled once for both.
# Bazel's outputs for these builds are kept in the root's builds directory
# too (bazel7-module-test there), so that `roots list` counts them and a
# root made again or removed takes them with it: the first run on a
# machine builds, later runs find everything built.
# Runs unsandboxed: the root is entered through a mount namespace, and the
# builds need this checkout (found through WORKSPACE).
set -u
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/test_steps.sh"
roots="$PWD/$1"
enter_root="$PWD/$2"
checkout="$(dirname "$(readlink -f "$3")")"
tmp="$TEST_TMPDIR"
use_machine_roots
cache="${ICOUNT_CACHE_DIR:-$HOME/.cache/icount}"
# This test's builds directory of old, beside the roots' own, which no
# `roots remove` reached.
rm -rf "$cache/root-builds/bazel7-module-test"

step "the sid root (made on first use)"
"$roots" make sid > "$tmp/make.log" 2>&1 || fail "roots make sid: $(tail -20 "$tmp/make.log")"
"$roots" list sid > "$tmp/list.out" 2>&1 || fail "roots list sid: $(cat "$tmp/list.out")"
root_builds=$(sed -n "s|^  icount's builds in it at \(.*\), [0-9.]* GB on disk$|\1|p" "$tmp/list.out")
[[ -n $root_builds ]] || fail "roots list sid names no builds directory: $(cat "$tmp/list.out")"
builds="$root_builds/bazel7-module-test"
mkdir -p "$builds" || fail "cannot make $builds"

# in_sid DIRECTORY COMMAND...: runs COMMAND in DIRECTORY inside the root,
# with the root's programs, the checkout and the builds' directories seen
# at their paths.
in_sid() {
  local directory=$1
  shift
  "$enter_root" --root="$cache/roots/sid" --bind="$checkout,$root_builds" -- \
    /usr/bin/env -i PATH=/usr/bin:/bin HOME="$builds/home" BAZELW_SKIP_PACKAGE_CHECK=1 \
    /bin/sh -c 'cd "$1" && shift && exec "$@"' in-sid "$directory" "$@"
}
# build_in_sid DIRECTORY COMMAND...: in_sid, in turn with icount's builds
# in the root (they hold its build.lock while they build).
build_in_sid() {
  (
    flock 9 || exit 1
    in_sid "$@"
  ) 9> "$root_builds/build.lock"
}
# Bazel's outputs in the builds' directory, none in the checkout, and no
# server left running once the test ends.
startup=(--output_user_root="$builds/user-root" --batch)
# No C++ standard given: ./bazelw picks C++20 for sid's LibTorch, and the
# consumer's .bazelrc says it. The root's disk cache: with the same flags
# as icount's builds there, the worker's compiles are theirs.
options=(--symlink_prefix=/ --disk_cache="$root_builds/disk-cache" --curses=no --color=no)

step "./bazelw run //tools:main -- --version in the root (Bazel 7.7.1, MODULE.bazel)"
build_in_sid "$checkout" ./bazelw "${startup[@]}" run "${options[@]}" //tools:main -- --version \
  > "$tmp/main.out" 2> "$tmp/main.log" \
  || fail "building //tools:main with Bazel 7: $(tail -40 "$tmp/main.log")"
grep -q "Build completed successfully" "$tmp/main.log" || fail "$(tail -20 "$tmp/main.log")"
grep -E "^INFO: [0-9]+ processes" "$tmp/main.log" >&2  # how much came from the root's disk cache
grep -q "^icount libraries: timer " "$tmp/main.out" || fail "main --version: $(cat "$tmp/main.out")"
in_sid "$checkout" ./bazelw "${startup[@]}" mod graph > "$tmp/graph.out" 2> "$tmp/graph.log" \
  || fail "bazel mod graph: $(tail -20 "$tmp/graph.log")"
grep -q "icount@0" "$tmp/graph.out" || fail "not built as the module icount: $(head "$tmp/graph.out")"

step "examples/consumer_bzlmod: bazel run :time_add"
build_in_sid "$checkout/examples/consumer_bzlmod" bazel "${startup[@]}" run "${options[@]}" :time_add \
  > "$tmp/consumer.out" 2> "$tmp/consumer.log" \
  || fail "the bzlmod consumer: $(tail -40 "$tmp/consumer.log")"
cat "$tmp/consumer.out"
grep -qE "^lambda: " "$tmp/consumer.out" || fail "no lambda timing: $(cat "$tmp/consumer.out")"
[[ $(grep -cE "^  [0-9]+\.[0-9] instructions per run$" "$tmp/consumer.out") == 2 ]] \
  || fail "no instruction counts for the lambda and the string: $(cat "$tmp/consumer.out")"
echo PASS
