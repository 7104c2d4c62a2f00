#!/usr/bin/env bash
# //tools:ab_test end to end: environment B preloads libslow_malloc.so, which
# taxes every malloc; ab_test must report the count increase and name the
# preloaded function among the top per-function deltas. Two identical
# environments must show no change at all.
set -u
ab_test="$PWD/$1"
lib="$PWD/$2"
tmp="${TEST_TMPDIR:-/tmp}"
fail() { echo "FAIL: $*" >&2; exit 1; }
filter='^Empty / with allocation$'

"$ab_test" --A=true --B="export LD_PRELOAD=$lib" --filter="$filter" --colorize=false \
  > "$tmp/slow.txt" 2> "$tmp/slow.err" || fail "ab_test failed: $(cat "$tmp/slow.err")"
cat "$tmp/slow.txt"
grep -q "icount_test_allocation_tax" "$tmp/slow.txt" || fail "the preloaded function is not named"
grep -Eq '\+[0-9.]+%' "$tmp/slow.txt" || fail "no count increase reported"

"$ab_test" --A=true --B=true --filter="$filter" --colorize=false \
  > "$tmp/same.txt" 2> "$tmp/same.err" || fail "ab_test failed: $(cat "$tmp/same.err")"
cat "$tmp/same.txt"
if grep -Eq '[+-][0-9.]+%' "$tmp/same.txt"; then fail "identical environments show a change"; fi
grep -q '\.\.\.' "$tmp/same.txt" || fail "equal cells should read ..."

if "$ab_test" --A=true --B="exit 7" --filter="$filter" > /dev/null 2> "$tmp/broken.err"; then
  fail "a broken environment must fail"
fi
grep -q "environment B" "$tmp/broken.err" || fail "broken environment message: $(cat "$tmp/broken.err")"
echo PASS
