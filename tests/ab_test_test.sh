#!/usr/bin/env bash
# //tools:ab_test end to end: environment B preloads libslow_malloc.so, which
# taxes every malloc; ab_test must report the count increase and name the
# preloaded function among the top per-function deltas. Two identical
# environments must show no change at all. Wall time alternates A and B in
# rounds. Backtesting: environments that declare an old LibTorch
# (ICOUNT_LIBTORCH_VERSION) skip the cases that need a newer one. An
# interrupted run keeps its results and --resume finishes it. Each side is
# recorded in --history as a run of its own, and --html draws the A/B.
# --sides compares three environments: where each case first changed, and
# the node (ATen capability) each case was counted on.
set -u
ab_test="$PWD/$1"
lib="$PWD/$2"
history="$PWD/$4"
report_page="$PWD/$5"
scaled_clock="$PWD/$6"
tmp="${TEST_TMPDIR:-/tmp}"
fail() { echo "FAIL: $*" >&2; exit 1; }
filter='^Empty / with allocation$'

"$ab_test" --A=true --B="export LD_PRELOAD=$lib" --filter="$filter" --colorize=false \
  --display_time --time_rounds=2 --history="$tmp/ab.db" --history_label=tax \
  --html="$tmp/slow.html" > "$tmp/slow.txt" 2> "$tmp/slow.err" || fail "ab_test failed: $(cat "$tmp/slow.err")"
cat "$tmp/slow.err" "$tmp/slow.txt"
grep -q "Python Eager (time)" "$tmp/slow.txt" || fail "--display_time shows no wall-time column"
rounds=$(grep -o "wall time, round . of 2, [AB]" "$tmp/slow.err" | tr '\n' ' ')
[ "$rounds" = "wall time, round 1 of 2, A wall time, round 1 of 2, B wall time, round 2 of 2, B wall time, round 2 of 2, A " ] \
  || fail "wall time should alternate A B, B A: $rounds"
# Two rounds are too few for a verdict on wall time: the cells say so.
grep -q "too few rounds (2 of 3 needed)" "$tmp/slow.txt" || fail "2 rounds must give no time verdict"
grep -q "icount_test_allocation_tax" "$tmp/slow.txt" || fail "the preloaded function is not named"
grep -Eq '\+[0-9.]+%' "$tmp/slow.txt" || fail "no count increase reported"
# --html: the page, in headless Chromium, draws every chart and shows the
# preloaded function grown in the differential flamegraphs.
python3 "$report_page" "$tmp/slow.html" --expect_grown=icount_test_allocation_tax \
  || fail "--html report"

# Each side is a run of its own in --history; between them, history finds
# the count steps and names the preloaded function.
"$history" --db="$tmp/ab.db" list > "$tmp/ab_list.txt" || fail "history list"
grep -Eq "^ +1 +\| +tax A +\|.*\| +ab_test A +\| +2 / 2 " "$tmp/ab_list.txt" || fail "run A: $(cat "$tmp/ab_list.txt")"
grep -Eq "^ +2 +\| +tax B +\|.*\| +ab_test B +\| +2 / 2 " "$tmp/ab_list.txt" || fail "run B: $(cat "$tmp/ab_list.txt")"
"$history" --db="$tmp/ab.db" steps --metric=counts > "$tmp/ab_steps.txt" || fail "history steps"
grep -q "^counts: 2 steps in 2 of 2 cases" "$tmp/ab_steps.txt" || fail "steps: $(cat "$tmp/ab_steps.txt")"
grep -q 'at run 2 "tax B" (after run 1 "tax A")' "$tmp/ab_steps.txt" || fail "step run: $(cat "$tmp/ab_steps.txt")"
grep -q "icount_test_allocation_tax" "$tmp/ab_steps.txt" || fail "the tax is not named: $(cat "$tmp/ab_steps.txt")"

real_version=$(/usr/bin/python3 -c 'import torch; print(torch.__version__)')
grep -q "^ab_test: A runs LibTorch ${real_version:0:4}[0-9.]* (from at::show_config())$" "$tmp/slow.err" \
  || fail "A's LibTorch (python: $real_version) not reported: $(cat "$tmp/slow.err")"

old="export ICOUNT_LIBTORCH_VERSION=1.8"
same_run=("$ab_test" --A="$old" --B="$old" --backtesting --json="$tmp/same.json" --colorize=false
  --filter='^(Empty / with allocation|InferenceMode / View)$')
# Interrupted once the first count is journaled, then resumed.
"${same_run[@]}" > /dev/null 2> "$tmp/interrupted.err" &
pid=$!
for _ in $(seq 1 240); do
  [ "$(cat "$tmp/same.json.A.counts.journal" 2> /dev/null | wc -l)" -ge 2 ] && break
  sleep 0.5
done
kill -TERM "$pid"
wait "$pid" && fail "an interrupted run must fail"
grep -q "interrupted: .* kept in $tmp/same.json.A.counts.journal; run the same command with --resume" \
  "$tmp/interrupted.err" || fail "interrupt message: $(cat "$tmp/interrupted.err")"
"${same_run[@]}" > /dev/null 2> "$tmp/again.err" && fail "a run over old journals must fail"
grep -q "same.json.A.counts.journal exists from an earlier run: pass --resume" "$tmp/again.err" \
  || fail "old journal message: $(cat "$tmp/again.err")"
grep -q canary "$tmp/again.err" && fail "old journals must be reported before the canaries"
"${same_run[@]}" --resume > "$tmp/same.txt" 2> "$tmp/same.err" \
  || fail "ab_test --resume failed: $(cat "$tmp/same.err")"
cat "$tmp/same.err" "$tmp/same.txt"
grep -q "results resumed from $tmp/same.json.A.counts.journal" "$tmp/same.err" \
  || fail "--resume should reuse A's journaled counts"
ls "$tmp"/same.json.*.journal 2> /dev/null && fail "journals must be removed after success"
if grep -Eq '[+-][0-9.]+%' "$tmp/same.txt"; then fail "identical environments show a change"; fi
grep -q '\.\.\.' "$tmp/same.txt" || fail "equal cells should read ..."
grep -q '^  InferenceMode / View | Eager | Forward | C++ | 1 thread (needs 1.9)$' "$tmp/same.err" \
  || fail "--backtesting should list the skipped case"
if grep -q InferenceMode "$tmp/same.txt"; then fail "a skipped case is in the table"; fi
/usr/bin/python3 - "$tmp/same.json" <<'PY' || fail "--json: $(cat "$tmp/same.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["skipped_by_backtesting"] == ["InferenceMode/View|Eager|Forward|C++|1"], d
assert d["libtorch"]["B"] == {"version": "1.8", "source": "ICOUNT_LIBTORCH_VERSION"}, d
assert d["A"]["versions"]["worker"] and d["B"]["versions"]["expand"], d["A"]["versions"]
assert all(c["label"] != "InferenceMode" for c in d["A"]["instruction_counts"]), d["A"]
# One comparison per case: identical counts, no wall time measured.
assert [c["case"] for c in d["comparisons"]] == ["Empty/with allocation|Eager|Forward|Python|1",
                                                 "Empty/with allocation|Eager|Forward|C++|1"], d
for c in d["comparisons"]:
    assert c["counts_delta_pct"] == 0 and c["time_delta_pct"] is None, c
    assert c["time_ci_pct"] is None and c["time_significant"] is False, c
PY

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
    assert c["counts_delta_pct"] is None and low <= c["time_delta_pct"] <= high, c
    assert c["time_rounds"] == 3 and c["time_verdict"] in ("unchanged", "slower", "faster"), c
    assert c["time_significant"] == (c["time_verdict"] != "unchanged"), c
    assert c["time_resolvable_pct"] > 0 and c["time_p_value"] is not None, c
PY

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

source "$3"  # expect_first_line
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
printf 'true\n' > "$tmp/one_side.txt"
printf 'true\n[b] true\n[b] false\n' > "$tmp/twice.txt"
expect_first_line "$ab_test" "ab_test: $tmp/one_side.txt: 1 side; --sides needs at least two lines, one shell command per environment" \
  --sides="$tmp/one_side.txt"
expect_first_line "$ab_test" "ab_test: $tmp/twice.txt:3: side name \"b\" is already used on line 2: give each side its own name" \
  --sides="$tmp/twice.txt"
expect_first_line "$ab_test" "ab_test: --sides replaces --A and --B (and their workers): give one or the other" \
  --sides="$tmp/sides.txt" --A=true
expect_first_line "$ab_test" "ab_test: --sides compares instruction counts only: for wall time, compare two of its environments with --A, --B and --display_time" \
  --sides="$tmp/sides.txt" --display_time
printf 'true\n[broken] exit 7\n' > "$tmp/broken_side.txt"
if "$ab_test" --sides="$tmp/broken_side.txt" --filter="$filter" > /dev/null 2> "$tmp/broken_side.err"; then
  fail "a broken side must fail"
fi
grep -q "^ab_test: $tmp/broken_side.txt:2: environment broken (exit 7) is broken" "$tmp/broken_side.err" \
  || fail "broken side message: $(cat "$tmp/broken_side.err")"

# Bad input stops before any long work.
"$ab_test" --A=true --B=true --display_time --min_run_time=0 > /dev/null 2> "$tmp/mrt.err" \
  && fail "--min_run_time=0 must fail"
grep -q -- "--min_run_time=0: must be greater than 0" "$tmp/mrt.err" \
  || fail "min_run_time message: $(cat "$tmp/mrt.err")"
if "$ab_test" --A=true --B=true --B_worker=/nonexistent/worker > /dev/null 2> "$tmp/worker.err"; then
  fail "a missing worker must fail"
fi
grep -q -- "--B_worker=/nonexistent/worker does not exist or is not executable" "$tmp/worker.err" \
  || fail "missing worker message: $(cat "$tmp/worker.err")"
if "$ab_test" --A="$old" --B=true --backtesting --filter='^InferenceMode' > /dev/null 2> "$tmp/none.err"; then
  fail "--backtesting with nothing left to run must fail"
fi
grep -q "leaves no case to run" "$tmp/none.err" || fail "nothing-left message: $(cat "$tmp/none.err")"
if "$ab_test" --A=true --B="export ICOUNT_LIBTORCH_VERSION=latest" --filter="$filter" \
  > /dev/null 2> "$tmp/bad_version.err"; then
  fail "an unreadable LibTorch version must fail"
fi
grep -q 'environment B reports an unreadable LibTorch version (from ICOUNT_LIBTORCH_VERSION): "latest"' \
  "$tmp/bad_version.err" || fail "bad version message: $(cat "$tmp/bad_version.err")"
# B's worker answers the LibTorch probe but dies under valgrind: the
# canaries run side by side, and the error names B's.
cat > "$tmp/probe_only_worker" <<EOF
#!/bin/sh
case " \$* " in *" --print_libtorch_version "*) exec "$PWD/definitions/full_suite_worker" "\$@" ;; esac
echo "probe_only_worker: refusing to measure" >&2
exit 3
EOF
chmod +x "$tmp/probe_only_worker"
if "$ab_test" --A=true --B=true --B_worker="$tmp/probe_only_worker" --filter="$filter" \
  > /dev/null 2> "$tmp/canary.err"; then
  fail "a side whose canary dies must fail"
fi
grep -q "^ab_test: canary in A, B at once...$" "$tmp/canary.err" || fail "canaries: $(cat "$tmp/canary.err")"
grep -q "^ab_test: environment B (true) is broken: its canary could not run: instruction counts cannot be collected" \
  "$tmp/canary.err" || fail "canary message: $(cat "$tmp/canary.err")"
grep -q "refusing to measure" "$tmp/canary.err" || fail "canary's worker output: $(cat "$tmp/canary.err")"
grep -q "Finished results are kept" "$tmp/canary.err" && fail "a canary keeps no results: $(cat "$tmp/canary.err")"
if "$ab_test" --A=true --B="exit 7" --filter="$filter" > /dev/null 2> "$tmp/broken.err"; then
  fail "a broken environment must fail"
fi
grep -q "environment B" "$tmp/broken.err" || fail "broken environment message: $(cat "$tmp/broken.err")"
expect_first_line "$ab_test" "ab_test: --A and --B are required (shell commands setting up each environment), or --sides=FILE" --A=true
expect_first_line "$ab_test" "ERROR: Unknown command line flag 'no_such_flag'" --A=true --B=true --no_such_flag
expect_first_line "$ab_test" 'ab_test: unexpected argument "x": this program takes only flags (--name=value; see --help)' --A=true --B=true x
expect_first_line "$ab_test" "ab_test: --filter=( is not a valid RE2 regex: missing ): (" --A=true --B=true --filter='('
expect_first_line "$ab_test" 'ab_test: no case matches --filter=^no such case$ (it is searched in labels such as "Pointwise / Math / add"; --list shows them all)' \
  --A=true --B=true --filter='^no such case$'
expect_first_line "$ab_test" "ab_test: --time_rounds=0: must be at least 1" --A=true --B=true --time_rounds=0
expect_first_line "$ab_test" "ab_test: --top=-1: must be at least 0" --A=true --B=true --top=-1
expect_first_line "$ab_test" "ab_test: --resume needs the --json of the run to continue" --A=true --B=true --resume
printf 'name,count\nadd,1\n' > "$tmp/foreign.csv"
if "$ab_test" --A=true --B=true --json="$tmp/foreign.csv" > /dev/null 2> "$tmp/foreign.err"; then fail "a CSV --json"; fi
grep -q -- "--json: $tmp/foreign.csv exists and is not a file this tool wrote" "$tmp/foreign.err" \
  || fail "foreign --json: $(cat "$tmp/foreign.err")"
[ "$(cat "$tmp/foreign.csv")" = "$(printf 'name,count\nadd,1')" ] || fail "ab_test touched the CSV"
echo PASS
