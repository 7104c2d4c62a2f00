#!/usr/bin/env bash
# //tools:ab_test --sides: three environments, where each case first changed,
# the node (ATen capability) each case was counted on, each side a run in
# --history; a sides file with one side, a name twice or a broken side.
set -u
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/test_steps.sh"
ab_test="$PWD/$1"
lib="$PWD/$2"
history="$PWD/$3"
source "$PWD/$4"  # expect_first_line
tmp="$TEST_TMPDIR"
filter='^Empty / with allocation$'

step "--sides: three environments"
# --sides: three environments, the last with the allocation tax and ATen
# dispatching to its DEFAULT kernels (no AVX2): identical sides show no
# change, every case first changes at the last side, each case's node is
# recorded (host, CPU, ATen capability under valgrind, valgrind's version),
# and counts from nodes that differ in ATen's capability come with a warning.
cat > "$tmp/sides.txt" <<SIDES
# environments, oldest first
[plain] true
[plain again] true
[taxed] export LD_PRELOAD=$lib ATEN_CPU_CAPABILITY=default
SIDES
"$ab_test" --sides="$tmp/sides.txt" --filter="$filter" --json="$tmp/sides.json" \
  --history="$tmp/sides.db" > "$tmp/sides.out" 2> "$tmp/sides.err" \
  || fail "ab_test --sides failed: $(cat "$tmp/sides.err")"
cat "$tmp/sides.err" "$tmp/sides.out"
grep -q "^Instructions per run across 3 sides: 2 of 2 cases changed" "$tmp/sides.out" \
  || fail "--sides headline: $(cat "$tmp/sides.out")"
grep -Eq "plain +\| +plain again +\| +taxed +\| +first change" "$tmp/sides.out" \
  || fail "--sides columns: $(cat "$tmp/sides.out")"
# Progress counts the cases, not the canary counted before them.
grep -q "^ab_test: instruction counts: plain 2/2, plain again 2/2, taxed 2/2$" "$tmp/sides.err" \
  || fail "--sides progress: $(cat "$tmp/sides.err")"
[ "$(grep -Ec "\| +taxed \(\+" "$tmp/sides.out")" -eq 2 ] || fail "--sides first change: $(cat "$tmp/sides.out")"
grep -Eq "ab_test: warning: counts of 2 cases were taken on nodes that differ \(ATen's CPU capability AVX[0-9]+ vs DEFAULT\): plain again on" \
  "$tmp/sides.err" || fail "--sides node warning: $(cat "$tmp/sides.err")"
/usr/bin/python3 - "$tmp/sides.json" "$(hostname)" <<'PY' || fail "--sides --json: $(head -c 3000 "$tmp/sides.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert [s["name"] for s in d["sides"]] == ["plain", "plain again", "taxed"], d["sides"]
assert len(d["cases"]) == 2, d["cases"]
for c in d["cases"]:
    a, b, taxed = c["counts_per_run"]
    assert a == b and taxed > a, c
    assert c["first_change"]["side"] == "taxed" and c["first_change"]["index"] == 2, c
    assert c["first_change"]["delta_pct"] > 0 and len(c["changes"]) == 1, c
capabilities = []
for side in d["sides"]:
    results = side["results"]
    assert len(results["instruction_counts"]) == 2, results
    for counts in results["instruction_counts"]:
        node = results["nodes"][counts["metadata"]["node"]]
        assert node["host"] == sys.argv[2] and node["cpus"] >= 1 and node["cpu_model"], node
        assert node["valgrind"].startswith("valgrind-"), node
        capabilities.append(node["aten_cpu_capability"])
# What valgrind's CPUID offers (AVX2 on valgrind 3.19), then what the side forced.
assert capabilities[0] in ("AVX2", "AVX512") and capabilities[:4] == capabilities[:1] * 4, capabilities
assert capabilities[4:] == ["DEFAULT"] * 2, capabilities
assert "ATen's CPU capability %s vs DEFAULT" % capabilities[0] in d["node_warnings"][0], d["node_warnings"]
PY
"$history" --db="$tmp/sides.db" list > "$tmp/sides_list.txt" || fail "history list (sides)"
grep -Eq "^ +3 +\| +[0-9TZ:-]+ taxed +\|.*\| +ab_test --sides +\| +2 / 0 +\|" "$tmp/sides_list.txt" \
  || fail "--sides history: $(cat "$tmp/sides_list.txt")"
step "bad sides files"
printf 'true\n' > "$tmp/one_side.txt"
printf 'true\n[b] true\n[b] false\n' > "$tmp/twice.txt"
expect_first_line "$ab_test" "ab_test: $tmp/one_side.txt: 1 side; --sides needs at least two lines, one shell command per environment" \
  --sides="$tmp/one_side.txt"
expect_first_line "$ab_test" "ab_test: $tmp/twice.txt:3: side name \"b\" is already used on line 2: give each side its own name" \
  --sides="$tmp/twice.txt"
expect_first_line "$ab_test" "ab_test: --sides replaces --A and --B and their _libtorch, _root and _worker flags (given: --A): give one or the other" \
  --sides="$tmp/sides.txt" --A=true
expect_first_line "$ab_test" "ab_test: --sides replaces --A and --B and their _libtorch, _root and _worker flags (given: --A_libtorch, --B_root): give one or the other" \
  --sides="$tmp/sides.txt" --B_root=sid --A_libtorch=/opt/libtorch
expect_first_line "$ab_test" "ab_test: --sides compares instruction counts only: for wall time, compare two of its environments with --A, --B and --display_time" \
  --sides="$tmp/sides.txt" --display_time
printf 'true\n[broken] exit 7\n' > "$tmp/broken_side.txt"
if "$ab_test" --sides="$tmp/broken_side.txt" --filter="$filter" > /dev/null 2> "$tmp/broken_side.err"; then
  fail "a broken side must fail"
fi
grep -q "^ab_test: $tmp/broken_side.txt:2: environment broken (exit 7) is broken" "$tmp/broken_side.err" \
  || fail "broken side message: $(cat "$tmp/broken_side.err")"

echo PASS
