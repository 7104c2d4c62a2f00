#!/usr/bin/env bash
# An A/B of two real LibTorch builds: libc10.so rebuilt from Debian's
# pytorch 1.13.1 source with the same flags, B with `memset(data, 0,
# nbytes);` added to c10::alloc_cpu (bench/c10_rebuild.sh). Each side is a
# LibTorch directory; ab_test builds the worker for each (a nested Bazel
# build of this checkout) and compares them: the case that allocates
# moves, with alloc_cpu and memset named, and the case that does not is
# counted the same.
#
# The source and the two libraries are cached per machine
# (~/.cache/icount/c10-rebuild, or $ICOUNT_TEST_C10_CACHE), so only the
# first run on a machine downloads (Debian's archive must be reachable)
# and compiles c10. Runs unsandboxed (no-sandbox: the nested build needs
# this checkout, found through WORKSPACE's link).
set -u
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/test_steps.sh"
ab_test="$PWD/$1"
root="$(dirname "$(readlink -f "$2")")"
c10_rebuild="$PWD/$3"
tmp="$TEST_TMPDIR"
export ICOUNT_WORKSPACE="$root"
nested_icount_builds "$tmp"  # HOME too: the c10 cache is under it
# The source is bookworm's pytorch 1.13.1 (bench/c10_rebuild.sh): its libc10
# can stand in for Debian's only where Debian's LibTorch is that release.
if [[ $(debian_libtorch_version) != 1.13.* ]]; then
  echo "SKIPPED: Debian's LibTorch here is $(debian_libtorch_version); bench/c10_rebuild.sh rebuilds 1.13.1's libc10"
  exit 0
fi

step "two libc10.so rebuilt from Debian's source, B zeroing every allocation"
"$c10_rebuild" "${ICOUNT_TEST_C10_CACHE:-$HOME/.cache/icount/c10-rebuild}" \
  > "$tmp/sides" 2> "$tmp/rebuild.log" || fail "bench/c10_rebuild.sh: $(tail -20 "$tmp/rebuild.log")"
{ read -r side_a; read -r side_b; } < "$tmp/sides"
for side in "$side_a" "$side_b"; do
  [[ -f $side/lib/libc10.so.1.13 ]] || fail "no libc10.so in '$side': $(cat "$tmp/sides")"
done
cmp -s "$side_a/lib/libc10.so.1.13" "$side_b/lib/libc10.so.1.13" && fail "A's and B's libc10.so are the same"

step "ab_test, each side on its own LibTorch directory (builds a worker for each)"
"$ab_test" --A=true --A_libtorch="$side_a" --B=true --B_libtorch="$side_b" \
  --filter='^Empty / (no|with) allocation$' --json="$tmp/ab.json" \
  > "$tmp/ab.txt" 2> "$tmp/ab.log" || fail "ab_test: $(tail -30 "$tmp/ab.log")"
nested_build_summary "$tmp/ab.log"
cat "$tmp/ab.txt" >&2
for side in A B; do
  dir=$side_a
  [[ $side == B ]] && dir=$side_b
  grep -q "^ab_test: $side: measures torch 1.13.0 (LibTorch directory) at $dir, found by --${side}_libtorch$" \
    "$tmp/ab.log" || fail "what $side has: $(head -5 "$tmp/ab.log")"
done

step "the allocating case moves, with alloc_cpu and memset named; the other does not"
with=$(ab_json_count_delta_pct "$tmp/ab.json" "Empty/with allocation|Eager|Forward|C++")
without=$(ab_json_count_delta_pct "$tmp/ab.json" "Empty/no allocation|Eager|Forward|C++")
[[ -n $with && -n $without ]] || fail "cases missing from the comparisons: $(head -c 2000 "$tmp/ab.json")"
awk -v d="$with" 'BEGIN { exit !(d > 0) }' || fail "Empty / with allocation moved by $with%"
awk -v d="$without" 'BEGIN { exit !(d == 0) }' || fail "Empty / no allocation moved by $without%"
grep -q "c10::alloc_cpu" "$tmp/ab.txt" || fail "the per-function changes do not name c10::alloc_cpu"
grep -q "memset" "$tmp/ab.txt" || fail "the per-function changes do not name memset"
echo PASS
