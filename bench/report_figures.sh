#!/usr/bin/env bash
# Re-measures the report figures of docs/report.md:
#   1. what a call tree costs the worker per case (parse the dump, unfold
#      its call graph; //timer/internal:call_tree_benchmark on real dumps);
#   2. for made-up suites of 201 and 5,000 cases compared with a baseline
#      (//report:fake_report_inputs): the page's size, the time //tools:report
#      takes to write it, and in headless Chromium the time until the page
#      is drawn, a filter keystroke and a sort (bench/report_page_timing.py);
#   3. a page with a history store of 1,000 made-up runs of 201 cases
#      (//history:fake_history): the last 100 runs (the default) and all;
#   4. with RESULTS.json (a real run, e.g. `main --output=F`): how much of
#      the results file call trees take, and the size of its page.
#
#   bench/report_figures.sh [OUT] [RESULTS.json]
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-/tmp/icount-report-figures}"
mkdir -p "$out"
./bazelw build //tools:report //report:fake_report_inputs //timer/internal:call_tree_benchmark \
  //history:fake_history \
  >"$out/build.log" 2>&1 || { echo "build failed: see $out/build.log"; exit 1; }

bazel-bin/timer/internal/call_tree_benchmark || exit 1

for cases in 201 5000; do
  dir="$out/fake_$cases"
  mkdir -p "$dir"
  bazel-bin/report/fake_report_inputs --cases="$cases" --output_dir="$dir" || exit 1
  start=$(date +%s.%N)
  bazel-bin/tools/report --input="$dir/current.json" --baseline="$dir/baseline.json" \
    --output="$dir/comparison.html" 2>/dev/null || exit 1
  end=$(date +%s.%N)
  printf '%5d cases: page %s KiB, written in %.2f s; ' "$cases" \
    "$(( $(stat -c %s "$dir/comparison.html") / 1024 ))" "$(echo "$end - $start" | bc)"
  python3 bench/report_page_timing.py "$dir/comparison.html" || exit 1
done

dir="$out/history_1000"
mkdir -p "$dir"
rm -f "$dir"/h.db*
bazel-bin/history/fake_history --runs=1000 --cases=201 --db="$dir/h.db" >/dev/null || exit 1
bazel-bin/history/fake_history --runs=1 --cases=201 --output_dir="$dir" >/dev/null || exit 1
for runs in 100 1000; do
  start=$(date +%s.%N)
  bazel-bin/tools/report --input="$dir/run_00.json" --history="$dir/h.db" --history_runs="$runs" \
    --output="$dir/history_$runs.html" 2>/dev/null || exit 1
  end=$(date +%s.%N)
  printf '201 cases, history of 1,000 runs, page shows %4d: page %s KiB, written in %.2f s; ' "$runs" \
    "$(( $(stat -c %s "$dir/history_$runs.html") / 1024 ))" "$(echo "$end - $start" | bc)"
  python3 bench/report_page_timing.py "$dir/history_$runs.html" || exit 1
done

if [[ $# -gt 1 ]]; then
  results="$2"
  python3 - "$results" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
total = len(open(sys.argv[1]).read())
trees = sum(len(json.dumps(c.get("call_tree", {}), separators=(",", ":"))) for c in d["instruction_counts"])
nodes = [len(c["call_tree"]["parent"]) for c in d["instruction_counts"] if "call_tree" in c]
print("real run: %d cases with call trees (%d-%d nodes, median %d); trees %.0f KiB of a %.0f KiB results file (%.0f%%)" % (
    len(nodes), min(nodes), max(nodes), sorted(nodes)[len(nodes) // 2], trees / 1024, total / 1024, 100 * trees / total))
PY
  bazel-bin/tools/report --input="$results" --output="$out/real.html" 2>/dev/null || exit 1
  echo "real run: page $(( $(stat -c %s "$out/real.html") / 1024 )) KiB"
fi
