#!/usr/bin/env bash
# //tools:ab_test: an interrupted run keeps its results and --resume finishes
# it; a run over old journals is refused. Backtesting: environments that
# declare an old LibTorch (ICOUNT_LIBTORCH_VERSION) skip the cases that need
# a newer one. Two identical environments show no change at all. C++ cases
# only: resuming does not depend on the language, and a C++-only worker
# skips `import torch` (~8 s under valgrind per worker; the A/B tests
# that count Python are //tests:ab_test_sides_test and ab_test_tax_test).
set -u
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/test_steps.sh"
ab_test="$PWD/$1"
tmp="$TEST_TMPDIR"

old="export ICOUNT_LIBTORCH_VERSION=1.8"
same_run=("$ab_test" --A="$old" --B="$old" --backtesting --no_python --json="$tmp/same.json" --colorize=false
  --filter='^(Empty / with allocation|Pointwise / Math / add / Case:  [0-2]|InferenceMode / View)$')
# Interrupted (SIGTERM) once A has journaled the first of its four counts,
# then resumed. A run that finished before the signal reached it (its last
# counts done within the 0.1 s poll) tells nothing and is started again, up
# to three times.
for attempt in 1 2 3; do
  step "a run interrupted once A has journaled a count (attempt $attempt)"
  rm -f "$tmp/same.json" "$tmp"/same.json.*.journal
  "${same_run[@]}" > /dev/null 2> "$tmp/interrupted.err" &
  pid=$!
  wait_for 600 "A's first journaled count" file_has_lines "$tmp/same.json.A.counts.journal" 2
  kill -TERM "$pid"
  wait "$pid" || break
done
[ -e "$tmp/same.json" ] && fail "three runs finished before they could be interrupted"
# The message names both sides' journals, whichever side the runner named.
grep -q "interrupted: .* kept in $tmp/same.json.[AB].counts.journal$" "$tmp/interrupted.err" \
  && grep -qx "ab_test: finished results are kept in $tmp/same.json.A.counts.journal, $tmp/same.json.B.counts.journal" \
    "$tmp/interrupted.err" \
  && grep -qx "ab_test: run the same command with --resume to continue" "$tmp/interrupted.err" \
  || fail "interrupt message: $(cat "$tmp/interrupted.err")"
step "a run over the interrupted run's journals"
"${same_run[@]}" > /dev/null 2> "$tmp/again.err" && fail "a run over old journals must fail"
grep -q "same.json.A.counts.journal exists from an earlier run: pass --resume" "$tmp/again.err" \
  || fail "old journal message: $(cat "$tmp/again.err")"
grep -q canary "$tmp/again.err" && fail "old journals must be reported before the canaries"
step "--resume"
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
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["skipped_by_backtesting"] == ["InferenceMode/View|Eager|Forward|C++|1"], d
b = d["libtorch"]["B"]
assert (b["version"], b["source"]) == ("1.8", "ICOUNT_LIBTORCH_VERSION"), b
assert re.match(r"torch [0-9.]+ \(Debian's system install\) at /usr \(", b["install"]), b
assert "fingerprint" not in b, b  # Debian's is not built for
assert d["A"]["versions"]["worker"] and d["B"]["versions"]["expand"], d["A"]["versions"]
assert all(c["label"] != "InferenceMode" for c in d["A"]["instruction_counts"]), d["A"]
# One comparison per case: identical counts, no wall time measured (what
# was not measured is absent).
assert sorted(c["case"] for c in d["comparisons"]) == sorted(
    ["Empty/with allocation|Eager|Forward|C++|1"] +
    ["Pointwise/Math/add/Case:  %d|Eager|Forward|C++|1" % i for i in range(3)]), d
for c in d["comparisons"]:
    assert c["counts_delta_pct"] == 0 and "time_delta_pct" not in c, c
    assert c["time_ci_pct"] == [] and c["time_significant"] is False, c
PY

echo PASS
