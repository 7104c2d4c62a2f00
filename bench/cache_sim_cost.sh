#!/usr/bin/env bash
# What --cache_sim costs: the suite's instruction counts (main
# --no_wall_time) with and without the cache simulation, one after the
# other on this machine, and whether the counts agree.
#
#   bench/cache_sim_cost.sh [OUT] [main flags, e.g. --filter=REGEX]
#
# Writes OUT/cache_sim_cost.md (the CPU, the commit, the command, both wall
# times and the number of cases whose instruction counts differ between
# the two runs: the simulation must change none) and both results files.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-/tmp/icount-cache-sim-cost}")
shift || true
mkdir -p "$out"
./bazelw build //tools:main > "$out/build.log" 2>&1 || { tail -30 "$out/build.log" >&2; exit 1; }
main=(bazel-bin/tools/main --no_wall_time "$@")

timed() {  # timed NAME [flags]: seconds of one run
  local name=$1 started=$SECONDS
  shift
  "${main[@]}" "$@" --output="$out/$name.json" > "$out/$name.txt" 2> "$out/$name.err" \
    || { echo "cache_sim_cost: main $* failed, see $out/$name.err" >&2; exit 1; }
  echo $((SECONDS - started))
}

plain=$(timed plain)
simulated=$(timed cache_sim --cache_sim)
cases=$(/usr/bin/python3 - "$out/plain.json" "$out/cache_sim.json" <<'PY'
import json, sys
plain, sim = (json.load(open(p))["instruction_counts"] for p in sys.argv[1:])
per_run = lambda counts: {c["metadata"]["case"]: c.get("counts_per_run", 0) for c in counts}
a, b = per_run(plain), per_run(sim)
cycles = [c for c in sim if "estimated_cycles_per_run" in c]
print(len(a), sum(1 for k in a if k in b and a[k] != b[k]), len(cycles))
PY
)
read -r counted differing with_cycles <<< "$cases"
{
  echo "Machine: $(python3 bench/machine.py); commit $(git rev-parse --short HEAD); command \`bench/cache_sim_cost.sh $out $*\`."
  echo
  echo "| instruction counts of $counted cases | wall time |"
  echo "|---|---|"
  echo "| \`main --no_wall_time\` | $((plain / 60)) min $((plain % 60)) s |"
  echo "| \`main --no_wall_time --cache_sim\` | $((simulated / 60)) min $((simulated % 60)) s |"
  echo
  echo "With --cache_sim, $with_cycles cases have estimated cycles; $differing cases' instruction counts differ from the run without."
} > "$out/cache_sim_cost.md"
cat "$out/cache_sim_cost.md"
