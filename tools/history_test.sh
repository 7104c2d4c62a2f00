#!/usr/bin/env bash
# //tools:history on a made-up history (//history:fake_history): 12 runs of
# 6 cases with a +3% count step in cases 0 and 5 at run r04, a +25%
# wall-time step in case 1 at run r08 and one heap allocation per run more
# in case 2 at run r06. Import, list, show, steps and
# export find exactly those; bad input gets clear messages and changes
# nothing.
set -u
history="$1"
fake_history="$2"
tmp="${TEST_TMPDIR:-/tmp}"
db="$tmp/h.db"
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_error() {  # expect_error PATTERN history-args...
  local pattern="$1"
  shift
  if "$history" "$@" > "$tmp/out.txt" 2> "$tmp/err.txt"; then fail "$* should fail"; fi
  grep -qF -- "$pattern" "$tmp/err.txt" || fail "no \"$pattern\" in: $(cat "$tmp/err.txt")"
}

mkdir -p "$tmp/runs"
"$fake_history" --runs=12 --cases=6 --output_dir="$tmp/runs" || fail "fake_history"

# Bad input before anything is stored.
expect_error "--db=FILE is required" list
expect_error "name a command" --db="$db"
expect_error "unknown command \"lst\"" --db="$db" lst
expect_error "$tmp/none.db: no such history store; record runs into it first" --db="$tmp/none.db" list
[ ! -e "$tmp/none.db" ] || fail "reading must not create a store"
printf 'name,count\nadd,1\n' > "$tmp/foreign.csv"
expect_error "$tmp/foreign.csv: not an icount history store (not an SQLite database, or a damaged one); it was left as it is" \
  --db="$tmp/foreign.csv" import "$tmp/runs/run_00.json"
[ "$(cat "$tmp/foreign.csv")" = "$(printf 'name,count\nadd,1')" ] || fail "the CSV was touched"
expect_error "$tmp/foreign.csv:1:1: invalid JSON" --db="$db" import "$tmp/foreign.csv"
grep -qF "(results files of main, ci, timeit, merge_results and the library, and ab_test's --json files, are read)" "$tmp/err.txt" \
  || fail "import of a CSV: $(cat "$tmp/err.txt")"
expect_error "holds no runs yet" --db="$db" steps
expect_error "holds no runs yet" --db="$db" show

for r in $(seq -w 0 11); do
  "$history" --db="$db" import "$tmp/runs/run_$r.json" --label="r$r" > "$tmp/import.txt" \
    || fail "import run $r: $(cat "$tmp/import.txt")"
done
grep -q "run_11.json: run 12 \"r11\" (6 counted, 6 timed measurements)" "$tmp/import.txt" \
  || fail "import output: $(cat "$tmp/import.txt")"
# The same run again, under another label: refused, nothing changes.
expect_error "is already in the store as run 5 (label \"r04\"" --db="$db" import "$tmp/runs/run_04.json" --label=again
"$history" --db="$db" list > "$tmp/list.txt" || fail "list"
grep -q "^12 runs in $db" "$tmp/list.txt" || fail "list: $(cat "$tmp/list.txt")"
grep -Eq "^ +5 +\| +r04 +\| +2026-01-01T00:00:04Z +\| +import +\| +6 / 6 +\| +testhost, 2 CPUs, Test CPU @ 1 GHz" \
  "$tmp/list.txt" || fail "run 5's row: $(cat "$tmp/list.txt")"

# steps: exactly the injected ones, at the right runs, with the function.
"$history" --db="$db" steps > "$tmp/steps.txt" || fail "steps: $(cat "$tmp/steps.txt")"
cat > "$tmp/expected_counts.txt" <<'EXPECTED'
counts: 2 steps in 2 of 6 cases (functions: exclusive instructions per run, largest changes)
Group / case 0 [C++ Eager, 1T]
  at run 5 "r04" (after run 4 "r03"): 2000.0 -> 2060.0 (+3.00%)
             +60.0   fake.c:grows [/usr/lib/libfake.so]
Group / case 5 [C++ Eager, 1T]
  at run 5 "r04" (after run 4 "r03"): 7000.0 -> 7210.0 (+3.00%)
            +210.0   fake.c:grows [/usr/lib/libfake.so]
EXPECTED
head -7 "$tmp/steps.txt" | diff "$tmp/expected_counts.txt" - || fail "count steps differ (above)"
grep -q '^time: 1 step in 1 of 6 cases' "$tmp/steps.txt" || fail "time steps: $(cat "$tmp/steps.txt")"
grep -A1 '^time:' "$tmp/steps.txt" | grep -q "Group / case 1 \[C++ Eager, 1T\]" || fail "time step case"
grep -Eq '^  at run 9 "r08" \(after run 8 "r07"\): [12]\.[0-9]+ us -> 2\.[0-9]+ us \(\+2[0-9]\.[0-9]+%\), held 4 runs$' \
  "$tmp/steps.txt" || fail "time step: $(cat "$tmp/steps.txt")"
"$history" --db="$db" steps --metric=allocations > "$tmp/allocations.txt" || fail "steps --metric=allocations"
cat > "$tmp/expected_allocations.txt" <<'EXPECTED'
allocations: 1 step in 1 of 6 cases (heap allocations per run)
Group / case 2 [C++ Eager, 1T]
  at run 7 "r06" (after run 6 "r05"): 3 -> 4 (+33.33%)
EXPECTED
diff "$tmp/expected_allocations.txt" <(head -3 "$tmp/allocations.txt") || fail "allocation steps differ (above)"
grep -q '^allocations: 1 step in 1 of 6 cases' "$tmp/steps.txt" || fail "steps without --metric: $(cat "$tmp/steps.txt")"
"$history" --db="$db" steps --metric=counts --since=r05 > "$tmp/since.txt" || fail "steps --since"
grep -q "^counts: 0 steps in 0 of 6 cases" "$tmp/since.txt" || fail "--since: $(cat "$tmp/since.txt")"
expect_error "no run is labelled \"r99\"" --db="$db" steps --since=r99
expect_error "no case matches --filter=nothing" --db="$db" steps --filter=nothing
expect_error "--metric=size: must be counts, allocations or time" --db="$db" steps --metric=size

# A step at a run whose valgrind and LibTorch changed says so; the
# wall-time step, on the same host, does not. The LibTorch of an imported
# file is the one its settings name.
mkdir -p "$tmp/moved"
/usr/bin/python3 - "$tmp/runs" "$tmp/moved" <<'PY' || fail "making the moved runs"
import json, sys
runs, moved = sys.argv[1:]
for r in range(12):
    run = json.load(open(f"{runs}/run_{r:02d}.json"))
    later = r >= 4
    run["settings"]["valgrind"] = "valgrind-3.24.0" if later else "valgrind-3.19.0"
    run["settings"]["libtorch_install"] = f"torch {'2.6.0' if later else '1.13.0'} (Debian's system install) at /usr"
    run["settings"]["toolchain"] = "Python 3.13.5, c++ 14.2.0, c++17" if later else "Python 3.11.2, g++ 12.2.0, c++17"
    json.dump(run, open(f"{moved}/run_{r:02d}.json", "w"))
PY
for r in $(seq -w 0 11); do
  "$history" --db="$tmp/moved.db" import "$tmp/moved/run_$r.json" --label="r$r" > /dev/null \
    || fail "import moved run $r"
done
"$history" --db="$tmp/moved.db" list > "$tmp/moved_list.txt" || fail "list of the moved runs"
grep -Eq "^ +5 +\| +r04 +\|.*\| +valgrind-3\.24\.0 +\| +2\.6\.0 *$" "$tmp/moved_list.txt" \
  || fail "the moved run's row: $(cat "$tmp/moved_list.txt")"
"$history" --db="$tmp/moved.db" steps > "$tmp/moved_steps.txt" || fail "steps of the moved runs"
moved_note='    the runs differ in more than the code (valgrind-3.19.0 -> valgrind-3.24.0; LibTorch 1.13.0 -> 2.6.0; toolchain Python 3.11.2, g++ 12.2.0, c++17 -> Python 3.13.5, c++ 14.2.0, c++17): the step may come from that'
[[ $(grep -cxF -- "$moved_note" "$tmp/moved_steps.txt") == 2 ]] \
  || fail "not noted at both count steps (the allocation step, at r06, follows a run like it): $(cat "$tmp/moved_steps.txt")"
grep -A1 '^  at run 9 "r08"' "$tmp/moved_steps.txt" | grep -q "differ in more than the code" \
  && fail "the wall-time step, on the same host and LibTorch before and after, was noted"
! grep -q "differ in more than the code" "$tmp/steps.txt" || fail "a note in the unmoved steps: $(cat "$tmp/steps.txt")"

# show: a sparkline and one row per run, the step marked.
"$history" --db="$db" show --filter='case 5\b' > "$tmp/show.txt" || fail "show"
grep -q "^Group / case 5 \[C++ Eager, 1T\]  (instructions per run)$" "$tmp/show.txt" || fail "show title"
grep -q "^  ▁▁▁▁████████  12 runs$" "$tmp/show.txt" || fail "sparkline: $(cat "$tmp/show.txt")"
grep -Eq "^ +5 +\| +r04 +\| +7210\.0 +\| +\+3\.00% +\| +step \+3\.00%" "$tmp/show.txt" \
  || fail "show row: $(cat "$tmp/show.txt")"
expect_error "no case has time matching --filter=nothing" --db="$db" show --filter=nothing --metric=time

# export: CSV of every run, and one run in Bencher Metric Format.
"$history" --db="$db" export --format=csv --output="$tmp/all.csv" || fail "export csv"
# Instructions, allocations and time: three rows per case and run.
[ "$(wc -l < "$tmp/all.csv")" -eq $((1 + 12 * 6 * 3)) ] || fail "CSV lines: $(wc -l < "$tmp/all.csv")"
grep -q '^7,r06,2026-01-01T00:00:06Z,Group/case 2|Eager|Forward|C++|1,"Group / case 2 \[C++ Eager, 1T\]",allocations_per_run,4,4,4$' \
  "$tmp/all.csv" || fail "CSV allocations row: $(grep 'r06' "$tmp/all.csv" | grep allocations | head -3)"
head -1 "$tmp/all.csv" | grep -qx "run,label,start_time,case,title,metric,value,low,high" || fail "CSV header"
grep -q '^5,r04,2026-01-01T00:00:04Z,Group/case 5|Eager|Forward|C++|1,"Group / case 5 \[C++ Eager, 1T\]",instructions_per_run,7210,7210,7210$' \
  "$tmp/all.csv" || fail "CSV row: $(grep 'r04' "$tmp/all.csv" | head -3)"
"$history" --db="$db" export --format=bmf --run=r04 > "$tmp/r04.json" || fail "export bmf"
/usr/bin/python3 - "$tmp/r04.json" <<'PY' || fail "BMF"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d) == 6, d.keys()
case5 = d["Group / case 5 [C++ Eager, 1T]"]
assert case5["instructions"] == {"value": 7210, "lower_value": 7210, "upper_value": 7210}, case5
assert case5["allocations"] == {"value": 3, "lower_value": 3, "upper_value": 3}, case5
latency = case5["latency"]
assert 5000 < latency["value"] < 7000 and latency["lower_value"] <= latency["value"] <= latency["upper_value"], latency
PY
expect_error "--run=r99: no run has that id or label" --db="$db" export --format=bmf --run=r99
expect_error "--format=xml: must be csv or bmf" --db="$db" export --format=xml

# A store in a directory this user cannot write: a clear error, at once.
# (root writes anywhere unless it gives up CAP_DAC_OVERRIDE.)
mkdir -p "$tmp/ro"
chmod 555 "$tmp/ro"
unprivileged=()
[ "$(id -u)" = 0 ] && unprivileged=(setpriv --bounding-set=-dac_override,-dac_read_search)
if "${unprivileged[@]}" "$history" --db="$tmp/ro/h.db" import "$tmp/runs/run_00.json" 2> "$tmp/ro.err"; then
  fail "a store in a read-only directory must fail"
fi
grep -q "$tmp/ro/h.db: cannot open: unable to open database file (is the path writable?)" "$tmp/ro.err" \
  || fail "read-only: $(cat "$tmp/ro.err")"
cp "$db" "$tmp/readonly.db"
chmod 444 "$tmp/readonly.db"
if "${unprivileged[@]}" "$history" --db="$tmp/readonly.db" import "$tmp/runs/run_00.json" 2> "$tmp/ro2.err"; then
  fail "a read-only store must fail"
fi
grep -q "$tmp/readonly.db: the store is read-only" "$tmp/ro2.err" || fail "read-only store: $(cat "$tmp/ro2.err")"
"${unprivileged[@]}" "$history" --db="$tmp/readonly.db" list > /dev/null || fail "a read-only store can be read"
echo PASS
