#!/usr/bin/env bash
# The whole test suite on Debian sid, as a developer there runs it: Bazel
# 7.7.1 building icount as a module (MODULE.bazel), g++ 16, abseil 2026,
# PyTorch 2.14.1 with C++20, Python 3.14, valgrind 3.27. The system is a
# copy of icount's sid root (`roots make sid`) kept at
# <icount cache>/bench-roots/sid-dev, in which ./bazelw installs every
# package it needs, as on a fresh machine; the checkout is seen there at
# its own path, and Bazel's outputs stay inside the copy. The tests that
# make roots of their own (root_sides_*_test, bazel7_module_test) are left
# out: they would make Debian roots inside the copy.
#
#   bench/bazel7_suite.sh OUT_DIR [BAZEL TEST OPTION...]
#
# OUT_DIR/test.log has Bazel's output, OUT_DIR/summary.md the result and
# the time, which docs/figures.md's row bazel7_suite gets too. The first
# run copies the root and installs the packages (a few minutes); later
# runs reuse the copy and its Bazel outputs.
set -euo pipefail
out=${1:?usage: bench/bazel7_suite.sh OUT_DIR [BAZEL TEST OPTION...]}
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
checkout=$(cd "$(dirname "$0")/.." && pwd)
cd "$checkout"
cache=${ICOUNT_CACHE_DIR:-$HOME/.cache/icount}
dev="$cache/bench-roots/sid-dev"

# in_root DIR COMMAND...: COMMAND in the checkout inside DIR, as root, in a
# mount namespace of its own (its mounts go when it ends).
in_root() {
  local root=$1
  shift
  unshare --mount --propagation private -- /bin/bash -euc '
    root=$1 checkout=$2; shift 2
    # The root a mount point of its own, as / is on a machine: the tests
    # that enter roots make mounts private there. (No apostrophes in this
    # single-quoted script.)
    mount --bind "$root" "$root"
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount --rbind /sys "$root/sys"
    mkdir -p "$root$checkout"
    mount --bind "$checkout" "$root$checkout"
    # The names of this machine, as apt and the Slurm daemons look them up.
    cp /etc/resolv.conf /etc/hosts "$root/etc/"
    exec chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root \
      LANG=C.UTF-8 /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$checkout" "$@"
  ' in-root "$root" "$checkout" "$@"
}

./bazelw build //tools:roots > "$out/build.log" 2>&1 || { tail -20 "$out/build.log" >&2; exit 1; }
bazel-bin/tools/roots make sid >&2
if [[ ! -f $dev/.icount-bench-complete ]]; then
  echo "copying the sid root to $dev" >&2
  rm -rf "$dev" "$dev.partial"
  mkdir -p "$(dirname "$dev")"
  cp -a "$cache/roots/sid" "$dev.partial"
  mv "$dev.partial" "$dev"
  touch "$dev/.icount-bench-complete"
fi

start=$SECONDS
status=0
in_root "$dev" ./bazelw test --keep_going -- //... -//tests:root_sides_trixie_test \
  -//tests:root_sides_sid_test \
  -//tests:bazel7_module_test "$@" > "$out/test.log" 2>&1 || status=$?
seconds=$((SECONDS - start))
if ! grep -q "^Executed .* tests" "$out/test.log"; then
  echo "bench/bazel7_suite.sh: the suite did not run (exit $status); the end of $out/test.log:" >&2
  tail -20 "$out/test.log" >&2
  exit 1
fi
passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$out/test.log" || true)
failed=$(grep -E '^//[^ ]+ +(FAILED|TIMEOUT|NO STATUS|FAILED TO BUILD)' "$out/test.log" | awk '{print $1}' || true)
{
  echo "On $(bench/machine.py 2>/dev/null || uname -m), at $(git rev-parse --short HEAD):"
  echo "\`bench/bazel7_suite.sh\` in Debian sid (Bazel $(in_root "$dev" bazel --version 2>/dev/null | awk '{print $2}')):"
  echo "$passed test targets passed, $(grep -c . <<<"$failed" || true) did not, in $((seconds / 60)) min $((seconds % 60)) s (exit $status)."
  [[ -z $failed ]] || { echo; echo "Not passed:"; sed 's/^/- /' <<<"$failed"; }
} | tee "$out/summary.md"
/usr/bin/python3 bench/figures_page.py row bazel7_suite \
  "**$((seconds / 60)) min $((seconds % 60)) s**; $passed test targets passed, $(grep -c . <<<"$failed" || true) did not$([[ -z $failed ]] || echo ": $(tr '\n' ' ' <<<"$failed" | sed 's/ $//; s/ /, /g')")"
