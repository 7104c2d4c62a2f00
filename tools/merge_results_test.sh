#!/usr/bin/env bash
# //tools:merge_results: merges the parts of one run (shards); refuses files
# that are not (overlapping cases, other versions, other suites, missing or
# repeated shards), bad input, and never overwrites a file that is not an
# icount results file.
set -u
merge="$1"
a="$2"
b="$3"
tmp="${TEST_TMPDIR:-/tmp}"
fail() { echo "FAIL: $*" >&2; exit 1; }

# Shards of one run ("shard": {"index": K, "total": N}, one suite_checksum),
# made by splitting $a: merged into one file with every case, no shard, and
# the failures kept.
/usr/bin/python3 - "$a" "$tmp" <<'PY' || fail "making shards"
import json, sys
d = json.load(open(sys.argv[1]))
base = {"versions": {"timer": "0.5.0"}, "suite_checksum": "abc", "settings": {"valgrind": "v"}}
for k, part in enumerate((d["measurements"][:2], d["measurements"][2:4], d["measurements"][4:])):
    for m in part:
        m.setdefault("metadata", {})["node"] = "box"
    shard = dict(base, measurements=part, shard={"index": k + 1, "total": 3})
    # Each file names its nodes by host; shard 2's "box" is another CPU.
    shard["nodes"] = {"box": {"host": "box", "cpu_model": "CPU %s" % ("B" if k == 1 else "A")}}
    if k == 2:
        shard["failures"] = {"Group/case|Eager|Forward|C++|1": "crash: made up"}
    json.dump(shard, open("%s/shard%d.json" % (sys.argv[2], k + 1), "w"))
    json.dump(dict(shard, versions={"timer": "0.4.0"}), open("%s/old%d.json" % (sys.argv[2], k + 1), "w"))
    # Another library named besides (as main's files name more than timeit's).
    json.dump(dict(shard, versions={"timer": "0.5.0", "compare": "0.7.0"}),
              open("%s/more%d.json" % (sys.argv[2], k + 1), "w"))
    json.dump(dict(shard, settings={"valgrind": "valgrind-3.27.1"}),
              open("%s/sid%d.json" % (sys.argv[2], k + 1), "w"))
    json.dump(dict(shard, suite_checksum="def"), open("%s/other%d.json" % (sys.argv[2], k + 1), "w"))
    json.dump(dict(shard, shard={"index": k + 1, "total": 4}), open("%s/four%d.json" % (sys.argv[2], k + 1), "w"))
    json.dump(dict(shard, shard={"index": 5, "total": 3}), open("%s/beyond%d.json" % (sys.argv[2], k + 1), "w"))
PY
"$merge" --output="$tmp/all.json" "$tmp/shard3.json" "$tmp/shard1.json" "$tmp/shard2.json" > "$tmp/out.txt" 2>&1 \
  || fail "merge: $(cat "$tmp/out.txt")"
grep -q "merged 3 files: 5 measurements, 0 instruction counts, 1 failure -> $tmp/all.json" "$tmp/out.txt" \
  || fail "merge output: $(cat "$tmp/out.txt")"
/usr/bin/python3 - "$a" "$tmp/all.json" <<'PY' || fail "merged file"
import json, sys
a, merged = (json.load(open(p)) for p in sys.argv[1:])
assert len(merged["measurements"]) == len(a["measurements"]), merged
assert merged["settings"] == {"valgrind": "v"} and merged["suite_checksum"] == "abc", merged["settings"]
assert "shard" not in merged, merged["shard"]
assert merged["failures"] == {"Group/case|Eager|Forward|C++|1": "crash: made up"}, merged["failures"]
assert merged["versions"] == {"timer": "0.5.0"}, merged["versions"]
# Node ids renamed into the merged file's: each case keeps its own node.
assert merged["nodes"] == {"box": {"host": "box", "cpu_model": "CPU A"},
                           "box#2": {"host": "box", "cpu_model": "CPU B"}}, merged["nodes"]
nodes = [m["metadata"]["node"] for m in merged["measurements"]]
assert sorted(nodes) == ["box"] * (len(nodes) - 2) + ["box#2"] * 2, nodes
PY
# A results file there is replaced.
"$merge" --output="$tmp/all.json" "$tmp/shard1.json" "$tmp/shard2.json" "$tmp/shard3.json" > /dev/null 2>&1 \
  || fail "replacing a results file"
# Files that are not parts of one run.
merge_error() {  # merge_error FIRST_LINE INPUTS...
  local message="$1"
  shift
  if "$merge" --output="$tmp/bad.json" "$@" > /dev/null 2> "$tmp/err.txt"; then fail "merging $* should fail"; fi
  [ "$(head -1 "$tmp/err.txt")" = "merge_results: $message" ] || fail "expected \"$message\", got: $(cat "$tmp/err.txt")"
  [ ! -e "$tmp/bad.json" ] || fail "a refused merge wrote its output"
}
merge_error "shard 2 of 3 missing: merge all shards of the run (or rerun the missing)" "$tmp/shard1.json" "$tmp/shard3.json"
merge_error "shards 2, 3 of 3 missing: merge all shards of the run (or rerun the missing)" "$tmp/shard1.json"
merge_error "$tmp/./shard1.json is $tmp/shard1.json, given before: name each part of the run once" "$tmp/shard1.json" "$tmp/./shard1.json"
cp "$tmp/shard1.json" "$tmp/copy1.json"
merge_error "$tmp/copy1.json and $tmp/shard1.json are both shard 1 of 3" "$tmp/shard1.json" "$tmp/copy1.json"
merge_error "$tmp/old2.json was written by timer 0.4.0, $tmp/shard1.json by timer 0.5.0: parts of one run come from one build; rerun the part, or pass --allow_mixed_versions" \
  "$tmp/shard1.json" "$tmp/old2.json" "$tmp/shard3.json"
"$merge" --output="$tmp/mixed.json" --allow_mixed_versions "$tmp/shard1.json" "$tmp/old2.json" "$tmp/shard3.json" \
  > /dev/null 2>&1 || fail "--allow_mixed_versions"
"$merge" --output="$tmp/more.json" "$tmp/shard1.json" "$tmp/more2.json" "$tmp/shard3.json" \
  > /dev/null 2> "$tmp/err.txt" || fail "a library only one file names is no conflict: $(cat "$tmp/err.txt")"
merge_error "$tmp/sid2.json was measured with valgrind \"valgrind-3.27.1\", $tmp/shard1.json with \"v\": the parts of one run measure one PyTorch the same way; compare such files (compare --baseline, ab_test --sides) rather than merge them" \
  "$tmp/shard1.json" "$tmp/sid2.json" "$tmp/shard3.json"
merge_error "$tmp/other2.json and $tmp/shard1.json are shards of different suites (suite_checksum def vs abc)" \
  "$tmp/shard1.json" "$tmp/other2.json" "$tmp/shard3.json"
merge_error "$tmp/four2.json is shard 2 of 4, $tmp/shard1.json one of 3: these are shards of different runs" \
  "$tmp/shard1.json" "$tmp/four2.json"
merge_error "$tmp/shard1.json is a shard and $a is not: merge the shards of one run only" "$tmp/shard1.json" "$a"
merge_error "$tmp/beyond1.json: shard 5 of 3: a shard's index must be 1 to its total" "$tmp/shard1.json" "$tmp/beyond1.json"
# Two runs of the same cases (not shards): every case would be there twice.
if "$merge" --output="$tmp/twice.json" "$a" "$b" > /dev/null 2> "$tmp/err.txt"; then fail "two runs of one suite"; fi
grep -q "is in both $a and $b: parts of one run never measure a case twice; merge each run's own files" "$tmp/err.txt" \
  || fail "overlap: $(cat "$tmp/err.txt")"

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
