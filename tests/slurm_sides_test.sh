#!/usr/bin/env bash
# ab_test --sides on a real one-node Slurm cluster: one job array per side,
# all submitted at once; identical sides count alike; a side that forces
# ATen's DEFAULT kernels changes add's C++ count there first, on a node that
# says so; a task whose node cannot load LibTorch fails its case with the
# loader's words and the other task's case is merged.
set -u
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/slurm_fixture.sh"
ab_test="$1"
cluster_script="$2"
start_cluster "$cluster_script"

step "ab_test --sides, one job array per side"
# Two C++ cases of add, one per task (C++ only: what is tested is the same
# in either language, and a Python worker starts about twice as slowly).
# ATen's DEFAULT kernels (forced in the second side) change add's count
# there first, on a node that says so. The third side stands for a node
# without a working LibTorch: in its task 0 (the worker's parent is
# shard_task, whose environment Slurm set) the worker loads an empty
# libtorch_cpu. That task's case fails with the loader's words after its
# last submission; the other task's is merged.
# The soname of Debian's release (libtorch_cpu.so.1.13, .so.2.14, ...).
soname=$(readlink /usr/lib/x86_64-linux-gnu/libtorch_cpu.so)
mkdir "$work/no-libtorch" && : > "$work/no-libtorch/$soname"
cat > "$work/sides.txt" <<SIDES
[one] true
[default] export ATEN_CPU_CAPABILITY=default
[torchless-task-0] ! tr '\\0' '\\n' < /proc/\$PPID/environ | grep -qx SLURM_ARRAY_TASK_ID=0 || export LD_LIBRARY_PATH=$work/no-libtorch
SIDES
"$ab_test" --sides="$work/sides.txt" --filter='^Pointwise / Math / add / Case:  [01]$' --no_python "${slurm[@]}" \
  --shards=2 --slurm_submissions=2 --json="$work/sides.json" > "$work/sides.out" 2> "$work/sides.err" \
  && fail "ab_test --sides with a failed case exited 0: $(cat "$work/sides.out")"
[[ $(grep -c "icount: Slurm: 2 work orders in 2 shards" "$work/sides.err") -eq 3 ]] \
  || fail "--sides: one job array per side: $(cat "$work/sides.err")"
/usr/bin/python3 - "$work/sides.json" "$soname" <<'PY' || fail "--sides on Slurm: $(cat "$work/sides.out" "$work/sides.err")"
import json, sys
d = json.load(open(sys.argv[1]))
names = [s["name"] for s in d["sides"]]
assert names == ["one", "default", "torchless-task-0"], names
cases = {c["case"]: c for c in d["cases"]}
assert len(cases) == 2, sorted(cases)
for case in cases.values():
    assert "|C++|" in case["case"], case
    one, default, _ = case["counts_per_run"]
    assert default != one, case
    assert case["first_change"]["side"] == "default", case
for side in d["sides"]:
    results = side["results"]
    nodes = results["nodes"]
    for counts in results["instruction_counts"]:
        node = nodes[counts["metadata"]["node"]]
        assert node["valgrind"].startswith("valgrind-"), node
        assert (node["aten_cpu_capability"] == "DEFAULT") == (side["name"] == "default"), (side["name"], node)
# Task 0 of the last side: its one case failed, with the reason; task 1's
# case counted as on side "one".
failures = d["sides"][2]["results"].get("failures", {})
assert len(failures) == 1, failures
(reason,) = failures.values()
for words in ("(shard 0) ended FAILED", "after 2 submissions",
              "error while loading shared libraries", sys.argv[2] + ": file too short"):
    assert words in reason, (words, reason)
# Identical sides count alike: that case counted as on side "one".
counted = [c for c in cases.values() if c["counts_per_run"][2] is not None]
assert len(counted) == 1, cases
assert counted[0]["counts_per_run"][2] == counted[0]["counts_per_run"][0], counted
PY
grep -q "failed in torchless-task-0: worker: Slurm task" "$work/sides.err" \
  || fail "--sides: the failed case not reported: $(cat "$work/sides.err")"
[[ -z $(ls "$shared") ]] || fail "--sides left run directories behind: $(ls "$shared")"
echo PASS
