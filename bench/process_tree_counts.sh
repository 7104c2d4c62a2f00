#!/usr/bin/env bash
# Checks that measuring in the case process (worker 0.9) instead of in a
# template forked from it (worker 0.8's process tree, main
# --template_per_case) leaves every count of the suite alone: both ways
# with one binary (counts follow the binary's layout, so two builds cannot
# be compared like this), then bench/explain_count_changes.py --identical
# over every case, every repeat and the baseline. Exits 1 if any differs.
#
#   ./bazelw build //tools:main && bench/process_tree_counts.sh [OUT_DIR] [main flags...]
#
# e.g. bench/process_tree_counts.sh /tmp/tree --filter='Pointwise' for a
# slice. The whole suite at --repeats=2 takes ~2 x 70 s on the 2-core VM;
# each run's wall time is printed, so this is also a rough before/after.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-$(mktemp -d /tmp/icount-tree.XXXXXX)}"
shift || true
mkdir -p "$out"
main=bazel-bin/tools/main
[ -x "$main" ] || { echo "build first: ./bazelw build //tools:main" >&2; exit 2; }
for tree in template case; do
  flags=(--no_wall_time --repeats=2 "--output=$out/$tree.json" "$@")
  [ "$tree" = template ] && flags+=(--template_per_case)
  start=$(date +%s%N)
  "$main" "${flags[@]}" > "$out/$tree.txt" 2> "$out/$tree.err" || {
    echo "main ${flags[*]} failed; see $out/$tree.err" >&2; exit 2; }
  echo "measured in the $tree process: $(( ($(date +%s%N) - start) / 1000000 )) ms"
done
python3 bench/explain_count_changes.py --identical "$out/template.json" "$out/case.json"
