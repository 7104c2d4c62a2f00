#!/usr/bin/env bash
# How long the README's test command takes on this machine, as CI and a
# newcomer meet it: this checkout's HEAD cloned into a new directory, run
# with a new Bazel output base and an empty disk cache (cold), then run
# again with nothing changed (cached test results).
#
#   bench/ci_time.sh [OUT [FLAG...]]   # OUT defaults to /tmp/icount-ci-time
#   bench/ci_time.sh /tmp/t --test_tag_filters=-debian_root   # a CI job without the roots
#
# FLAGs go to both runs of `./bazelw test //...`.
#
# Writes OUT/ci_time.md (the CPU, the commit, both wall times, the number of
# test targets Bazel ran, the mean busy CPUs over each run (from /proc/stat:
# leave the machine idle), and the ten slowest tests of the cold run) and
# keeps both runs' logs and Bazel profiles in OUT (`bazel analyze-profile
# OUT/cold.profile.gz` shows the critical path) and the test.log files in
# OUT/testlogs (their steps' times, the nested builds' action summaries:
# the cold run's, but for tests tagged external, which run every time);
# removes the clone and its output base. The tests that use the machine's
# Debian roots (//tests:root_sides_{trixie,sid}_test, //tests:bazel7_module_test) get an
# empty cache of their own too (ICOUNT_TEST_ROOT_CACHE), so the cold run
# makes the roots and builds icount in them, as on a fresh machine. The
# system packages must already be installed (./bazelw installs them once;
# that time is not counted). Takes about as long as a cold CI run on a
# fresh machine.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-/tmp/icount-ci-time}")
shift $(($# > 0 ? 1 : 0))
extra_flags=("$@")
mkdir -p "$out"
rm -rf "$out/clone" "$out/output-base" "$out/disk-cache" "$out/c10-cache" "$out/root-cache"
git clone --quiet "$here" "$out/clone"
commit=$(git -C "$out/clone" rev-parse --short HEAD)
# An empty disk cache for this clone: user.bazelrc (read from the clone's
# root) points the clone's builds at it, the nested builds of
# //tests:libtorch_side_test and //tests:c10_rebuild_test included (they
# build this clone again); the nested build of //tests:consumer_test takes
# it from the test environment. //tests:c10_rebuild_test gets an empty
# cache for its rebuilt libc10 too (it downloads and compiles them).
echo "build --disk_cache=$out/disk-cache" > "$out/clone/user.bazelrc"
flags=(--test_env=ICOUNT_TEST_DISK_CACHE="$out/disk-cache"
  --test_env=ICOUNT_TEST_C10_CACHE="$out/c10-cache"
  --test_env=ICOUNT_TEST_ROOT_CACHE="$out/root-cache" "${extra_flags[@]}")

source "$here/bench/busy_cpus.sh"
timed_test() {  # timed_test NAME: seconds of ./bazelw test //... in the clone
  local started=$SECONDS mark
  mark=$(busy_cpus_mark)
  (cd "$out/clone" && ./bazelw --output_base="$out/output-base" test //... "${flags[@]}" \
    --profile="$out/$1.profile.gz") > "$out/$1.log" 2>&1 \
    || { echo "ci_time: ./bazelw test //... failed, see $out/$1.log" >&2; tail -30 "$out/$1.log" >&2; exit 1; }
  busy_cpus_since "$mark" > "$out/$1.busy_cpus"
  echo $((SECONDS - started))
}

cold=$(timed_test cold)
warm=$(timed_test warm)
(cd "$out/clone" && ./bazelw --output_base="$out/output-base" shutdown) > /dev/null 2>&1 || true
rm -rf "$out/testlogs" && mkdir -p "$out/testlogs"
(cd "$out/output-base/execroot/icount/bazel-out/k8-fastbuild/testlogs" \
  && find . -name test.log -exec cp --parents {} "$out/testlogs" \;)
tests=$(grep -oE "Executed [0-9]+ out of [0-9]+ tests?" "$out/cold.log" | grep -oE "[0-9]+ tests?$" | grep -oE "[0-9]+")
slowest=$(sed -nE 's/^(\/\/[^ ]+) +(\(cached\) )?([A-Z]+) in ([0-9.]+)s$/\4 \1/p' "$out/cold.log" | sort -rn | head -10 \
  | awk '{ printf "| %s | %.1f |\n", $2, $1 }')
{
  echo "Machine: $(python3 "$here/bench/machine.py"); commit $commit; command \`bench/ci_time.sh${extra_flags[*]:+ OUT ${extra_flags[*]}}\`."
  echo
  echo "| run of \`./bazelw test //...\` | wall time | test targets | busy CPUs (mean) |"
  echo "|---|---|---|---|"
  echo "| cold (new clone, new output base, empty disk cache and roots) | $((cold / 60)) min $((cold % 60)) s | $tests | $(cat "$out/cold.busy_cpus") |"
  echo "| nothing changed (cached results) | $((warm / 60)) min $((warm % 60)) s | $tests | $(cat "$out/warm.busy_cpus") |"
  echo
  echo "The ten slowest tests of the cold run (seconds):"
  echo
  echo "| test | seconds |"
  echo "|---|---|"
  echo "$slowest"
} > "$out/ci_time.md"
rm -rf "$out/clone" "$out/output-base" "$out/disk-cache" "$out/c10-cache" "$out/root-cache"
cat "$out/ci_time.md"
