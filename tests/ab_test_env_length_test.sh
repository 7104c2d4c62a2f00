#!/usr/bin/env bash
# //tools:ab_test between two sides that differ only in the length of a
# variable their commands export: every count must be equal. A worker starts
# in the environment its side's command leaves (worker/runner.h,
# command_prefix), so the stack padding covers what the command exported;
# padded before the command instead, add's Python case counted 12
# instructions a run (0.2%) apart for a variable 16 bytes longer.
set -u
source "$TEST_SRCDIR/icount/tests/test_steps.sh"
ab_test="$PWD/$1"
tmp="$TEST_TMPDIR"

step "A and B export ICOUNT_TEST_PATH, 40 bytes apart"
"$ab_test" --A="export ICOUNT_TEST_PATH=/a" \
  --B="export ICOUNT_TEST_PATH=/a/directory/forty/bytes/longer/than/a/" \
  --filter='^Pointwise / Math / add / Case:  1$' --json="$tmp/ab.json" --colorize=false \
  > "$tmp/ab.out" 2> "$tmp/ab.err" || fail "ab_test failed: $(cat "$tmp/ab.err")"
cat "$tmp/ab.out"
/usr/bin/python3 - "$tmp/ab.json" <<'PY' || fail "counts differ: $(cat "$tmp/ab.out")"
import json, sys
d = json.load(open(sys.argv[1]))
comparisons = d["comparisons"]
assert len(comparisons) == 2, comparisons  # C++ and Python
for c in comparisons:
    assert c["counts_delta_pct"] == 0, c
PY
echo PASS
