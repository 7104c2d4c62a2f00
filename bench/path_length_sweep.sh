#!/usr/bin/env bash
# How counts follow the length of the paths a run lives under: copies
# //tools:main with its runfiles into directories 1, 4, 7, ... bytes longer
# and runs the same cases from there (cwd and TMPDIR there too), counts only.
# Prints one line per length: the length, then each case's total count.
# Counts that differ between lines come from where the run lives, not from
# the code (docs/counts.md).
#
#   ./bazelw build //tools:main && bench/path_length_sweep.sh ['^Pointwise / Math / add / Case:  0$'] [60]
set -euo pipefail
cd "$(dirname "$0")/.."
filter=${1:-^Pointwise / Math / add / Case:  0\$}
longest=${2:-60}
work=$(mktemp -d /tmp/icount-paths-XXXXXX)
trap 'rm -rf "$work"' EXIT
for n in $(seq 1 3 "$longest"); do
  dir="$work/$(head -c "$n" /dev/zero | tr '\0' d)"
  mkdir -p "$dir/tmp" "$dir/tools"
  cp -L bazel-bin/tools/main "$dir/tools/" && cp -rL bazel-bin/tools/main.runfiles "$dir/tools/"
  (cd "$dir" && TMPDIR="$dir/tmp" ./tools/main --filter="$filter" --no_wall_time --jobs=1 \
     --output="$dir/out.json" > /dev/null 2> "$dir/err.txt") || { cat "$dir/err.txt" >&2; exit 1; }
  /usr/bin/python3 - "$n" "$dir/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[2]))
cells = sorted((c["metadata"]["case"], c["counts"][0]) for c in d["instruction_counts"])
print(sys.argv[1], "  ".join("%s %s" % cell for cell in cells))
PY
  rm -rf "$dir"
done
