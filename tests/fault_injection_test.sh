#!/usr/bin/env bash
# Faults injected into real runs of //tools:main: each case checks the
# message and that nothing finished is lost.
#   1. a second run on the same --output while one runs: refused, naming it;
#   2. SIGKILL of the runner mid-run, then a journal whose last line was cut
#      off (power loss while appending): --resume keeps every whole line,
#      reruns the rest, and the counts equal an uninterrupted run's;
#   3. a write past a file-size limit (ulimit -f): a clear error naming the
#      journal, every line written before intact, and --resume finishes;
#   4. --resume with no journal, and --output naming a file that is not an
#      icount results file or one of a newer schema: refused, untouched.
# (A worker killed mid-case, a hung and a crashing case: worker/runner_test.)
set -u
main="$1"
tmp="$TEST_TMPDIR"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/test_steps.sh"
# Four C++ count orders, one worker: they finish one by one. C++ only: what
# is journaled and resumed does not depend on the language, and the worker
# then skips `import torch` (~8 s under valgrind, for each of the 3 runs).
count_run=("$main" --filter='^(Empty / no allocation|Pointwise / Math / add / Case:  [0-2])$'
  --no_python --no_wall_time --jobs=1)
run() { "${count_run[@]}" "$@"; }

# Whole lines of JSON, the last one ended: what a journal must always be.
check_journal() {
  /usr/bin/python3 - "$1" <<'PY' || fail "$1 is not whole JSON lines"
import json, sys
text = open(sys.argv[1]).read()
assert text.endswith("\n"), repr(text[-80:])
for line in text.splitlines():
    json.loads(line)
PY
}

counts() {  # counts FILE: "case count" lines, sorted
  /usr/bin/python3 - "$1" <<'PY'
import json, sys
for c in sorted(json.load(open(sys.argv[1]))["instruction_counts"], key=lambda c: c["metadata"]["case"]):
    print(c["metadata"]["case"], c["counts"])
PY
}

step "the reference: an uninterrupted run"
run --output="$tmp/reference.json" > /dev/null 2> "$tmp/reference.err" \
  || fail "reference run: $(cat "$tmp/reference.err")"
[ "$(counts "$tmp/reference.json" | wc -l)" -eq 4 ] || fail "reference: $(counts "$tmp/reference.json")"

# 1 and 2: a run stopped (SIGSTOP) once one result is journaled, then
# killed with SIGKILL. Stopped, it writes nothing more and keeps its lock, so
# the second run below meets a run that is certainly still going. A run
# that journaled all four results before the stop reached it (possible only
# if the other three took less than the 0.1 s poll) tells nothing and is
# started again, up to three times.
out="$tmp/killed.json"
for attempt in 1 2 3; do
  step "a run stopped once one result is journaled (attempt $attempt)"
  rm -f "$out" "$out.journal"
  # main itself in the background (not a shell function: $! is main's pid).
  "${count_run[@]}" --output="$out" > /dev/null 2> "$tmp/killed.err" &
  runner=$!
  wait_for 600 "a journaled result ($(cat "$tmp/killed.err"))" file_has_lines "$out.journal" 2
  kill -STOP "$runner"
  kept=$(($(wc -l < "$out.journal") - 1))
  [ "$kept" -lt 4 ] && break
  kill -KILL "$runner"
  wait "$runner" 2>/dev/null
done
[ "$kept" -lt 4 ] || fail "three runs finished before they could be stopped"
step "a second run on the same output while the first holds it"
if run --output="$out" > /dev/null 2> "$tmp/second.err"; then fail "a second run on the same output must fail"; fi
grep -q "is being written by another icount run (pid $runner)" "$tmp/second.err" \
  || fail "second run: $(cat "$tmp/second.err")"
step "SIGKILL, a journal line cut off, --resume"
kill -KILL "$runner"
wait "$runner" 2>/dev/null
check_journal "$out.journal"
kept_ids=$(/usr/bin/python3 -c "
import json, sys
print([json.loads(l).get('id') for l in open(sys.argv[1])][1:])" "$out.journal")
[ ! -e "$out" ] || fail "a killed run must not have written $out"
printf '{"id":"cut off mid-wri' >> "$out.journal"  # power loss while appending
run --output="$out" --resume > /dev/null 2> "$tmp/resumed.err" || fail "resume: $(cat "$tmp/resumed.err")"
grep -q "$kept of 4 results resumed from $out.journal (its last line was cut off mid-write" \
  "$tmp/resumed.err" || fail "resume message: $(cat "$tmp/resumed.err")"
[ "$(counts "$out")" = "$(counts "$tmp/reference.json")" ] \
  || fail "resumed counts differ (kept from the killed run: $kept_ids): $(counts "$out") vs $(counts "$tmp/reference.json")"

step "a file-size limit"
# 3: a file-size limit that the journal reaches mid-run (wall time: nothing
# else written is big). Its lines are 57 bytes of header, then results of
# 0.5 KB (the first, 9 samples of Python) to 7 KB (more samples for cheaper
# C++ runs): the number of samples, and so the size, follows the machine's
# speed and load (a loaded CI machine once wrote a first result past 1 KB).
# So limits of 1, 2, 4 and 8 KB are tried in turn until one stops the run
# with at least one result journaled; a limit that holds all four fails.
out="$tmp/limited.json"
cases='^(Empty / no allocation|Pointwise / Math / add / Case:  0)$'  # 2 Python, 2 C++
timed() { "$main" --filter="$cases" --no_counts --jobs=1 --output="$out" "$@"; }
for kb in 1 2 4 8; do
  rm -f "$out" "$out.journal"
  ( ulimit -f "$kb"; timed > /dev/null 2> "$tmp/limited.err" )
  code=$?
  [ "$code" -eq 0 ] && fail "a file-size limit of $kb KB held the whole run: no write failed"
  [ "$(wc -l < "$out.journal")" -ge 2 ] && break
done
[ "$code" -eq 1 ] || fail "file-size limit: exit code $code: $(cat "$tmp/limited.err")"
# A write that starts below the limit is cut short; one that starts exactly at
# it (the lines before it filled the limit to the byte) fails with EFBIG.
grep -q -E "$out.journal: write failed: (only .* bytes written \(a full disk or a file-size limit\?\)|File too large)" \
  "$tmp/limited.err" || fail "file-size limit message: $(cat "$tmp/limited.err")"
check_journal "$out.journal"
[ "$(wc -l < "$out.journal")" -ge 2 ] || fail "no limit up to 8 KB left a result in the journal"
timed --resume > /dev/null 2> "$tmp/unlimited.err" || fail "resume after the limit: $(cat "$tmp/unlimited.err")"
/usr/bin/python3 -c "import json,sys; assert len(json.load(open(sys.argv[1]))['measurements']) == 4" "$out" \
  || fail "the resumed run should have 4 measurements"

step "nothing to resume; files that are not ours"
# 4: nothing to resume; files that are not ours.
if run --output="$tmp/never.json" --resume 2> "$tmp/never.err"; then fail "--resume without a journal"; fi
grep -q -- "--resume: there is no journal $tmp/never.json.journal to continue" "$tmp/never.err" \
  || fail "no-journal message: $(cat "$tmp/never.err")"
printf 'precious,data\n1,2\n' > "$tmp/precious.csv"
if run --output="$tmp/precious.csv" 2> "$tmp/precious.err"; then fail "a CSV must not be overwritten"; fi
grep -q -- "--output: $tmp/precious.csv exists and is not an icount results file" "$tmp/precious.err" \
  || fail "not-ours message: $(cat "$tmp/precious.err")"
[ "$(cat "$tmp/precious.csv")" = "$(printf 'precious,data\n1,2')" ] || fail "the CSV was touched"
printf '{"schema_version": 99, "measurements": []}\n' > "$tmp/newer.json"
if run --output="$tmp/newer.json" 2> "$tmp/newer.err"; then fail "a newer schema must not be overwritten"; fi
grep -q "schema_version 99 (written by an unknown version) is newer" "$tmp/newer.err" || fail "newer-schema message: $(cat "$tmp/newer.err")"
grep -q '"schema_version": 99' "$tmp/newer.json" || fail "the newer file was touched"
echo PASS
