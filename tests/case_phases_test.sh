#!/usr/bin/env bash
# bench/case_phases.py end to end on one case with 2 repeats: every process
# of the worker's tree logs its phases (base/phase_log.h), and the tree adds
# up, so the benchmark behind docs/main.md's "where a case's time goes" keeps
# working.
set -u
script="$1"
main="$2"
tmp="${TEST_TMPDIR:-/tmp}"
fail() { echo "FAIL: $*" >&2; exit 1; }

/usr/bin/python3 "$script" --main="$main" --repeats=2 > "$tmp/phases.txt" 2> "$tmp/phases.err" \
  || fail "case_phases.py failed: $(cat "$tmp/phases.err")"
/usr/bin/python3 - "$tmp/phases.txt" <<'PY' || fail "unexpected output: $(cat "$tmp/phases.txt")"
import re, sys
text = open(sys.argv[1]).read()
for language in ("C++", "Python"):
    section = text.split(f"== {language}: main took")[1].split("==")[0]
    case = section.split(f"the case ({language})")[1]
    rows = {}
    for line in case.splitlines():
        m = re.match(r"(\s*)(.+?)\s+(\d+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?\d+)\s+(-?\d+)$", line)
        if m:
            rows.setdefault(m.group(2), []).append((int(m.group(3)), float(m.group(4))))
    # The case process is the template; the runner parses the dumps.
    for name, n in [("zygote: case process (whole life)", 1), ("case: setup", 1),
                    ("case: warm-up (instrumented, 10 calls)", 1),
                    ("case: repeat (whole life)", 2), ("case's repeat: measured block", 2),
                    ("case's repeat: dump", 2),
                    ("runner: parse a case's dumps", 1),
                    ("worker: send the order, wait for the case", 1)]:
        assert name in rows and rows[name][0][0] == n, (language, name, rows.get(name))
    # It ends once measured, before stopping instrumentation.
    for name in ("case: template (whole life)", "case: parse the dumps",
                 "case: stop instrumentation"):
        assert name not in rows, (language, name)
    # The baseline is the worker's, measured once in a case process of its own.
    assert "case: baseline template (whole life)" not in rows, language
    baseline = section.split("the shared baseline")[1].split("\nthe case (")[0]
    assert re.search(r"case's repeat: measured block\s+1 ", baseline), (language, baseline)
    # A parent's wall time contains its children's: every phase is timed on
    # one clock (CLOCK_MONOTONIC) and a child's phases lie inside its
    # parent's, so what is left over is never negative, whatever the load,
    # beyond the table's rounding (its 3 decimals: 1 ms).
    whole = rows["zygote: case process (whole life)"][0][1]
    for n, wall in rows["rest (not logged: process start, exit, ...)"]:
        assert -0.001 <= wall <= whole, (language, wall, whole)
    assert "worker: start: valgrind, loading LibTorch, static init" in section, language
print("ok")
PY
echo PASS
