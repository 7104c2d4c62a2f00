#!/usr/bin/env bash
# --executor=slurm on a real one-node Slurm cluster (munged, slurmctld and
# slurmd from Debian, started under a temporary directory and stopped by
# their pids whatever happens): the merged counts equal a local run's
# exactly; a task killed mid-run is resubmitted and the result is complete;
# a driver interrupted mid-run finishes with --resume; a task given up
# after its last submission leaves its cases failed with Slurm's state and
# the other shards merged; bad input (no Slurm on PATH, an unwritable
# shared directory, a partition Slurm refuses) fails before anything runs;
# ci on Slurm gates against the local run; ab_test --sides runs one job
# array per side and records each case's node, and a task whose node
# cannot load LibTorch fails its cases with the reason.
set -u
main="$1"
cluster_script="$2"
ab_test="$3"
ci="$4"
fail() { echo "FAIL: $*" >&2; exit 1; }

# Short paths: munge's socket path must fit a Unix socket (108 bytes), which
# Bazel's TEST_TMPDIR does not.
work=$(mktemp -d /tmp/icount-slurm-test-XXXXXX)
cleanup() { "$cluster_script" stop "$work/cluster" >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT
"$cluster_script" start "$work/cluster" > "$work/start.txt" 2>&1 || fail "cluster: $(cat "$work/start.txt")"
export SLURM_CONF="$work/cluster/slurm.conf"
shared="$work/shared"
mkdir -p "$shared"

# Small but both languages: 7 C++ and 7 Python count orders.
filter='Pointwise / Math / add'
common=(--filter="$filter" --no_wall_time)
slurm=(--executor=slurm --shared_dir="$shared" --shards=3)

same_counts() {  # same_counts A.json B.json: every case's counts equal
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
def counts(path):
    d = json.load(open(path))
    return {(tuple(c["label"]), c["language"], c["sub_label"], c["num_threads"]): c["counts"]
            for c in d["instruction_counts"]}
a, b = counts(sys.argv[1]), counts(sys.argv[2])
assert len(a) == 14, sorted(a)
diff = {k: (a.get(k), b.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k)}
assert not diff, diff
PY
}

wait_for_results() {  # wait_for_results N: some shard journal holds N results
  for _ in $(seq 600); do
    local lines
    lines=$(cat "$shared"/icount-run-*/shard_*.journal 2>/dev/null | wc -l)
    [[ $lines -gt $1 ]] && return 0
    sleep 0.2
  done
  fail "no results appeared in $shared"
}

# --- Bad input, before anything is submitted.
out=$(env PATH=/nonexistent "$main" "${common[@]}" "${slurm[@]}" 2>&1) && fail "ran without Slurm on PATH"
grep -q "Slurm's commands are not on PATH (missing: sbatch, squeue, scontrol, scancel, sinfo)" <<<"$out" \
  || fail "no Slurm: $out"
out=$("$main" "${common[@]}" --executor=slurm --shared_dir="$work/missing" 2>&1) && fail "ran without shared dir"
grep -q "does not exist" <<<"$out" || fail "missing shared dir: $out"
mkdir "$work/readonly" && chmod 555 "$work/readonly"
out=$(setpriv --bounding-set=-dac_override,-dac_read_search "$main" "${common[@]}" --executor=slurm \
      --shared_dir="$work/readonly" 2>&1) && fail "ran with an unwritable shared dir"
grep -q "is not writable" <<<"$out" || fail "unwritable shared dir: $out"
out=$("$main" "${common[@]}" "${slurm[@]}" --slurm_partition=nosuch 2>&1) && fail "ran in a bad partition"
grep -q "sbatch refused the job array (nothing was submitted)" <<<"$out" || fail "bad partition: $out"
grep -q "Invalid partition name specified" <<<"$out" || fail "bad partition, Slurm's words: $out"
[[ -z $(squeue -h) ]] || fail "something was queued: $(squeue)"
[[ -z $(ls "$shared") ]] || fail "a refused run left $(ls "$shared")"
out=$("$main" "${common[@]}" --shared_dir="$shared" 2>&1) && fail "--shared_dir without --executor=slurm ran"
grep -q "is for --executor=slurm" <<<"$out" || fail "--shared_dir alone: $out"

# --- The reference: a local run.
"$main" "${common[@]}" --output="$work/local.json" > "$work/local.txt" 2>&1 \
  || fail "local run: $(tail -20 "$work/local.txt")"

# --- On Slurm: the same counts, and the run directory gone afterwards.
"$main" "${common[@]}" "${slurm[@]}" --output="$work/slurm.json" > "$work/slurm.txt" 2>&1 \
  || fail "slurm run: $(tail -30 "$work/slurm.txt")"
grep -q "14 work orders in 3 shards" "$work/slurm.txt" || fail "shards: $(cat "$work/slurm.txt")"
same_counts "$work/local.json" "$work/slurm.json" || fail "Slurm's counts differ from the local run's"
[[ -z $(ls "$shared") ]] || fail "run directory left behind: $(ls "$shared")"

# --- ci on Slurm: counts and wall time as arrays, the gate against the
# local run passes with every count unchanged.
"$ci" --filter="$filter" --time_rounds=1 --repeats=1 "${slurm[@]}" \
  --baseline="$work/local.json" --destination="$work/ci.json" --json="$work/ci_comparisons.json" \
  > "$work/ci.md" 2> "$work/ci.err" || fail "ci on Slurm: $(tail -30 "$work/ci.err")"
/usr/bin/python3 - "$work/ci_comparisons.json" <<'PY' || fail "ci on Slurm: $(cat "$work/ci.md")"
import json, sys
comparisons = json.load(open(sys.argv[1]))["comparisons"]
assert len(comparisons) == 14, comparisons
assert all(c["counts_delta_pct"] == 0 for c in comparisons), comparisons
PY
[[ -z $(ls "$shared") ]] || fail "ci left its run directory behind: $(ls "$shared")"

# --- A task killed mid-run is resubmitted; the result is complete.
"$main" "${common[@]}" "${slurm[@]}" --output="$work/killed.json" > "$work/killed.txt" 2>&1 &
driver=$!
wait_for_results 1
task=$(squeue -h -r -t RUNNING -o '%F_%K' | head -1)
[[ -n $task ]] || fail "no running task to kill"
scancel "$task"
wait "$driver" || fail "run with a killed task: $(tail -30 "$work/killed.txt")"
grep -q "Slurm task ${task} (shard ${task#*_}) ended CANCELLED.*resubmitting it (submission 2 of 3)" \
  "$work/killed.txt" || fail "no resubmission of $task: $(cat "$work/killed.txt")"
same_counts "$work/local.json" "$work/killed.json" || fail "counts after a resubmission differ"

# --- The driver interrupted mid-run: its tasks are cancelled, and --resume
# submits what has no result yet and finishes.
"$main" "${common[@]}" "${slurm[@]}" --output="$work/resumed.json" > "$work/interrupted.txt" 2>&1 &
driver=$!
wait_for_results 2
kill -INT "$driver"
wait "$driver" && fail "an interrupted run succeeded"
grep -q "run the same command with --resume to continue" "$work/interrupted.txt" \
  || fail "interrupted: $(cat "$work/interrupted.txt")"
for _ in $(seq 100); do [[ -z $(squeue -h) ]] && break; sleep 0.2; done
[[ -z $(squeue -h) ]] || fail "tasks left queued after the interrupt: $(squeue)"
"$main" "${common[@]}" "${slurm[@]}" --output="$work/resumed.json" --resume > "$work/resumed.txt" 2>&1 \
  || fail "resume: $(tail -30 "$work/resumed.txt")"
grep -Eq "icount: [1-9][0-9]* of 14 results resumed" "$work/resumed.txt" \
  || fail "nothing resumed: $(cat "$work/resumed.txt")"
same_counts "$work/local.json" "$work/resumed.json" || fail "counts after --resume differ"

# --- A task that keeps failing is given up: its cases fail with Slurm's
# state and the log's end, the other shards are merged, the exit code says so.
"$main" "${common[@]}" "${slurm[@]}" --slurm_submissions=1 --output="$work/given_up.json" \
  > "$work/given_up.txt" 2>&1 &
driver=$!
wait_for_results 1
task=$(squeue -h -r -t RUNNING -o '%F_%K' | head -1)
scancel "$task"
wait "$driver" && fail "a run with a given-up task exited 0"
/usr/bin/python3 - "$work/given_up.json" "$task" <<'PY' || fail "given-up results: $(tail -30 "$work/given_up.txt")"
import json, sys
d, task = json.load(open(sys.argv[1])), sys.argv[2]
failures = d.get("failures", {})
assert failures, "no failures"
assert len(d["instruction_counts"]) + len(failures) == 14, (len(d["instruction_counts"]), len(failures))
assert len(d["instruction_counts"]) >= 1, "nothing merged"
for reason in failures.values():
    assert "Slurm task %s" % task in reason and "CANCELLED" in reason and "after 1 submissions" in reason, reason
    assert "the end of its Slurm log (shard_" in reason and "shard_task: shard" in reason, reason  # the tail
PY
# --- ab_test --sides on Slurm: one job array per side, all submitted at
# once; identical sides count alike, and ATen's DEFAULT kernels (forced in
# the third side) change add's C++ count there first, on a node that says so.
# The fourth side stands for a node without a working LibTorch: in its
# task 0 (the worker's parent is shard_task, whose environment Slurm set)
# the worker loads an empty libtorch_cpu. That task's case fails with the
# loader's words after its last submission; the other task's is merged.
mkdir "$work/no-libtorch" && : > "$work/no-libtorch/libtorch_cpu.so.1.13"
cat > "$work/sides.txt" <<SIDES
[one] true
[two] true
[default] export ATEN_CPU_CAPABILITY=default
[torchless-task-0] ! tr '\\0' '\\n' < /proc/\$PPID/environ | grep -qx SLURM_ARRAY_TASK_ID=0 || export LD_LIBRARY_PATH=$work/no-libtorch
SIDES
"$ab_test" --sides="$work/sides.txt" --filter='^Pointwise / Math / add / Case:  0$' "${slurm[@]}" \
  --shards=2 --slurm_submissions=2 --json="$work/sides.json" > "$work/sides.out" 2> "$work/sides.err" \
  && fail "ab_test --sides with a failed case exited 0: $(cat "$work/sides.out")"
[[ $(grep -c "icount: Slurm: 2 work orders in 2 shards" "$work/sides.err") -eq 4 ]] \
  || fail "--sides: one job array per side: $(cat "$work/sides.err")"
/usr/bin/python3 - "$work/sides.json" <<'PY' || fail "--sides on Slurm: $(cat "$work/sides.out" "$work/sides.err")"
import json, sys
d = json.load(open(sys.argv[1]))
names = [s["name"] for s in d["sides"]]
assert names == ["one", "two", "default", "torchless-task-0"], names
cases = {c["case"]: c for c in d["cases"]}
assert len(cases) == 2, sorted(cases)
cpp = [c for k, c in cases.items() if "|C++|" in k][0]
one, two, default, _ = cpp["counts_per_run"]
assert one == two and default != one, cpp
assert cpp["first_change"]["side"] == "default", cpp
for side in d["sides"]:
    results = side["results"]
    nodes = results["nodes"]
    for counts in results["instruction_counts"]:
        node = nodes[counts["metadata"]["node"]]
        assert node["valgrind"].startswith("valgrind-"), node
        assert (node["aten_cpu_capability"] == "DEFAULT") == (side["name"] == "default"), (side["name"], node)
# Task 0 of the last side: its one case failed, with the reason; task 1's
# case counted as on side "one".
failures = d["sides"][3]["results"].get("failures", {})
assert len(failures) == 1, failures
(reason,) = failures.values()
for words in ("(shard 0) ended FAILED", "after 2 submissions",
              "error while loading shared libraries", "libtorch_cpu.so.1.13: file too short"):
    assert words in reason, (words, reason)
counted = [c for c in cases.values() if c["counts_per_run"][3] is not None]
assert len(counted) == 1, cases
assert counted[0]["counts_per_run"][3] == counted[0]["counts_per_run"][0], counted
PY
grep -q "failed in torchless-task-0: worker: Slurm task" "$work/sides.err" \
  || fail "--sides: the failed case not reported: $(cat "$work/sides.err")"
[[ -z $(ls "$shared") ]] || fail "--sides left run directories behind: $(ls "$shared")"
echo PASS
