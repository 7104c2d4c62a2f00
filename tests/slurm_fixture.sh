# shellcheck shell=bash disable=SC2034  # sets what the tests that source it use
# What the Slurm tests share: a one-node cluster of their own
# (slurm/testing/one_node_cluster.sh) that is stopped however the test
# ends, the runs' common flags, and counts compared between results files.
#
#   source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/slurm_fixture.sh"
#   start_cluster "$cluster_script"    # sets work, shared, SLURM_CONF
#   "$main" "${common[@]}" "${slurm[@]}" --output="$work/slurm.json"
#
# Needs root (slurmd runs jobs as their users): without it the test says so
# and passes as skipped. CI runs as root.
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/test_steps.sh"

if [[ $(id -u) -ne 0 ]]; then
  echo "SKIPPED: a one-node Slurm cluster is started as root, and this test runs as $(id -un)" >&2
  exit 0
fi

# Small but both languages: 7 C++ and 7 Python count orders.
filter='Pointwise / Math / add'
common=(--filter="$filter" --no_wall_time)

# A cluster left by a test that was SIGKILLed (its traps never ran) is
# stopped by the next test that starts one: each records its owner's pid.
reap_abandoned_clusters() {
  local dir owner
  for dir in /tmp/icount-slurm-test-*; do
    [[ -d $dir ]] || continue
    owner=$(cat "$dir/owner" 2>/dev/null || true)
    [[ -n $owner ]] && kill -0 "$owner" 2>/dev/null && continue
    echo "stopping the cluster a killed test left in $dir" >&2
    "$cluster_script" stop "$dir/cluster" >/dev/null 2>&1 || true
    rm -rf "$dir"
  done
}

stop_cluster() {
  trap - EXIT INT TERM
  "$cluster_script" stop "$work/cluster" >/dev/null 2>&1
  rm -rf "$work"
}

# start_cluster SCRIPT: a cluster under a short directory in /tmp (munge's
# socket path must fit a Unix socket's 108 bytes, which Bazel's TEST_TMPDIR
# does not), stopped on exit and on the TERM Bazel sends at a timeout.
start_cluster() {
  cluster_script=$1
  reap_abandoned_clusters
  work=$(mktemp -d /tmp/icount-slurm-test-XXXXXX)
  echo $$ > "$work/owner"
  trap stop_cluster EXIT
  trap 'echo "interrupted: stopping the cluster" >&2; stop_cluster; exit 1' INT TERM
  step "start a one-node cluster in $work/cluster"
  "$cluster_script" start "$work/cluster" > "$work/start.txt" 2>&1 || fail "cluster: $(cat "$work/start.txt")"
  export SLURM_CONF="$work/cluster/slurm.conf"
  shared="$work/shared"
  mkdir -p "$shared"
  slurm=(--executor=slurm --shared_dir="$shared")
}

same_counts() {  # same_counts A.json B.json N: the same N cases, every count equal
  /usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import json, sys
def counts(path):
    d = json.load(open(path))
    return {(tuple(c["label"]), c["language"], c["sub_label"], c["num_threads"]): c["counts"]
            for c in d["instruction_counts"]}
a, b = counts(sys.argv[1]), counts(sys.argv[2])
assert len(a) == int(sys.argv[3]), sorted(a)
diff = {k: (a.get(k), b.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k)}
assert not diff, diff
PY
}

journaled_results() {  # journaled_results N: the run's shard journals hold more than N lines
  (($(cat "$shared"/icount-run-*/shard_*.journal 2>/dev/null | wc -l) > $1))
}
