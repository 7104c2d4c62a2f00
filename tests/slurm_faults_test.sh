#!/usr/bin/env bash
# Faults in runs on a real one-node Slurm cluster: a task killed mid-run is
# resubmitted and the result is complete; a driver interrupted mid-run
# finishes with --resume; a task given up after its last submission leaves
# its cases failed with Slurm's state and the other shards merged.
set -u
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/slurm_fixture.sh"
main="$1"
cluster_script="$2"
start_cluster "$cluster_script"
# The faults do not care which language a case is: C++ cases only, whose
# workers start without Python (~7 s less each under valgrind). The
# fixture's other tests count both.
common+=(--no_python)

step "the reference: a local run"
"$main" "${common[@]}" --jobs=1 --output="$work/local.json" > "$work/local.txt" 2>&1 \
  || fail "local run: $(tail -20 "$work/local.txt")"

# A task killed mid-run is resubmitted; the result is complete.
step "a task killed mid-run"
"$main" "${common[@]}" "${slurm[@]}" --shards=2 --output="$work/killed.json" > "$work/killed.txt" 2>&1 &
driver=$!
wait_for 600 "a journaled result" journaled_results 1
task=$(squeue -h -r -t RUNNING -o '%F_%K' | head -1)
[[ -n $task ]] || fail "no running task to kill"
scancel "$task"
wait "$driver" || fail "run with a killed task: $(tail -30 "$work/killed.txt")"
grep -q "Slurm task ${task} (shard ${task#*_}) ended CANCELLED.*resubmitting it (submission 2 of 3)" \
  "$work/killed.txt" || fail "no resubmission of $task: $(cat "$work/killed.txt")"
same_counts "$work/local.json" "$work/killed.json" 7 || fail "counts after a resubmission differ"

# The driver interrupted mid-run: its tasks are cancelled, and --resume
# submits what has no result yet and finishes.
step "the driver interrupted mid-run, then --resume"
"$main" "${common[@]}" "${slurm[@]}" --shards=2 --output="$work/resumed.json" > "$work/interrupted.txt" 2>&1 &
driver=$!
wait_for 600 "two journaled results" journaled_results 2
kill -INT "$driver"
wait "$driver" && fail "an interrupted run succeeded"
grep -q "run the same command with --resume to continue" "$work/interrupted.txt" \
  || fail "interrupted: $(cat "$work/interrupted.txt")"
queue_empty() { [[ -z $(squeue -h) ]]; }
wait_for 60 "the interrupted run's tasks to leave the queue" queue_empty
# The same output without --resume is refused before any work, naming the
# run directory the interrupted run noted beside it.
if "$main" "${common[@]}" "${slurm[@]}" --shards=2 --output="$work/resumed.json" > "$work/again.txt" 2>&1; then
  fail "a new run over an interrupted Slurm run must be refused"
fi
grep -q "an interrupted Slurm run of this output left its results in .*icount-run-.* (.*resumed.json.journal.slurm names it): pass --resume" \
  "$work/again.txt" || fail "refusal: $(cat "$work/again.txt")"
"$main" "${common[@]}" "${slurm[@]}" --shards=2 --output="$work/resumed.json" --resume > "$work/resumed.txt" 2>&1 \
  || fail "resume: $(tail -30 "$work/resumed.txt")"
[[ ! -e $work/resumed.json.journal.slurm ]] || fail "the run's note outlived its results"
grep -Eq "icount: [1-9][0-9]* of 7 results resumed" "$work/resumed.txt" \
  || fail "nothing resumed: $(cat "$work/resumed.txt")"
same_counts "$work/local.json" "$work/resumed.json" 7 || fail "counts after --resume differ"

# A task that keeps failing is given up: its cases fail with Slurm's
# state and the log's end, the other shards are merged, the exit code says so.
step "a task given up after its last submission"
"$main" "${common[@]}" "${slurm[@]}" --shards=2 --slurm_submissions=1 --output="$work/given_up.json" \
  > "$work/given_up.txt" 2>&1 &
driver=$!
wait_for 600 "a journaled result" journaled_results 1
task=$(squeue -h -r -t RUNNING -o '%F_%K' | head -1)
scancel "$task"
wait "$driver" && fail "a run with a given-up task exited 0"
/usr/bin/python3 - "$work/given_up.json" "$task" <<'PY' || fail "given-up results: $(tail -30 "$work/given_up.txt")"
import json, sys
d, task = json.load(open(sys.argv[1])), sys.argv[2]
failures = d.get("failures", {})
assert failures, "no failures"
assert len(d["instruction_counts"]) + len(failures) == 7, (len(d["instruction_counts"]), len(failures))
assert len(d["instruction_counts"]) >= 1, "nothing merged"
for reason in failures.values():
    assert "Slurm task %s" % task in reason and "CANCELLED" in reason and "after 1 submissions" in reason, reason
    assert "the end of its Slurm log (shard_" in reason and "shard_task: shard" in reason, reason  # the tail
PY
echo PASS
