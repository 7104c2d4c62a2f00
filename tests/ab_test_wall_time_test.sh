#!/usr/bin/env bash
# //tools:ab_test --no_counts: wall time in paired rounds, each case's change
# with its interval and a verdict; both sides time in the blocks A's first
# round chose, even when B's clock runs 10x fast.
set -u
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/test_steps.sh"
ab_test="$PWD/$1"
scaled_clock="$PWD/$2"
tmp="$TEST_TMPDIR"
filter='^Empty / with allocation$'

step "wall time only, 3 paired rounds between identical sides"
# Wall time only, 3 paired rounds between identical sides: every case gets a
# change with its interval and a verdict (a false alarm is possible, about
# 1 run in 20 by design, so the verdict itself is not asserted here;
# //compare:time_comparison_test checks the rates).
"$ab_test" --A=true --B=true --filter="$filter" --no_counts --time_rounds=3 \
  --json="$tmp/time.json" > "$tmp/time.txt" 2> "$tmp/time.err" \
  || fail "ab_test --no_counts failed: $(cat "$tmp/time.err")"
grep -q "Benjamini-Hochberg" "$tmp/time.txt" || fail "the legend must explain significance"
/usr/bin/python3 - "$tmp/time.json" <<'PY' || fail "--no_counts --json: $(cat "$tmp/time.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["A"]["instruction_counts"] == [] and len(d["A"]["measurements"]) == 6, d["A"]
# Each case's measurement per round, told apart by "round".
assert sorted(m["metadata"]["round"] for m in d["B"]["measurements"]) == ["0", "0", "1", "1", "2", "2"], d["B"]
# Every round of both sides times a case in the blocks A's first round chose.
blocks = {}
for side in "AB":
    for m in d[side]["measurements"]:
        blocks.setdefault((m["sub_label"], m["description"]), set()).add(m["number_per_run"])
assert all(len(sizes) == 1 for sizes in blocks.values()), blocks
assert len(d["comparisons"]) == 2, d["comparisons"]
for c in d["comparisons"]:
    low, high = c["time_ci_pct"]
    assert "counts_delta_pct" not in c and low <= c["time_delta_pct"] <= high, c
    assert c["time_rounds"] == 3 and c["time_verdict"] in ("unchanged", "slower", "faster"), c
    assert c["time_significant"] == (c["time_verdict"] != "unchanged"), c
    assert c["time_resolvable_pct"] > 0 and "time_p_value" in c, c
PY

step "B with a clock 10x fast times in A's blocks"
# B's clocks run 10x fast: sizing its own blocks, B would pick blocks 10x
# smaller than A's; it times in the blocks A's first round chose.
"$ab_test" --A=true --B="export LD_PRELOAD=$scaled_clock ICOUNT_TEST_CLOCK_SCALE=10" \
  --filter="$filter" --no_counts --time_rounds=2 --json="$tmp/blocks.json" \
  > "$tmp/blocks.txt" 2> "$tmp/blocks.err" || fail "ab_test with a fast clock: $(cat "$tmp/blocks.err")"
/usr/bin/python3 - "$tmp/blocks.json" <<'PY' || fail "block sizes differ between sides: $(cat "$tmp/blocks.json")"
import json, sys
d = json.load(open(sys.argv[1]))
sizes = {(m["description"], m["number_per_run"]) for side in "AB" for m in d[side]["measurements"]}
assert len(d["B"]["measurements"]) == 4 and len(sizes) == 2, sizes
PY

echo PASS
