#!/usr/bin/env bash
# The whole standard suite counted, as `main` counts it for a user: every
# case that `main --list` names has an instruction count in the results,
# counted twice with the same count, and the run ends with exit 0. A case
# whose count is lost (a call tree that does not read back, a case left out
# of a batch) fails here, whichever case it is; the other tests count
# slices of the suite.
#
#   full_suite_counts_test.sh MAIN
set -u
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/test_steps.sh"
main="$PWD/$1"
tmp="$TEST_TMPDIR"

step "main --list --json: the cases of the suite"
"$main" --list --json > "$tmp/cases.jsonl" 2> "$tmp/list.log" \
  || fail "main --list --json: $(cat "$tmp/list.log")"

step "main --no_wall_time --repeats=2: every case counted twice"
"$main" --no_wall_time --repeats=2 --output="$tmp/run.json" > "$tmp/run.out" 2> "$tmp/run.log" \
  || { tail -40 "$tmp/run.log" >&2; fail "main over the whole suite failed"; }

/usr/bin/python3 - "$tmp/cases.jsonl" "$tmp/run.json" <<'PY' || fail "see above"
import collections, json, sys
cases_path, run_path = sys.argv[1:]

def key(label, sub_label, description, threads):
    return f"{label} / {sub_label} | {description} | {threads} thread(s)"

listed = collections.Counter()
for line in open(cases_path):
    case = json.loads(line)
    sub_label = " / ".join(case["label"][1:])
    if case["autograd"] == "Forward + Backward":
        sub_label += " (fwd+bwd)"
    listed[key(case["label"][0], sub_label, f"{case['language']} {case['runtime']}",
               case["num_threads"])] += 1
counted = collections.Counter()
unequal = []
for c in json.load(open(run_path))["instruction_counts"]:
    k = key(c["label"], c["sub_label"], c["description"], c["num_threads"])
    counted[k] += 1
    counts = [int(n) for n in c["counts"]]
    if len(counts) != 2 or counts[0] != counts[1] or counts[0] <= 0:
        unequal.append(f"{k}: {c['counts']}")
assert sum(listed.values()) > 150, f"main --list named only {sum(listed.values())} cases"
missing = sorted((listed - counted).elements())
extra = sorted((counted - listed).elements())
assert not missing and not extra, (
    f"{len(missing)} listed cases without a count: {missing[:10]}; "
    f"{len(extra)} counts of no listed case: {extra[:10]}")
assert not unequal, f"{len(unequal)} cases not counted twice alike: {unequal[:10]}"
print(f"{sum(counted.values())} cases counted, each twice with the same count")
PY
echo PASS
