#!/usr/bin/env bash
# //tools:merge_results: merges results files; refuses bad input and never
# overwrites a file that is not an icount results file.
set -u
merge="$1"
a="$2"
b="$3"
tmp="${TEST_TMPDIR:-/tmp}"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$merge" --output="$tmp/all.json" "$a" "$b" > "$tmp/out.txt" 2>&1 || fail "merge: $(cat "$tmp/out.txt")"
/usr/bin/python3 - "$a" "$b" "$tmp/all.json" <<'PY' || fail "merged file"
import json, sys
a, b, merged = (json.load(open(p)) for p in sys.argv[1:])
assert len(merged["measurements"]) == len(a["measurements"]) + len(b["measurements"]), merged
PY
# A results file there is replaced.
"$merge" --output="$tmp/all.json" "$a" "$b" > /dev/null 2>&1 || fail "replacing a results file"

expect_error() {  # expect_error PATTERN merge-args...
  local pattern="$1"
  shift
  if "$merge" "$@" > /dev/null 2> "$tmp/err.txt"; then fail "$* should fail"; fi
  grep -q -- "$pattern" "$tmp/err.txt" || fail "no \"$pattern\" in: $(cat "$tmp/err.txt")"
}
expect_error "need --output=FILE and at least one input file" "$a"
expect_error "no_such.json" --output="$tmp/x.json" "$a" "$tmp/no_such.json"
printf '{"measurements": [' > "$tmp/truncated.json"
expect_error "truncated.json:1:" --output="$tmp/y.json" "$a" "$tmp/truncated.json"
printf 'name,count\nadd,1\n' > "$tmp/foreign.csv"
expect_error "--output: $tmp/foreign.csv exists and is not an icount results file" \
  --output="$tmp/foreign.csv" "$a" "$b"
[ "$(cat "$tmp/foreign.csv")" = "$(printf 'name,count\nadd,1')" ] || fail "the CSV was touched"
printf '{"measurements": [\n  {"label": "x",, }\n]}\n' > "$tmp/corrupt.json"
expect_error "corrupt.json:2:17: invalid JSON: expected an object key in double quotes" \
  --output="$tmp/z1.json" "$a" "$tmp/corrupt.json"
: > "$tmp/zero_bytes.json"
expect_error "zero_bytes.json:1:1: invalid JSON: unexpected end of file" --output="$tmp/z2.json" "$tmp/zero_bytes.json"
printf '{"measurements": []}\n' > "$tmp/unreadable.json"
chmod 000 "$tmp/unreadable.json"
unprivileged=()  # root reads anything unless it gives up these capabilities
[ "$(id -u)" = 0 ] && unprivileged=(setpriv --bounding-set=-dac_override,-dac_read_search)
if "${unprivileged[@]}" "$merge" --output="$tmp/z3.json" "$tmp/unreadable.json" 2> "$tmp/err.txt"; then
  fail "an unreadable input should fail"
fi
grep -q -- "unreadable.json: cannot open: Permission denied" "$tmp/err.txt" || fail "unreadable: $(cat "$tmp/err.txt")"
expect_error "$tmp: is a directory, not a file" --output="$tmp/z8.json" "$tmp"
printf '{"instruction_counts": [{"number_per_run": 10, "counts": ["-5"]}]}\n' > "$tmp/negative.json"
expect_error "negative.json: instruction_counts 1: counts are instructions and cannot be negative, got -5" \
  --output="$tmp/z4.json" "$a" "$tmp/negative.json"
printf '{"measurements": [{"stmt": "x", "number_per_run": 0, "raw_times": [1]}]}\n' > "$tmp/zero_number.json"
expect_error "zero_number.json: measurement 1: number_per_run must be positive, got 0" \
  --output="$tmp/z5.json" "$tmp/zero_number.json"
printf '{"schema_version": 99, "versions": {"timer": "9.0.0"}, "measurements": []}\n' > "$tmp/future.json"
expect_error "future.json: schema_version 99 (written by timer 9.0.0) is newer" --output="$tmp/z6.json" "$tmp/future.json"
expect_error "Unknown command line flag 'no_such_flag'" --output="$tmp/z7.json" --no_such_flag "$a"
expect_error "$tmp/no_dir/m.json: cannot write" --output="$tmp/no_dir/m.json" "$a"
for n in 1 2 3 4 5 6 7 8; do [ ! -e "$tmp/z$n.json" ] || fail "a failed merge wrote $tmp/z$n.json"; done
[ ! -e "$tmp/x.json" ] && [ ! -e "$tmp/y.json" ] || fail "a failed merge wrote its output"
echo PASS
