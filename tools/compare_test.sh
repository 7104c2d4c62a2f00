#!/usr/bin/env bash
# Tests //tools:compare as a user runs it: output, exit status and messages.
#
# Under `bazel test` the binary and test data come from runfiles; to run it by
# hand, point COMPARE at a built binary and run it from the repository root:
#   COMPARE=/path/to/compare tools/compare_test.sh
# The Compare goldens (compare/testdata/*.txt) are the reference's output; see
# compare/testdata/make_goldens.py.
set -uo pipefail

if [[ -n "${TEST_SRCDIR:-}" ]]; then
  root="${TEST_SRCDIR}/${TEST_WORKSPACE}"
  compare="${root}/tools/compare"
else
  root="$(pwd)"
  compare="${COMPARE:?set COMPARE to the compare binary}"
fi
testdata="${root}/compare/testdata"
scratch="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# run NAME EXPECTED_STATUS ARGS...: runs compare in the test data directory
# (so file names in messages are short and stable), keeping stdout and stderr.
run() {
  local name="$1" expected="$2"
  shift 2
  (cd "${testdata}" && "${compare}" "$@") >"${scratch}/out" 2>"${scratch}/err"
  local status=$?
  if [[ "${status}" != "${expected}" ]]; then
    fail "${name}: exit status ${status}, expected ${expected}; stderr: $(cat "${scratch}/err")"
  fi
}

expect_stdout_file() {  # NAME FILE: stdout equals FILE byte for byte
  if ! cmp -s "${scratch}/out" "$2"; then
    fail "$1: stdout differs from $2:"
    diff "${scratch}/out" "$2" >&2
  fi
}

expect_stdout() {  # NAME TEXT
  printf '%s' "$2" >"${scratch}/expected"
  expect_stdout_file "$1" "${scratch}/expected"
}

expect_stderr() {  # NAME TEXT
  printf '%s' "$2" >"${scratch}/expected"
  if ! cmp -s "${scratch}/err" "${scratch}/expected"; then
    fail "$1: stderr differs:"
    diff "${scratch}/err" "${scratch}/expected" >&2
  fi
}

# Tables: Compare.print() output, i.e. the golden plus a newline.
run table 0 --input=mixed.json --trim_significant_figures --colorize=rowwise --highlight_warnings
{ cat "${testdata}/mixed_all.txt"; echo; } >"${scratch}/golden"
expect_stdout_file table "${scratch}/golden"

run table_columnwise 0 --input=units.json --colorize=columnwise
{ cat "${testdata}/units_columnwise.txt"; echo; } >"${scratch}/golden"
expect_stdout_file table_columnwise "${scratch}/golden"

run table_plain 0 --input=units.json
{ cat "${testdata}/units_plain.txt"; echo; } >"${scratch}/golden"
expect_stdout_file table_plain "${scratch}/golden"

run summary 0 --input=units.json --summary
expect_stdout_file summary "${testdata}/units_summary.txt"

# Wall-time deltas against a baseline: equal, significant, noisy (IQRs
# overlap; fewer than 4 times) and one-sided cells.
run baseline 0 --input=delta_b.json --baseline=delta_a.json
expect_stdout baseline "\
[------------- Wall time: delta_b.json (B) against delta_a.json (A) -------------]
Benchmark    Threads  |             float             |            double         
add / 4x4          1  |                          ...  |  +1.00 us  7.08 us  +16.4%
                   4  |  -1.10 us   8.10 us  ~-12.0%  |                           
add / 16x16        1  |  +0.10 us  20.85 us  ~+0.48%  |                           
div / 4x4          1  |              B only: 4.08 us  |                           
mul / 4x4          1  |              A only: 3.03 us  |                           

Wall time, median per run: B - A, B, (B - A) / A; \"...\" where A and B are equal.
~: within noise; the interquartile ranges overlap or a side has fewer than 4 times.
A only, B only: measured on one side only.
"

run baseline_colour 0 --input=delta_b.json --baseline=delta_a.json --colorize=columnwise
if ! grep -qF $'|  \e[31m+1.00 us  7.08 us  +16.4%\e[0m' "${scratch}/out"; then
  fail "baseline_colour: the +16.4% change is not red"
fi
if ! grep -qF $'\e[90m-1.10 us   8.10 us  ~-12.0%\e[0m' "${scratch}/out"; then
  fail "baseline_colour: the change within noise is not grey"
fi

run baseline_markdown 0 --input=delta_b.json --baseline=delta_a.json --markdown
expect_stdout baseline_markdown "\
**Wall time: delta_b.json (B) against delta_a.json (A)**

| Benchmark | Threads | float | double |
| :--- | ---: | ---: | ---: |
| add / 4x4 | 1 | ... | 🔴 +1.00 us (7.08 us, +16.4%) |
|  | 4 | _-1.10 us (8.10 us, \\~-12.0%)_ |  |
| add / 16x16 | 1 | _+0.10 us (20.85 us, \\~+0.48%)_ |  |
| div / 4x4 | 1 | B only: 4.08 us |  |
| mul / 4x4 | 1 | A only: 3.03 us |  |

- Wall time, median per run: B - A (B, (B - A) / A); \"...\" where A and B are equal.
- \\~ (italics): within noise; the interquartile ranges overlap or a side has fewer than 4 times.
- A only, B only: measured on one side only.
- 🟢 faster by >=0.5%; 🟡 slower by >=0.5%; 🔴 slower by >=10% (bold from 50%).
"

# Nothing to show is not an error.
printf '{"measurements": []}\n' >"${scratch}/empty.json"
run empty 0 --input="${scratch}/empty.json"
expect_stdout empty ""
expect_stderr empty "compare: ${scratch}/empty.json has no measurements; nothing to show
"

# Bad input: exit 1 with the file and the position of the mistake.
printf '{"measurements": [\n  {"label": "x",, }\n]}\n' >"${scratch}/corrupt.json"
run corrupt 1 --input="${scratch}/corrupt.json"
expect_stdout corrupt ""
expect_stderr corrupt "compare: ${scratch}/corrupt.json:2:17: invalid JSON: expected an object key in double quotes
    {\"label\": \"x\",, }
                  ^
"

printf '{"measurements": [{"label": "x", "raw_times": [1e-3, 2.' >"${scratch}/truncated.json"
run truncated 1 --input="${scratch}/truncated.json"
expect_stderr truncated "compare: ${scratch}/truncated.json:1:56: invalid JSON: expected a digit after the decimal point
  {\"measurements\": [{\"label\": \"x\", \"raw_times\": [1e-3, 2.
                                                         ^
"

# A corrupt baseline is reported as well.
run corrupt_baseline 1 --input=delta_b.json --baseline="${scratch}/corrupt.json"
if ! grep -qF "${scratch}/corrupt.json:2:17: invalid JSON" "${scratch}/err"; then
  fail "corrupt_baseline: stderr does not locate the error: $(cat "${scratch}/err")"
fi

run missing 1 --input=no_such_file.json
# Paths in messages are absolute, taken from where compare ran.
expect_stderr missing "compare: $(cd "${testdata}" && pwd -P)/no_such_file.json: cannot open: No such file or directory
"

printf '{"measurments": []}\n' >"${scratch}/misspelt.json"
run misspelt 1 --input="${scratch}/misspelt.json"
if ! grep -qF "misspelt.json: not a valid icount results file" "${scratch}/err" ||
   ! grep -qF "measurments" "${scratch}/err"; then
  fail "misspelt: stderr does not name the file and field: $(cat "${scratch}/err")"
fi

# Missing, empty and unreadable files; a bad baseline; impossible values; unknown flags.
run missing_baseline 1 --input=delta_b.json --baseline=no_such_file.json
expect_stderr missing_baseline "compare: $(cd "${testdata}" && pwd -P)/no_such_file.json: cannot open: No such file or directory
"
run truncated_baseline 1 --input=delta_b.json --baseline="${scratch}/truncated.json"
grep -qF "${scratch}/truncated.json:1:56: invalid JSON" "${scratch}/err" ||
  fail "truncated_baseline: $(cat "${scratch}/err")"
: >"${scratch}/zero_bytes.json"
run zero_bytes 1 --input="${scratch}/zero_bytes.json"
grep -qF "compare: ${scratch}/zero_bytes.json:1:1: invalid JSON: unexpected end of file" "${scratch}/err" ||
  fail "zero_bytes: $(cat "${scratch}/err")"
# Unreadable: as root, without the capabilities that let root read anything.
printf '{"measurements": []}\n' >"${scratch}/unreadable.json"
chmod 000 "${scratch}/unreadable.json"
unprivileged=()
[[ "$(id -u)" == 0 ]] && unprivileged=(setpriv --bounding-set=-dac_override,-dac_read_search)
"${unprivileged[@]}" "${compare}" --input="${scratch}/unreadable.json" >/dev/null 2>"${scratch}/err"
[[ $? == 1 ]] || fail "unreadable: exit status should be 1"
expect_stderr unreadable "compare: ${scratch}/unreadable.json: cannot open: Permission denied
"
run directory 1 --input="${scratch}"
expect_stderr directory "compare: ${scratch}: is a directory, not a file
"
printf '{"measurements": [{"stmt": "x", "number_per_run": 0, "raw_times": [1]}]}\n' >"${scratch}/zero_number.json"
run zero_number 1 --input="${scratch}/zero_number.json"
expect_stderr zero_number "compare: ${scratch}/zero_number.json: measurement 1: number_per_run must be positive, got 0
"
printf '{"measurements": [{"stmt": "x", "number_per_run": 1, "raw_times": [-1]}]}\n' >"${scratch}/negative_time.json"
run negative_time 1 --input="${scratch}/negative_time.json"
expect_stderr negative_time "compare: ${scratch}/negative_time.json: measurement 1: raw_times must be finite, non-negative seconds, got -1
"
printf '{"instruction_counts": [{"number_per_run": 10, "counts": ["-5"]}]}\n' >"${scratch}/negative_count.json"
run negative_count 1 --input="${scratch}/negative_count.json"
expect_stderr negative_count "compare: ${scratch}/negative_count.json: instruction_counts 1: counts are instructions and cannot be negative, got -5
"
printf '{"schema_version": 99, "versions": {"timer": "9.0.0"}, "measurements": []}\n' >"${scratch}/future.json"
run future 1 --input="${scratch}/future.json"
grep -qF "schema_version 99 (written by timer 9.0.0) is newer than this build reads" "${scratch}/err" ||
  fail "future: $(cat "${scratch}/err")"
run unknown_flag 1 --input=units.json --no_such_flag
expect_stderr unknown_flag "ERROR: Unknown command line flag 'no_such_flag'
"
run filter_flag 1 --input=units.json --filter=add   # compare has no --filter
# Abseil's own words; newer releases add a suggestion ("Did you mean: ...").
if ! grep -qx "ERROR: Unknown command line flag 'filter'\(\. Did you mean: .*\)\?" "${scratch}/err"; then
  fail "filter_flag: stderr: $(cat "${scratch}/err")"
fi

# Bad flags.
run no_input 1
expect_stderr no_input "compare: --input is required, e.g. --input=results.json (see --help)
"
# --figures=blocks: main's tables. 50 blocks of 1,000 runs, 212 and 214 ns
# a run: two figures by the blocks, one under the reference's 25 ns floor.
{
  printf '{"measurements": [{"label": "add", "sub_label": "x + y", "description": "C++", '
  printf '"num_threads": 1, "stmt": "x + y", "number_per_run": 1000, "raw_times": ['
  for i in $(seq 0 49); do
    [[ $i -gt 0 ]] && printf ', '
    if ((i % 2)); then printf '0.000214'; else printf '0.000212'; fi
  done
  printf ']}]}\n'
} >"${scratch}/blocks.json"
run figures_blocks 0 --input="${scratch}/blocks.json" --figures=blocks
grep -q "x + y  |  210$" "${scratch}/out" || fail "figures_blocks: $(cat "${scratch}/out")"
run figures_reference 0 --input="${scratch}/blocks.json" --trim_significant_figures
grep -q "x + y  |  200$" "${scratch}/out" || fail "figures_reference: $(cat "${scratch}/out")"
run bad_figures 1 --input=units.json --figures=many
expect_stderr bad_figures "compare: --figures=many is not one of reference, blocks
"

run bad_colorize 1 --input=units.json --colorize=purple
expect_stderr bad_colorize "compare: --colorize=purple is not one of none, columnwise, rowwise
"
run markdown_alone 1 --input=units.json --markdown
run summary_and_baseline 1 --input=units.json --summary --baseline=units.json
run positional 1 units.json
expect_stderr positional "compare: unexpected argument 'units.json'; name the results file with --input=FILE.json
"

# --version names every library; --help describes the flags.
run version 0 --version
if ! grep -qE '^icount libraries: timer [0-9.]+, compare [0-9.]+' "${scratch}/out"; then
  fail "version: unexpected output: $(cat "${scratch}/out")"
fi
(cd "${testdata}" && "${compare}" --help) >"${scratch}/out" 2>&1
if ! grep -qF -- "--baseline" "${scratch}/out" || ! grep -qF "Renders saved icount results" "${scratch}/out"; then
  fail "help: usage text or flags missing"
fi

if ((failures > 0)); then
  echo "${failures} check(s) failed" >&2
  exit 1
fi
echo "PASS"
