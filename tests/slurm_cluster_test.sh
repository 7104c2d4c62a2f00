#!/usr/bin/env bash
# --executor=slurm on a real one-node Slurm cluster (munged, slurmctld and
# slurmd from Debian, started by the test): bad input (no Slurm on PATH, an
# unwritable shared directory, a partition Slurm refuses) fails before
# anything runs; the merged counts of ci in 3 shards equal a local run's
# exactly, and its gate against the local run passes.
set -u
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/slurm_fixture.sh"
main="$1"
cluster_script="$2"
ci="$3"
start_cluster "$cluster_script"

step "bad input, before anything is submitted"
out=$(env PATH=/nonexistent "$main" "${common[@]}" "${slurm[@]}" --shards=3 2>&1) && fail "ran without Slurm on PATH"
grep -q "Slurm's commands are not on PATH (missing: sbatch, squeue, scontrol, scancel, sinfo)" <<<"$out" \
  || fail "no Slurm: $out"
out=$("$main" "${common[@]}" --executor=slurm --shared_dir="$work/missing" 2>&1) && fail "ran without shared dir"
grep -q "does not exist" <<<"$out" || fail "missing shared dir: $out"
mkdir "$work/readonly" && chmod 555 "$work/readonly"
out=$(setpriv --bounding-set=-dac_override,-dac_read_search "$main" "${common[@]}" --executor=slurm \
      --shared_dir="$work/readonly" 2>&1) && fail "ran with an unwritable shared dir"
grep -q "is not writable" <<<"$out" || fail "unwritable shared dir: $out"
out=$("$main" "${common[@]}" "${slurm[@]}" --shards=3 --slurm_partition=nosuch 2>&1) && fail "ran in a bad partition"
grep -q "sbatch refused the job array (nothing was submitted)" <<<"$out" || fail "bad partition: $out"
grep -q "Invalid partition name specified" <<<"$out" || fail "bad partition, Slurm's words: $out"
[[ -z $(squeue -h) ]] || fail "something was queued: $(squeue)"
[[ -z $(ls "$shared") ]] || fail "a refused run left $(ls "$shared")"
out=$("$main" "${common[@]}" --shared_dir="$shared" 2>&1) && fail "--shared_dir without --executor=slurm ran"
grep -q "is for --executor=slurm" <<<"$out" || fail "--shared_dir alone: $out"

step "the reference: a local run"
"$main" "${common[@]}" --jobs=1 --output="$work/local.json" > "$work/local.txt" 2>&1 \
  || fail "local run: $(tail -20 "$work/local.txt")"

# ci on Slurm in 3 shards (14 count and 14 wall-time orders): the same
# counts as the local run, and the gate against it passes with every count
# unchanged. (main runs on Slurm in //tests:slurm_faults_test.)
step "ci on Slurm in 3 shards, gated against the local run"
"$ci" --filter="$filter" --time_rounds=1 --repeats=1 "${slurm[@]}" --shards=3 \
  --baseline="$work/local.json" --destination="$work/ci.json" --json="$work/ci_comparisons.json" \
  > "$work/ci.md" 2> "$work/ci.err" || fail "ci on Slurm: $(tail -30 "$work/ci.err")"
grep -q "Slurm: 28 work orders in 3 shards" "$work/ci.err" || fail "shards: $(cat "$work/ci.err")"
same_counts "$work/local.json" "$work/ci.json" 14 || fail "Slurm's counts differ from the local run's"
/usr/bin/python3 - "$work/ci_comparisons.json" <<'PY' || fail "ci on Slurm: $(cat "$work/ci.md")"
import json, sys
comparisons = json.load(open(sys.argv[1]))["comparisons"]
assert len(comparisons) == 14, comparisons
assert all(c["counts_delta_pct"] == 0 for c in comparisons), comparisons
PY
[[ -z $(ls "$shared") ]] || fail "ci left its run directory behind: $(ls "$shared")"

echo PASS
