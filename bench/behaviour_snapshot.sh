#!/usr/bin/env bash
# Writes what icount's tools print and produce for fixed inputs into OUT, with
# the parts that vary from run to run (wall times, dates, durations) removed,
# so that a refactoring can be shown to change no behaviour:
#
#   git checkout BEFORE && bench/behaviour_snapshot.sh /tmp/before
#   git checkout AFTER  && bench/behaviour_snapshot.sh /tmp/after
#   diff -r /tmp/before /tmp/after && echo "no change"
#
# What it records (about 4 minutes on 2 cores, most of it under valgrind):
#   - the build-time artifacts of the standard suite: the generated snippet
#     translation units and the manifest (as text);
#   - `main --list` and `main --list --json` for all cases;
#   - a counts-only run of a slice of the suite that covers C++ and Python,
#     eager and TorchScript, forward and backward (2 repeats): its tables and
#     its results file;
#   - `compare` over every checked-in results file, in every mode, and the
#     delta table (text and Markdown) between two of them;
#   - `ab_test` with two identical sides over the slice (its A/B table and
#     its --json);
#   - `ci` over the slice against the slice's results file (its --json,
#     without the wall-time figures, which vary; its Markdown gate has
#     golden tests in compare/gate_test.cc);
#   - `fuzz` samples for every fuzzer.
# Counts depend on the CPU, so compare snapshots taken on one machine. They
# also depend on the worker binary (docs/counts.md, "How counts are made
# trustworthy"): when a change rebuilds the worker, counts move through the
# allocator's state; bench/explain_count_changes.py BEFORE/slice.json
# AFTER/slice.json shows how much of each change is allocator and what else
# moved.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: bench/behaviour_snapshot.sh OUT}"
rm -rf "$out"
mkdir -p "$out"

./bazelw build //tools:main //tools:compare //tools:fuzz //tools:ab_test //tools:ci \
  //definitions:full_suite >"$out/.build.log" 2>&1 \
  || { echo "build failed: see $out/.build.log" >&2; exit 1; }
bin=bazel-bin

# strip_times FILE: a results file without what differs between two runs
# (OUT itself, named in the commands, included).
strip_times() {
  /usr/bin/python3 - "$1" "$out" <<'PY'
import json, re, sys
path, out = sys.argv[1:]
data = json.load(open(path))

def varies(key):
    return (key in ("start_time", "end_time", "raw_times", "elapsed_seconds", "wall_time")
            or key.startswith("time_"))

def strip(node):
    if isinstance(node, str):  # function names carry the run's copy of the worker
        node = re.sub(r"[^ \[]*/icount-run-[A-Za-z0-9]+/", "RUN_DIRECTORY/", node)
        return node.replace(out, "OUT")
    if isinstance(node, dict):
        return {k: strip(v) for k, v in node.items() if not varies(k)}
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node

json.dump(strip(data), open(path, "w"), indent=1, sort_keys=True)
PY
}

# 1. Build-time artifacts.
mkdir -p "$out/generated"
cp "$bin"/definitions/full_suite_sources_shard_*.cc "$out/generated/"
# The manifest as text (enum names, one field a line), so a diff is readable.
protoc -I. --decode=icount.expand.SuiteManifestProto expand/suite.proto \
  <"$bin/definitions/full_suite_sources_manifest.pb" >"$out/generated/manifest.txt"

# 2. The case list.
"$bin/tools/main" --list >"$out/main_list.txt" 2>&1
"$bin/tools/main" --list --json >"$out/main_list.jsonl" 2>&1

# 3. A counts-only run of a slice.
slice='^(Empty / no allocation|Pointwise / Math / add / Case:  0|Reduction / variance|training / simple|Mesoscale / Off diagonal)'
"$bin/tools/main" --filter="$slice" --no_wall_time --repeats=2 \
  --output="$out/slice.json" >"$out/slice_tables.txt" 2>"$out/.slice.err" \
  || { echo "main failed: see $out/.slice.err" >&2; exit 1; }
strip_times "$out/slice.json"

# 4. compare over the checked-in results files and the slice.
for input in compare/testdata/*.json "$out/slice.json"; do
  name=$(basename "$input" .json)
  for mode in "" --trim_significant_figures --highlight_warnings --summary \
      --colorize=rowwise --colorize=columnwise; do
    echo "== compare $mode"
    "$bin/tools/compare" --input="$input" $mode 2>&1
  done >"$out/compare_$name.txt"
done
for mode in "" --markdown; do
  echo "== compare --baseline $mode"
  "$bin/tools/compare" --input=compare/testdata/delta_b.json \
    --baseline=compare/testdata/delta_a.json $mode 2>&1
done >"$out/compare_delta.txt"

# 5. A/B of two identical sides over the slice (counts only).
"$bin/tools/ab_test" --A=true --B=true --filter="$slice" --json="$out/ab_test.json" \
  >"$out/ab_test.txt" 2>"$out/.ab.err" || { echo "ab_test failed: see $out/.ab.err" >&2; exit 1; }
strip_times "$out/ab_test.json"

# 6. ci over the slice, gated against the slice's results.
"$bin/tools/ci" --filter="$slice" --repeats=1 --time_rounds=1 --baseline="$out/slice.json" \
  --destination="$out/.ci_results.json" --json="$out/ci.json" >/dev/null 2>"$out/.ci.err" \
  || { echo "ci failed: see $out/.ci.err" >&2; exit 1; }
strip_times "$out/ci.json"

# 7. Fuzzer streams.
# The fuzzers are the alternatives of --fuzzer in fuzz's usage line.
for fuzzer in $("$bin/tools/fuzz" --help 2>&1 | grep -o -- '--fuzzer=[a-z_|]*' | head -1 \
    | cut -d= -f2 | tr '|' ' '); do
  "$bin/tools/fuzz" --fuzzer="$fuzzer" --seed=7 --n=5 >"$out/fuzz_$fuzzer.jsonl" 2>&1
done
ls "$out"/fuzz_*.jsonl >/dev/null 2>&1 || { echo "no fuzzer found in fuzz --help" >&2; exit 1; }

echo "snapshot in $out ($(find "$out" -type f -not -name '.*' | wc -l) files)"
