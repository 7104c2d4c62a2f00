#!/usr/bin/env bash
# Re-measures the history figures of docs/history.md:
#   1. the store's growth per run of the full suite, by importing results
#      files of real runs (RESULTS...; e.g. from `main --repeats=5 --output=F`);
#   2. the size of a store of 1,000 made-up runs of 201 cases (235 wall-time
#      samples and 40 functions per case, as a real run has) and how long
#      `history steps` takes over it;
#   3. the wall-time method's false-alarm and detection rates on synthetic
#      series (//history:change_points_benchmark).
#
#   bench/history_figures.sh [OUT] [RESULTS.json...]
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-/tmp/icount-history-figures}"
shift || true
mkdir -p "$out"
rm -f "$out"/*.db "$out"/*.db-*
./bazelw build //tools:history //history:fake_history //history:change_points_benchmark \
  >"$out/build.log" 2>&1 || { echo "build failed: see $out/build.log"; exit 1; }
history=bazel-bin/tools/history

if [[ $# -gt 0 ]]; then
  "$history" --db="$out/real.db" import "$1" >/dev/null || exit 1
  first=$(stat -c %s "$out/real.db")
  if [[ $# -gt 1 ]]; then
    "$history" --db="$out/real.db" import "${@:2}" >/dev/null || exit 1
    all=$(stat -c %s "$out/real.db")
    echo "store growth per real run: $(( (all - first) / ($# - 1) / 1024 )) KiB" \
      "(first run with the schema: $((first / 1024)) KiB; $# runs)"
  else
    echo "store with one real run: $((first / 1024)) KiB"
  fi
fi

start=$(date +%s%N)
bazel-bin/history/fake_history --runs=1000 --cases=201 --blocks=235 --functions=40 \
  --db="$out/fake1000.db" || exit 1
echo "1,000 made-up runs recorded in $(( ($(date +%s%N) - start) / 1000000000 )) s;" \
  "store $(( $(stat -c %s "$out/fake1000.db") / 1024 / 1024 )) MiB"
for metric in counts time; do
  start=$(date +%s%N)
  "$history" --db="$out/fake1000.db" steps --metric=$metric >"$out/steps_$metric.txt" || exit 1
  echo "steps --metric=$metric over 1,000 runs x 201 cases: $(( ($(date +%s%N) - start) / 1000000 )) ms;" \
    "$(head -1 "$out/steps_$metric.txt")"
done
start=$(date +%s%N)
"$history" --db="$out/fake1000.db" steps >/dev/null || exit 1
echo "steps (both metrics): $(( ($(date +%s%N) - start) / 1000000 )) ms"
bazel-bin/history/change_points_benchmark | tee "$out/change_points.txt"
