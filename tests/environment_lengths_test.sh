#!/usr/bin/env bash
# Counts do not follow the lengths of what the measured code does not read:
# two sides that differ only in an exported variable (1 byte against 4096),
# ICOUNT_CACHE_DIR, TMPDIR and the path of the worker count the same, case
# by case, C++ and Python, and the report's differential flamegraphs,
# every case opened, colour no frame; and `main` copied with its runfiles
# to two directories (two checkouts) 150 bytes apart, each run from its
# own directory with TMPDIR inside it, counts the same in every repeat,
# TorchScript cases (which load an artifact from the build) included.
set -u
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/test_steps.sh"
ab_test="$PWD/$1"
worker="$PWD/$2"
report_page="$PWD/$3"
main="$PWD/$4"
tmp="$TEST_TMPDIR"
filter='^Empty / with allocation$|^Pointwise / Math / add / Case:  [01]$'

# A directory name of N letters X.
name() { printf "$2%.0s" $(seq "$1"); }

step "two copies of the worker, at paths 150 bytes apart"
short="$tmp/w"
long="$tmp/$(name 100 d)/$(name 49 d)/w"
long_cache="$tmp/$(name 100 c)/$(name 99 c)"
long_tmpdir="$tmp/$(name 100 t)/$(name 100 t)/$(name 98 t)"
mkdir -p "$short" "$long" "$tmp/c" "$long_cache" "$tmp/t" "$long_tmpdir"
cp "$worker" "$short/worker" && cp "$worker" "$long/worker" || fail "cannot copy $worker"

step "A and B differ only in lengths"
a="export ICOUNT_TEST_UNREAD=x ICOUNT_CACHE_DIR=$tmp/c TMPDIR=$tmp/t"
b="export ICOUNT_TEST_UNREAD=$(name 4096 v) ICOUNT_CACHE_DIR=$long_cache TMPDIR=$long_tmpdir"
"$ab_test" --A="$a" --B="$b" --A_worker="$short/worker" --B_worker="$long/worker" \
  --filter="$filter" --colorize=false --html="$tmp/lengths.html" > "$tmp/out.txt" 2> "$tmp/err.txt" \
  || fail "ab_test failed: $(cat "$tmp/err.txt")"
cat "$tmp/out.txt"
rows=$(sed -n '/^Benchmark/,/^$/p' "$tmp/out.txt" | grep -v '^Benchmark' | grep -c ' | ')
((rows == 3)) || fail "expected 3 rows (Empty, add 0 and 1), got $rows"
# Every cell of the table is "..." (A and B equal), none a difference.
changed=$(sed -n '/^Benchmark/,/^$/p' "$tmp/out.txt" | grep ' | ' | grep -E '\| +[+-]?[0-9]')
[ -z "$changed" ] || fail "counts moved with lengths nothing measured reads: $changed"
grep -Eq '^  instructions: 0\.00% \[0\.00, 0\.00\] over 6 cases \(0 up, 0 down, 6 within 0\.1%\)$' \
  "$tmp/out.txt" || fail "the summary must show 6 cases unchanged"

step "the report of two equal sides colours no frame"
python3 "$report_page" "$tmp/lengths.html" --open_every_case --expect_uncoloured || fail "--html report"
step "main from two checkouts 150 bytes apart, cwd and TMPDIR inside each"
for checkout in "$tmp/x" "$tmp/$(name 100 x)/$(name 49 x)"; do
  # This test's runfiles, main among them, as a runfiles tree main finds
  # by its own path; without timer/, ab_test's precompiled snippet prelude
  # (400 MB), which main does not use. One worker: the check is the
  # counts, and each worker is a start of LibTorch under valgrind.
  tree="$checkout/main.runfiles/$TEST_WORKSPACE"
  mkdir -p "$checkout/tmp" "$tree" || fail "mkdir $checkout"
  for part in "$TEST_SRCDIR/$TEST_WORKSPACE"/*; do
    [[ $part == */timer ]] || cp -rL "$part" "$tree/" || fail "cannot copy $part to $checkout"
  done
  # Under bzlmod, how the tree's directories map to repositories.
  if [[ -f $TEST_SRCDIR/_repo_mapping ]]; then cp "$TEST_SRCDIR/_repo_mapping" "$checkout/main.runfiles/"; fi
  (cd "$checkout" && env -u RUNFILES_DIR -u TEST_SRCDIR -u RUNFILES_MANIFEST_FILE TMPDIR="$checkout/tmp" \
    "$tree/${main#"$TEST_SRCDIR/$TEST_WORKSPACE/"}" --filter="$filter|^nn Modules / ReLU$" --no_wall_time --jobs=1 \
    --output="$checkout/out.json" > /dev/null 2> "$checkout/err.txt") \
    || fail "main in $checkout failed: $(cat "$checkout/err.txt")"
done
/usr/bin/python3 - "$tmp/x/out.json" "$tmp/$(name 100 x)/$(name 49 x)/out.json" <<'PY' || fail "counts differ between checkouts"
import json, sys
runs = [{c["metadata"]["case"]: (c["counts"], c["baseline"]) for c in json.load(open(p))["instruction_counts"]}
        for p in sys.argv[1:]]
assert len(runs[0]) == 10, runs[0]  # with ReLU's TorchScript cases, which load a file of the build
for case in sorted(runs[0]):
    print(case, runs[0][case][0], "|", runs[1].get(case, ("missing",))[0])
sys.exit(0 if runs[0] == runs[1] else 1)
PY
echo PASS
