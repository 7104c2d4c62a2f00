#!/usr/bin/env bash
# //tools:main and //tools:ci end to end: listing, bad input, a small real
# run with durable results, the regression gate (exit 3) against a baseline
# whose count was lowered, and two runs recorded into one history store.
set -u
main="$1"
ci="$2"
history="$4"
tmp="$TEST_TMPDIR"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/test_steps.sh"

step "--list, --help, --version"
[ "$("$main" --list | wc -l)" -eq 201 ] || fail "--list should print 201 cases"
"$main" --list --json | head -1 | grep -q '^{"label": \["Empty", "no allocation"\], "runtime": "Eager", "autograd": "Forward", "language": "Python", "num_threads": 1}$' \
  || fail "--list --json first line: $("$main" --list --json | head -1)"
"$main" --list --json --filter='^InferenceMode / View$' | grep -q '"num_threads": 1, "min_libtorch_version": "1.9"}$' \
  || fail "--list --json should show a declared minimum LibTorch"
"$main" --help > "$tmp/help.txt" || fail "--help should exit 0"
grep -q -- "--filter" "$tmp/help.txt" || fail "--help should list --filter"
# The shared flags under their own sections, each flag in its file's one.
for section in "HTML report" "Recording into a history store" "Running on Slurm (--executor=slurm)"; do
  grep -qxF "$section:" "$tmp/help.txt" || fail "--help should have the section \"$section\""
done
[ "$(sed -n '/^Running on Slurm/,/^$/p' "$tmp/help.txt" | grep -c '^  --')" -eq 6 ] \
  || fail "--help should list the six Slurm flags under Running on Slurm: $(cat "$tmp/help.txt")"
grep -A1 -xF "HTML report:" "$tmp/help.txt" | grep -q -- '--html=""' || fail "--help should list --html under HTML report"
"$main" --version | grep -qE "^icount libraries: timer [0-9]+\.[0-9]+\.[0-9]+, compare [0-9.]+, fuzzer [0-9.]+, expand [0-9.]+, worker [0-9.]+, history [0-9.]+, report [0-9.]+, slurm [0-9.]+$" || fail "--version"
step "bad input"
# Bad input: exit 1 before anything runs, with this first line on stderr.
source "$3"  # expect_first_line
expect_first_line "$main" "main: --filter=( is not a valid RE2 regex: missing ): (" --filter='('
expect_first_line "$main" "ERROR: Unknown command line flag 'no_such_flag'" --no_such_flag
expect_first_line "$main" "main: --jobs sizes the local runner's workers; on Slurm each task starts as many as its node's CPUs and its shard keep busy: drop it" \
  --executor=slurm --shared_dir="$tmp" --jobs=2
no_match='main: no case matches --filter=^no such case$ (it is searched in labels such as "Pointwise / Math / add"; main --list shows them all)'
expect_first_line "$main" "$no_match" --filter='^no such case$'
expect_first_line "$main" "$no_match" --filter='^no such case$' --list
expect_first_line "$main" "main: --no_cpp and --no_python together leave no case to run: drop one of them" --no_cpp --no_python
expect_first_line "$main" "main: --no_counts and --no_wall_time together leave nothing to measure: drop one of them" --no_counts --no_wall_time
expect_first_line "$main" "main: unexpected argument \"results.json\": this program takes only flags (--name=value; see --help)" results.json
expect_first_line "$main" "main: --filter is given twice (--filter=add, then --filter=mul): it takes one value, and the second would replace the first; give it once" --filter=add --filter=mul
expect_first_line "$main" "main: --libtorch=/opt/libtorch and --root=sid do not combine: a side in a root measures the root's own torch and LibTorch; drop --root to measure /opt/libtorch on this machine, or drop --libtorch" --libtorch=/opt/libtorch --root=sid
expect_first_line "$main" "main: --min_run_time=-1: must be greater than 0" --min_run_time=-1
# A LibTorch directory has no Python cases: --no_cpp is refused before any
# build.
libtorch="$tmp/libtorch"
fake_libtorch_directory "$libtorch"
no_python_there="--no_cpp leaves the Python cases only, and --libtorch=$libtorch has none (a LibTorch directory has no torch Python package): drop --no_cpp to measure the C++ cases"
expect_first_line "$main" "main: $no_python_there" --libtorch="$libtorch" --no_cpp
expect_first_line "$ci" "ci: $no_python_there" --destination="$tmp/x.json" --libtorch="$libtorch" --no_cpp
expect_first_line "$main" "main: --repeats shapes the instruction counts, which --no_counts leaves out: drop one of them" --no_counts --repeats=3
expect_first_line "$main" "main: --min_run_time shapes the wall time, which --no_wall_time leaves out: drop one of them" --no_wall_time --min_run_time=1
expect_first_line "$main" "main: --callgrind_number=0: must be at least 1" --callgrind_number=0
expect_first_line "$main" "main: --repeats=0: must be at least 1" --repeats=0
expect_first_line "$main" "main: --jobs=-3: must be at least 0" --jobs=-3
expect_first_line "$main" "main: --timeout=0: must be greater than 0" --timeout=0
expect_first_line "$main" "main: --resume needs the --output of the run to continue" --resume
expect_first_line "$main" "main: --html=$tmp: is a directory; name the file to write" --html="$tmp"
expect_first_line "$main" "main: --html=/nonexistent/r.html: cannot write into /nonexistent/ (No such file or directory); create the directory or choose another" --html=/nonexistent/r.html
expect_first_line "$main" "main: --output=$tmp: is a directory; name the file to write" --output="$tmp"
expect_first_line "$ci" "ci: --destination is required"
expect_first_line "$ci" "ci: unexpected argument \"x\": this program takes only flags (--name=value; see --help)" --destination="$tmp/x.json" x
expect_first_line "$ci" "ci: no case matches --filter=^no such case$ (it is searched in labels such as \"Pointwise / Math / add\"; main --list shows them all)" \
  --destination="$tmp/x.json" --filter='^no such case$'
expect_first_line "$ci" "ci: --filter=( is not a valid RE2 regex: missing ): (" --destination="$tmp/x.json" --filter='('
expect_first_line "$ci" "ci: --no_cpp and --no_python together leave no case to run: drop one of them" \
  --destination="$tmp/x.json" --no_cpp --no_python
expect_first_line "$ci" "ci: --repeats=0: must be at least 1" --destination="$tmp/x.json" --repeats=0
expect_first_line "$ci" "ci: --jobs=-2: must be at least 0" --destination="$tmp/x.json" --jobs=-2
expect_first_line "$ci" "ci: --time_rounds=0: must be at least 1" --destination="$tmp/x.json" --time_rounds=0
expect_first_line "$ci" "ci: --json writes the comparisons with the baseline: it needs --baseline" \
  --destination="$tmp/x.json" --json="$tmp/x_gate.json"
expect_first_line "$ci" "ci: threshold_pct must be >= 0, got -5" --destination="$tmp/x.json" --threshold_pct=-5
expect_first_line "$ci" "ci: threshold override \"(\" is not a valid regex: missing ): (" --destination="$tmp/x.json" --overrides='(=5'
expect_first_line "$ci" "ERROR: Illegal value 'abc' specified for flag 'threshold_pct'" --destination="$tmp/x.json" --threshold_pct=abc
expect_first_line "$ci" "ci: --threshold_pct sets the gate against --baseline, and without one nothing is gated: add --baseline=FILE, or drop it" \
  --destination="$tmp/x.json" --threshold_pct=2
expect_first_line "$ci" "ci: --gate_on_time sets the gate against --baseline, and without one nothing is gated: add --baseline=FILE, or drop it" \
  --destination="$tmp/x.json" --gate_on_time
printf '{"measurements": [{"label": "x", "raw_times": [1e-3, 2.' > "$tmp/truncated.json"
expect_first_line "$ci" "ci: $tmp/truncated.json:1:56: invalid JSON: expected a digit after the decimal point" \
  --destination="$tmp/x.json" --baseline="$tmp/truncated.json"
printf '{"instruction_counts": [{"number_per_run": 10, "counts": ["-5"]}]}\n' > "$tmp/negative.json"
expect_first_line "$ci" "ci: $tmp/negative.json: instruction_counts 1: counts are instructions and cannot be negative, got -5" \
  --destination="$tmp/x.json" --baseline="$tmp/negative.json"
printf '{"measurements": [{"stmt": "x", "number_per_run": 1, "raw_times": [1]}]}\n' > "$tmp/no_counts.json"
expect_first_line "$ci" "ci: $tmp/no_counts.json: has no instruction counts to compare against" \
  --destination="$tmp/x.json" --baseline="$tmp/no_counts.json"
expect_first_line "$ci" "ci: /nonexistent.json: cannot open: No such file or directory" \
  --destination="$tmp/x.json" --baseline=/nonexistent.json
printf 'name,count\nadd,1\n' > "$tmp/foreign.csv"
[ ! -e "$tmp/x.json" ] || fail "a refused ci run must write nothing"
# --history is checked before the run: a path that cannot be written, or a
# file that is not a store, stops main and ci at once and is left alone.
expect_first_line "$main" "main: --history: /proc/icount.db: cannot open: unable to open database file (is the path writable?)" \
  --history=/proc/icount.db
expect_first_line "$ci" "ci: --history: $tmp/foreign.csv: not an icount history store (not an SQLite database, or a damaged one); it was left as it is. Give --db/--history a new file name or an existing store." \
  --destination="$tmp/x.json" --history="$tmp/foreign.csv"
if "$ci" --destination="$tmp/ci.json" --overrides='^Empty' 2> "$tmp/overrides.err"; then
  fail "a malformed --overrides must fail"
fi
grep -q -- '--overrides entry "^Empty" is not REGEX=PERCENT' "$tmp/overrides.err" \
  || fail "--overrides message: $(cat "$tmp/overrides.err")"
# Neither tool overwrites a file that is not an icount results file.
printf 'name,count\nadd,1\n' > "$tmp/foreign.csv"
if "$ci" --destination="$tmp/foreign.csv" 2> "$tmp/ci_foreign.err"; then fail "ci: a CSV destination"; fi
grep -q -- "--destination: $tmp/foreign.csv exists and is not an icount results file" \
  "$tmp/ci_foreign.err" || fail "ci foreign destination: $(cat "$tmp/ci_foreign.err")"
[ "$(cat "$tmp/foreign.csv")" = "$(printf 'name,count\nadd,1')" ] || fail "ci touched the CSV"

step "a real run of two cases with --html and --cache_sim"
# A real run: two cases, counts (with heap allocations and estimated
# cycles) and wall time, results written, and the HTML report (drawn in a
# browser by //tests:report_browser_test).
"$main" --filter='^Empty / no allocation$' --jobs=1 --output="$tmp/main.json" --html="$tmp/main.html" --cache_sim \
  > "$tmp/main.out" 2> "$tmp/main.err" || fail "main run failed: $(cat "$tmp/main.err")"
grep -q "icount: HTML report written to $tmp/main.html" "$tmp/main.err" || fail "--html not reported"
grep -q '"title":"icount main","kind":"run"' "$tmp/main.html" || fail "--html page: $(head -c 300 "$tmp/main.html")"
grep -q "Empty / no allocation" "$tmp/main.out" || fail "counts table missing"
grep -q "^Allocations per run " "$tmp/main.out" || fail "allocations table missing"
grep -q "^Estimated cycles per run " "$tmp/main.out" || fail "--cache_sim: cycles table missing"
/usr/bin/python3 - "$tmp/main.json" <<'PY' || fail "results file"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["measurements"]) == 2, d["measurements"]
assert len(d["instruction_counts"]) == 2
assert all(c["counts_per_run"] > 0 for c in d["instruction_counts"])
# Heap allocations: whole numbers (a tensor's), as many frees. Estimated
# cycles: above the instructions; the cache model recorded.
for c in d["instruction_counts"]:
    assert c["allocations_per_run"] >= 1 and c["allocations_per_run"] == int(c["allocations_per_run"]), c
    assert c["frees_per_run"] == c["allocations_per_run"], c
    assert c["estimated_cycles_per_run"] > c["counts_per_run"], c
assert "LL 8388608 B 16-way" in d["settings"]["cache_model"], d["settings"]
assert "--cache-sim=yes" in d["settings"]["valgrind_options"], d["settings"]
assert set(d["versions"]) == {"timer", "compare", "fuzzer", "expand", "worker", "history", "report", "slurm"}, d["versions"]
# Every case's call tree: the measured block on top, costs that add up.
for c in d["instruction_counts"]:
    t = c["call_tree"]
    assert t["parent"][0] == -1 and t["inclusive"][0] <= t["total"], t
    assert all(s <= i for s, i in zip(t["self"], t["inclusive"])), t
    # Functions travel as their keys' fields, never as text to take apart.
    assert len(t["keys"]) == max(t["function"]) + 1 and "functions" not in t, t
    assert all(k["file"] and k["function"] for k in t["keys"]), t["keys"]
    assert all("key" in r and "function" not in r for r in c["exclusive"]["rows"]), c["exclusive"]
assert any(k["function"].startswith("(anonymous namespace)::icount_case_")
           for c in d["instruction_counts"] for k in c["call_tree"]["keys"]), "no C++ case's block"
assert d["machine"], d
assert "'--filter=^Empty / no allocation$'" in d["command"], d["command"]
PY
[ ! -e "$tmp/main.json.journal" ] || fail "journal should be gone after success"

step "an --env whose virtual environment has no torch: Debian's PyTorch, with Debian's Python"
# The venv's python3 comes first on PATH; the worker's Python must still
# find Debian's dist-packages (wall time only: the point is the import).
/usr/bin/python3 -m venv --without-pip "$tmp/notorch" || fail "cannot make a virtual environment"
"$main" --env=". $tmp/notorch/bin/activate" --filter='^Empty / no allocation$' --no_cpp \
  --no_counts --min_run_time=0.01 --output="$tmp/notorch.json" > /dev/null 2> "$tmp/notorch.err" \
  || fail "a venv without torch: $(tail -20 "$tmp/notorch.err")"
grep -q "measures Debian's system PyTorch" "$tmp/notorch.err" || fail "which PyTorch: $(cat "$tmp/notorch.err")"
/usr/bin/python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d['measurements']) == 1 and not d.get('failures'), d
" "$tmp/notorch.json" || fail "venv run results"

step "a valgrind that dies of SIGILL"
# A machine where valgrind cannot run LibTorch (a CPU whose CPUID hides
# RDTSCP, seen before icount replaced libhwy's use of it): a stand-in
# valgrind writes such a log and dies of SIGILL. main stops at once, naming
# the instruction, the function and the library, and the log reaches CI
# (stderr is not a terminal here).
mkdir -p "$tmp/standin"
cat > "$tmp/standin/valgrind" <<'STANDIN'
#!/bin/sh
for a in "$@"; do
  case "$a" in --log-file=*) cat > "${a#--log-file=}" <<'LOG'
==8806== Callgrind, a call-graph generating cache profiler
vex amd64->IR: unhandled instruction bytes: 0xF 0x1 0xF9 0x48 0xC1 0xE2 0x20 0x48 0x9 0xD0
==8806== valgrind: Unrecognised instruction at address 0x1d584522.
==8806==    at 0x1D584522: hwy::platform::TimerResolution() (in /usr/lib/x86_64-linux-gnu/libhwy.so.1.0.3)
==8806==    by 0x1D582218: ??? (in /usr/lib/x86_64-linux-gnu/libhwy.so.1.0.3)
LOG
  ;; esac
done
kill -ILL $$
STANDIN
chmod +x "$tmp/standin/valgrind"
PATH="$tmp/standin:$PATH" "$main" --filter='^Empty / no allocation$' --no_wall_time \
  --output="$tmp/cannot.json" > /dev/null 2> "$tmp/cannot.err"
[ $? -eq 1 ] || fail "a run that cannot count must exit 1: $(cat "$tmp/cannot.err")"
grep -q "^main: instruction counts cannot be collected: the worker under valgrind died before measuring anything (killed by signal 4" "$tmp/cannot.err" \
  || fail "no clear stop: $(cat "$tmp/cannot.err")"
grep -q "valgrind cannot run the instruction RDTSCP (bytes 0xF 0x1 0xF9 0x48) in hwy::platform::TimerResolution() (/usr/lib/x86_64-linux-gnu/libhwy.so.1.0.3)" "$tmp/cannot.err" \
  || fail "the instruction, function and library are not named: $(cat "$tmp/cannot.err")"
if grep -q "(no output)" "$tmp/cannot.err"; then fail "(no output) reached the user"; fi
rm -f "$tmp/cannot.json.journal"

step "ci: a baseline, then the same build against it"
# The gate: a baseline with a 20% lower count must make ci exit 3. The
# baseline and the identical rerun below also go into one history store.
# ci counts the C++ case only: the gate, its page and the history do not
# depend on the language, and a C++-only worker skips `import torch` (~8 s
# under valgrind per run); the run above counts both.
ci_case=(--filter='^Empty / no allocation$' --no_python)
"$ci" "${ci_case[@]}" --jobs=1 --repeats=1 --destination="$tmp/base.json" \
  --history="$tmp/h.db" --history_label=first > /dev/null 2> "$tmp/ci_history.err" \
  || fail "ci baseline run failed: $(cat "$tmp/ci_history.err")"
grep -q "^ci: recorded as run 1 \"first\" in $tmp/h.db$" "$tmp/ci_history.err" \
  || fail "ci --history: $(cat "$tmp/ci_history.err")"
/usr/bin/python3 - "$tmp/base.json" "$tmp/lowered.json" <<'PY' || fail "editing the baseline"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["versions"]["timer"] and d["suite_checksum"] and d["start_time"] and d["end_time"]
# Which settings were in force when the counts were taken.
s = d["settings"]
assert s["valgrind"].startswith("valgrind-3."), s
assert "--tool=callgrind" in s["valgrind_options"] and "--num-transtab-sectors=" in s["valgrind_options"], s
assert s["baseline"].startswith("one per worker"), s
for c in d["instruction_counts"]:
    c["counts_per_run"] *= 0.8
json.dump(d, open(sys.argv[2], "w"))
PY
"$ci" "${ci_case[@]}" --jobs=1 --repeats=1 --destination="$tmp/again.json" \
  --baseline="$tmp/base.json" --history="$tmp/h.db" --history_label=second \
  --json="$tmp/same.json" --html="$tmp/ci.html" > "$tmp/same.md" 2>/dev/null
[ $? -eq 0 ] || fail "identical code should pass the gate: $(cat "$tmp/same.md")"
# ci --html: the page compares with the baseline, its wall-time changes
# and intervals the gate's own.
sed -n 's|^<script id="icount-data" type="application/json">\(.*\)</script>$|\1|p' "$tmp/ci.html" \
  > "$tmp/ci_page.json"
/usr/bin/python3 - "$tmp/ci_page.json" "$tmp/same.json" <<'PY' || fail "ci --html page"
import json, sys
page, gate = (json.load(open(p)) for p in sys.argv[1:])
assert page["kind"] == "comparison" and page["title"] == "icount ci", page["title"]
by_key = {c["key"]: c["delta"] for c in page["cases"]}
assert len(by_key) == 1 and len(page["history_runs"]) == 2, (by_key, page["history_runs"])
for c in gate["comparisons"]:
    t = by_key[c["case"]]
    # The gate's JSON has 6 significant figures: equal to a relative 1e-5.
    close = lambda x, y: abs(x - y) <= 1e-5 * abs(y) + 1e-9
    assert close(t["time_delta_pct"], c["time_delta_pct"]) and t["time_significant"] == c["time_significant"], (t, c)
    assert all(close(x, y) for x, y in zip(t["time_ci_pct"], c["time_ci_pct"])), (t, c)
PY
# Wall time: 3 rounds on each side (one measurement per case and round),
# compared with an interval; counts unchanged.
/usr/bin/python3 - "$tmp/again.json" "$tmp/same.json" <<'PY' || fail "ci wall-time comparisons: $(cat "$tmp/same.json")"
import json, sys
results, gate = (json.load(open(p)) for p in sys.argv[1:])
assert sorted(m["metadata"]["round"] for m in results["measurements"]) == ["0", "1", "2"]
assert gate["regressions"] == 0 and len(gate["comparisons"]) == 1, gate
for c in gate["comparisons"]:
    low, high = c["time_ci_pct"]
    assert c["counts_delta_pct"] == 0 and low <= c["time_delta_pct"] <= high, c
    assert c["time_rounds"] == 3 and c["time_verdict"] in ("unchanged", "slower", "faster"), c
PY
grep -q "^Wall time: each case's rounds against the baseline's" "$tmp/same.md" || fail "ci's wall-time legend"
step "history of the two ci runs"
# Two runs of the same build in one store: same counts, so no step; the
# store knows the machine, valgrind and LibTorch of each run.
"$history" --db="$tmp/h.db" list > "$tmp/list.txt" || fail "history list"
grep -q "2 runs in $tmp/h.db" "$tmp/list.txt" || fail "two runs: $(cat "$tmp/list.txt")"
# Debian's LibTorch release, major.minor.
libtorch=$(debian_libtorch_version)
libtorch=${libtorch%.*}
[[ $libtorch =~ ^[0-9]+\.[0-9]+$ ]] || fail "Debian's LibTorch version from its headers: '$libtorch'"
grep -Eq "^ +2 +\| +second +\|.*\| +ci +\| +1 / 1 +\|.*\| +valgrind-3\.[0-9.]+ +\| +${libtorch//./\\.}" "$tmp/list.txt" \
  || fail "run 2's row: $(cat "$tmp/list.txt")"
"$history" --db="$tmp/h.db" steps --metric=counts > "$tmp/steps.txt" || fail "history steps"
grep -q "^counts: 0 steps in 0 of 1 case " "$tmp/steps.txt" || fail "steps: $(cat "$tmp/steps.txt")"
"$history" --db="$tmp/h.db" export --format=csv | grep -c ",instructions_per_run," | grep -qx 2 \
  || fail "export: 2 runs x 1 case of counts"
if "$history" --db="$tmp/h.db" import "$tmp/base.json" 2> "$tmp/import.err"; then
  fail "importing a run --history already recorded must be refused"
fi
grep -q "is already in the store as run 1 (label \"first\"" "$tmp/import.err" \
  || fail "re-import: $(cat "$tmp/import.err")"
step "ci against a baseline with lower counts: the gate fails"
"$ci" "${ci_case[@]}" --jobs=1 --repeats=1 --destination="$tmp/again2.json" \
  --baseline="$tmp/lowered.json" > "$tmp/gate.md" 2>/dev/null
[ $? -eq 3 ] || fail "a 25% count increase should exit 3"
grep -q "1 instruction-count regression" "$tmp/gate.md" || fail "summary: $(cat "$tmp/gate.md")"
echo '{"schema_version": 99, "versions": {"timer": "9.0.0"}, "measurements": []}' > "$tmp/future.json"
if "$ci" --destination="$tmp/x.json" --baseline="$tmp/future.json" 2> "$tmp/future.err"; then
  fail "a baseline from a newer icount must fail before running"
fi
grep -q "schema_version 99 (written by timer 9.0.0) is newer than this build reads" "$tmp/future.err" \
  || fail "incompatible baseline message: $(cat "$tmp/future.err")"
[ ! -e "$tmp/x.json" ] || fail "nothing should be written for a bad baseline"
echo PASS
