#!/usr/bin/env bash
# What a Slurm array task costs over a local run: the same filtered suite
# (counts only) locally, then with --executor=slurm and 1 and 3 shards on a
# one-node cluster started for the purpose (tasks take the node in turn,
# --exclusive). Prints wall seconds per run and the overhead per task.
#
#   ./bazelw build //tools:main && bench/slurm_overhead.sh ['Pointwise / Math / add']
set -euo pipefail
cd "$(dirname "$0")/.."
filter=${1:-Pointwise / Math / add}
main=bazel-bin/tools/main
work=$(mktemp -d /tmp/icount-slurm-bench-XXXXXX)
trap 'slurm/testing/one_node_cluster.sh stop "$work/cluster" >/dev/null 2>&1; rm -rf "$work"' EXIT
slurm/testing/one_node_cluster.sh start "$work/cluster" >/dev/null
export SLURM_CONF="$work/cluster/slurm.conf"
mkdir "$work/shared"
seconds() { local start=$(date +%s.%N); "$@" >/dev/null 2>&1; echo "$(date +%s.%N) - $start" | bc; }
local_s=$(seconds "$main" --filter="$filter" --no_wall_time)
one=$(seconds "$main" --filter="$filter" --no_wall_time --executor=slurm --shared_dir="$work/shared" --shards=1)
three=$(seconds "$main" --filter="$filter" --no_wall_time --executor=slurm --shared_dir="$work/shared" --shards=3)
printf 'filter %s, counts only, %s\n' "$filter" "$(python3 bench/machine.py)"
printf 'local                      %6.1f s\n' "$local_s"
printf 'slurm, 1 shard             %6.1f s (+%.1f s)\n' "$one" "$(echo "$one - $local_s" | bc)"
printf 'slurm, 3 shards in turn    %6.1f s (+%.1f s per extra task)\n' "$three" "$(echo "($three - $one) / 2" | bc -l)"
