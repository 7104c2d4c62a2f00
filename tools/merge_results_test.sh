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
[ ! -e "$tmp/x.json" ] && [ ! -e "$tmp/y.json" ] || fail "a failed merge wrote its output"
echo PASS
