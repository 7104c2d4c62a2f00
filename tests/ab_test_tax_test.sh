#!/usr/bin/env bash
# //tools:ab_test end to end, counts and wall time: environment B preloads
# libslow_malloc.so, which taxes every malloc, and A a library of the same
# shape without the tax (the control); ab_test must report the count
# increase and name the preloaded function among the top per-function
# deltas, with the suite-level summary: instructions and estimated cycles
# (--cache_sim) up in the case that allocates and unchanged in the one that
# does not, heap allocations the same (the tax runs inside malloc). Wall
# time alternates A and B in rounds. Each side is recorded in --history as
# a run of its own, and --html draws the A/B: in its differential
# flamegraphs only the tax and the allocation path are coloured, and a case
# that does not allocate has no coloured frame. One run checks all of it:
# each run starts LibTorch under valgrind once per side.
set -u
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/test_steps.sh"
ab_test="$PWD/$1"
lib="$PWD/$2"
history="$PWD/$3"
report_page="$PWD/$4"
no_tax="$PWD/$5"
tmp="$TEST_TMPDIR"
filter='^Empty / with allocation$|^Pointwise / Math / add / Case:  1$'

step "A (the control) against B with an allocation tax: counts, estimated cycles, 2 rounds of wall time"
"$ab_test" --A="export LD_PRELOAD=$no_tax" --B="export LD_PRELOAD=$lib" --filter="$filter" \
  --colorize=false --cache_sim --display_time --time_rounds=2 --history="$tmp/ab.db" \
  --history_label=tax --html="$tmp/slow.html" > "$tmp/slow.txt" 2> "$tmp/slow.err" \
  || fail "ab_test failed: $(cat "$tmp/slow.err")"
cat "$tmp/slow.err" "$tmp/slow.txt"
grep -q "Python Eager (time)" "$tmp/slow.txt" || fail "--display_time shows no wall-time column"
rounds=$(grep -o "wall time, round . of 2, [AB]" "$tmp/slow.err" | tr '\n' ' ')
[ "$rounds" = "wall time, round 1 of 2, A wall time, round 1 of 2, B wall time, round 2 of 2, B wall time, round 2 of 2, A " ] \
  || fail "wall time should alternate A B, B A: $rounds"
# Two rounds are too few for a verdict on wall time: the cells say so.
grep -q "too few rounds (2 of 3 needed)" "$tmp/slow.txt" || fail "2 rounds must give no time verdict"
grep -q "icount_test_allocation_tax" "$tmp/slow.txt" || fail "the preloaded function is not named"
grep -Eq '\+[0-9.]+%' "$tmp/slow.txt" || fail "no count increase reported"
grep -Eq '^Pointwise / Math / add / Case:  1 +1  Forward   \| +\.\.\. +\| +\.\.\.$' "$tmp/slow.txt" \
  || fail "add case 1 allocates nothing: the tax must not change its counts"
grep -Eq '^  instructions: \+[0-9.]+% \[[-+]?[0-9.]+, \+[0-9.]+\] over 4 cases \(2 up, 0 down, 2 within 0.1%\)$' \
  "$tmp/slow.txt" || fail "the summary must show instructions up in the two allocating cases"
grep -Eq '^  estimated cycles: \+[0-9.]+% \[[-+]?[0-9.]+, \+[0-9.]+\] over 4 cases \(2 up, 0 down' \
  "$tmp/slow.txt" || fail "--cache_sim: estimated cycles must go up with the tax"
grep -q "^Estimated cycles per run (cache model" "$tmp/slow.txt" || fail "--cache_sim: no cycles table"
grep -q "^Heap allocations per run: the same on both sides in all 4 cases.$" "$tmp/slow.txt" \
  || fail "the tax runs inside malloc: allocations must not change"
# Without --json the journals live in a directory under $TMPDIR (here the
# test's TEST_TMPDIR, which icount prefers), removed once the run is done.
leftovers=$(ls -d "$tmp"/icount-ab-* "$tmp"/icount-canary-* "$tmp"/icount-run-* 2>/dev/null)
[ -z "$leftovers" ] || fail "a finished run left behind: $leftovers"

step "--html in headless Chromium: the flamegraphs colour the tax and the allocation path only"
# The page draws every chart, shows the preloaded function grown in the
# differential flamegraphs, and colours nothing outside the preloaded
# library, nothing at all in the case that does not allocate.
python3 "$report_page" "$tmp/slow.html" --open_every_case --expect_grown=icount_test_allocation_tax \
  --coloured_only_under=libslow_malloc || fail "--html report"

step "each side a run in --history"
# Each side is a run of its own in --history; between them, history finds
# the count steps and names the preloaded function.
"$history" --db="$tmp/ab.db" list > "$tmp/ab_list.txt" || fail "history list"
grep -Eq "^ +1 +\| +tax A +\|.*\| +ab_test A +\| +4 / 4 " "$tmp/ab_list.txt" || fail "run A: $(cat "$tmp/ab_list.txt")"
grep -Eq "^ +2 +\| +tax B +\|.*\| +ab_test B +\| +4 / 4 " "$tmp/ab_list.txt" || fail "run B: $(cat "$tmp/ab_list.txt")"
"$history" --db="$tmp/ab.db" steps --metric=counts > "$tmp/ab_steps.txt" || fail "history steps"
grep -q "^counts: 2 steps in 2 of 4 cases" "$tmp/ab_steps.txt" || fail "steps: $(cat "$tmp/ab_steps.txt")"
grep -q 'at run 2 "tax B" (after run 1 "tax A")' "$tmp/ab_steps.txt" || fail "step run: $(cat "$tmp/ab_steps.txt")"
grep -q "icount_test_allocation_tax" "$tmp/ab_steps.txt" || fail "the tax is not named: $(cat "$tmp/ab_steps.txt")"

real_version=$(/usr/bin/python3 -c 'import torch; print(torch.__version__)')
grep -q "^ab_test: A runs LibTorch ${real_version:0:4}[0-9.]* (from at::show_config())$" "$tmp/slow.err" \
  || fail "A's LibTorch (python: $real_version) not reported: $(cat "$tmp/slow.err")"
echo PASS
