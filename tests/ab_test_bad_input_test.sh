#!/usr/bin/env bash
# //tools:ab_test's bad input: every message names what is wrong and how to
# fix it, and stops before any long work; a side whose worker answers the
# LibTorch probe but dies under valgrind, whose canary case fails, or whose
# command fails, is named.
set -u
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/test_steps.sh"
ab_test="$PWD/$1"
source "$PWD/$2"  # expect_first_line
old="export ICOUNT_LIBTORCH_VERSION=1.8"
tmp="$TEST_TMPDIR"
filter='^Empty / with allocation$'

step "bad flags and environments"
# Bad input stops before any long work.
"$ab_test" --A=true --B=true --display_time --min_run_time=0 > /dev/null 2> "$tmp/mrt.err" \
  && fail "--min_run_time=0 must fail"
grep -q -- "--min_run_time=0: must be greater than 0" "$tmp/mrt.err" \
  || fail "min_run_time message: $(cat "$tmp/mrt.err")"
if "$ab_test" --A=true --B=true --B_worker=/nonexistent/worker > /dev/null 2> "$tmp/worker.err"; then
  fail "a missing worker must fail"
fi
grep -q -- "--B_worker=/nonexistent/worker does not exist or is not executable" "$tmp/worker.err" \
  || fail "missing worker message: $(cat "$tmp/worker.err")"
# A bad LibTorch directory on B is said before A's worker is built for A's
# directory (which here would fail much later: its library is empty).
fake_libtorch_directory "$tmp/a_libtorch"
expect_first_line "$ab_test" \
  "ab_test: --B_libtorch: the LibTorch directory /nonexistent/libtorch does not exist" \
  --A=true --B=true --A_libtorch="$tmp/a_libtorch" --B_libtorch=/nonexistent/libtorch \
  --filter="$filter"
expect_first_line "$ab_test" \
  "ab_test: --no_cpp leaves the Python cases only, and --B_libtorch=$tmp/a_libtorch has none (a LibTorch directory has no torch Python package): drop --no_cpp to measure the C++ cases" \
  --A=true --B=true --B_libtorch="$tmp/a_libtorch" --no_cpp
if "$ab_test" --A="$old" --B=true --backtesting --filter='^InferenceMode' > /dev/null 2> "$tmp/none.err"; then
  fail "--backtesting with nothing left to run must fail"
fi
grep -q "leaves no case to run" "$tmp/none.err" || fail "nothing-left message: $(cat "$tmp/none.err")"
if "$ab_test" --A=true --B="export ICOUNT_LIBTORCH_VERSION=latest" --filter="$filter" \
  > /dev/null 2> "$tmp/bad_version.err"; then
  fail "an unreadable LibTorch version must fail"
fi
grep -q 'environment B reports an unreadable LibTorch version (from ICOUNT_LIBTORCH_VERSION): "latest"' \
  "$tmp/bad_version.err" || fail "bad version message: $(cat "$tmp/bad_version.err")"
# B's worker answers the LibTorch probe but dies under valgrind: the error
# names B's, and A's run, started beside it, stops. C++ cases only: A's
# worker then skips `import torch`.
cat > "$tmp/probe_only_worker" <<EOF
#!/bin/sh
case " \$* " in *" --libtorch_report_fd="*) exec "$PWD/definitions/full_suite_worker" "\$@" ;; esac
echo "probe_only_worker: refusing to measure" >&2
exit 3
EOF
chmod +x "$tmp/probe_only_worker"
if "$ab_test" --A=true --B=true --B_worker="$tmp/probe_only_worker" --filter="$filter" --no_python \
  > /dev/null 2> "$tmp/dies.err"; then
  fail "a side whose worker dies must fail"
fi
grep -q "^ab_test: B: instruction counts cannot be collected: the worker under valgrind died" \
  "$tmp/dies.err" || fail "dying worker message: $(cat "$tmp/dies.err")"
grep -q "refusing to measure" "$tmp/dies.err" || fail "the dying worker's output: $(cat "$tmp/dies.err")"
step "a side whose canary case fails"
# B's torch.empty raises (a sitecustomize that the workers' Python loads):
# the worker starts, and the canary, the suite's first Python case, is
# counted first and fails. The error names B, the canary and what it
# raised, and both sides stop.
mkdir -p "$tmp/empty_raises"
cat > "$tmp/empty_raises/sitecustomize.py" <<'EOF'
import torch
def _raises(*args, **kwargs):
    raise RuntimeError("torch.empty is broken here")
torch.empty = _raises
EOF
if "$ab_test" --A=true --B="export PYTHONPATH=$tmp/empty_raises" --filter="$filter" \
  > /dev/null 2> "$tmp/canary.err"; then
  fail "a side whose canary fails must fail"
fi
grep -q "^ab_test: instruction counts of 2 cases in A and B at once, the canary first...$" \
  "$tmp/canary.err" || fail "counts: $(cat "$tmp/canary.err")"
grep -qF "ab_test: environment B (export PYTHONPATH=$tmp/empty_raises) is broken: the canary case (Empty / no allocation | Eager | Forward | Python | 1 thread) failed:" \
  "$tmp/canary.err" || fail "canary message: $(cat "$tmp/canary.err")"
grep -q "RuntimeError: torch.empty is broken here" "$tmp/canary.err" \
  || fail "what the canary raised: $(cat "$tmp/canary.err")"
leftovers=$(workers_left "$tmp")
[[ -z "$leftovers" ]] || fail "workers left running: $leftovers"
if "$ab_test" --A=true --B="exit 7" --filter="$filter" > /dev/null 2> "$tmp/broken.err"; then
  fail "a broken environment must fail"
fi
grep -q "environment B" "$tmp/broken.err" || fail "broken environment message: $(cat "$tmp/broken.err")"
step "sides whose PyTorch cannot be measured"
# Each is refused before anything is built or measured, saying what to do.
if "$ab_test" --A=true --B=true --B_libtorch="$tmp" > /dev/null 2> "$tmp/no_libtorch.err"; then
  fail "a directory that is no LibTorch must fail"
fi
grep -q -- "--B_libtorch: the LibTorch directory $tmp has no include/torch" "$tmp/no_libtorch.err" \
  || fail "no-LibTorch message: $(cat "$tmp/no_libtorch.err")"
# A torch that is there but does not import.
mkdir -p "$tmp/broken_site/torch"
echo 'raise OSError("libtorch_global_deps.so: cannot open shared object file")' \
  > "$tmp/broken_site/torch/__init__.py"
if "$ab_test" --A=true --B="export PATH=/usr/bin:\$PATH PYTHONPATH=$tmp/broken_site" \
  > /dev/null 2> "$tmp/broken_torch.err"; then
  fail "a torch that fails to import must fail"
fi
grep -q 'B: `import torch` fails in the environment' "$tmp/broken_torch.err" \
  || fail "broken torch message: $(cat "$tmp/broken_torch.err")"
grep -q "OSError: libtorch_global_deps.so" "$tmp/broken_torch.err" \
  || fail "broken torch's error: $(cat "$tmp/broken_torch.err")"
# A LibTorch directory that is fine, but ICOUNT_WORKSPACE names no source
# tree to build for it in. (Without it, ab_test finds the tree it was built
# from: environment/suite_build_test.)
mkdir -p "$tmp/libtorch/include/torch/csrc/api/include/torch" "$tmp/libtorch/include/ATen" \
  "$tmp/libtorch/include/c10" "$tmp/libtorch/lib"
printf '#define TORCH_VERSION_MAJOR 2\n#define TORCH_VERSION_MINOR 1\n#define TORCH_VERSION_PATCH 0\n' \
  > "$tmp/libtorch/include/torch/csrc/api/include/torch/version.h"
touch "$tmp/libtorch/lib/libtorch_cpu.so" "$tmp/libtorch/lib/libc10.so"
mkdir -p "$tmp/not_a_tree"
if env -u BUILD_WORKSPACE_DIRECTORY ICOUNT_WORKSPACE="$tmp/not_a_tree" "$ab_test" --A=true --B=true \
  --B_libtorch="$tmp/libtorch" > /dev/null 2> "$tmp/no_tree.err"; then
  fail "a build without icount's source tree must fail"
fi
grep -q "^ab_test: B: measures torch 2.1.0 (LibTorch directory) at $tmp/libtorch, found by --B_libtorch$" \
  "$tmp/no_tree.err" || fail "what B has: $(cat "$tmp/no_tree.err")"
grep -qF "\$ICOUNT_WORKSPACE=$tmp/not_a_tree is not icount's source tree" "$tmp/no_tree.err" \
  || fail "no source tree message: $(cat "$tmp/no_tree.err")"
# A tree that no longer holds the sources ab_test was built from (here:
# none of them) is refused before anything is built for B.
mkdir -p "$tmp/stale_tree"
echo 'workspace(name = "icount")' > "$tmp/stale_tree/WORKSPACE"
if env -u BUILD_WORKSPACE_DIRECTORY ICOUNT_WORKSPACE="$tmp/stale_tree" "$ab_test" --A=true --B=true \
  --B_libtorch="$tmp/libtorch" > /dev/null 2> "$tmp/stale_tree.err"; then
  fail "a build from a tree other than ab_test's must fail"
fi
grep -qF "ab_test: B: icount's source tree at $tmp/stale_tree is not the one this program was built from: " \
  "$tmp/stale_tree.err" || fail "stale tree message: $(cat "$tmp/stale_tree.err")"
grep -qE " and [0-9]+ others are gone \(([0-9]+) of the \1 files a side's worker is built from\)" \
  "$tmp/stale_tree.err" || fail "which files: $(cat "$tmp/stale_tree.err")"
grep -qF "Build //tools:ab_test again (./bazelw build //tools:ab_test) and rerun" "$tmp/stale_tree.err" \
  || fail "what to do: $(cat "$tmp/stale_tree.err")"
! grep -q "building" "$tmp/stale_tree.err" || fail "built from the stale tree: $(cat "$tmp/stale_tree.err")"

expect_first_line "$ab_test" "ab_test: --A and --B are required (shell commands setting up each environment; a side in a root, --A_root or --B_root, may leave its command out), or --sides=FILE" --A=true
expect_first_line "$ab_test" "ERROR: Unknown command line flag 'no_such_flag'" --A=true --B=true --no_such_flag
expect_first_line "$ab_test" 'ab_test: unexpected argument "x": this program takes only flags (--name=value; see --help)' --A=true --B=true x
expect_first_line "$ab_test" "ab_test: --filter=( is not a valid RE2 regex: missing ): (" --A=true --B=true --filter='('
expect_first_line "$ab_test" 'ab_test: no case matches --filter=^no such case$ (it is searched in labels such as "Pointwise / Math / add"; main --list shows them all)' \
  --A=true --B=true --filter='^no such case$'
expect_first_line "$ab_test" "ab_test: --time_rounds=0: must be at least 1" --A=true --B=true --display_time --time_rounds=0
expect_first_line "$ab_test" "ab_test: --time_rounds applies to wall time, which ab_test measures with --display_time (or --no_counts): add --display_time, or drop it" \
  --A=true --B=true --time_rounds=3
expect_first_line "$ab_test" "ab_test: --cache_sim shapes the instruction counts, which --no_counts leaves out: drop one of them" \
  --A=true --B=true --no_counts --cache_sim
expect_first_line "$ab_test" "ab_test: --top=-1: must be at least 0" --A=true --B=true --top=-1
expect_first_line "$ab_test" "ab_test: --colorize colours the text table, which --markdown replaces: drop one of them" \
  --A=true --B=true --markdown --colorize
expect_first_line "$ab_test" "ab_test: --shards is for --executor=slurm: add --executor=slurm, or drop it" \
  --A=true --B=true --shards=4
expect_first_line "$ab_test" "ab_test: --resume needs the --json of the run to continue" --A=true --B=true --resume
expect_first_line "$ab_test" "ab_test: --B_libtorch=/opt/libtorch and --B_root=sid do not combine: a side in a root measures the root's own torch and LibTorch; drop --B_root to measure /opt/libtorch on this machine, or drop --B_libtorch" \
  --A=true --B_root=sid --B_libtorch=/opt/libtorch
expect_first_line "$ab_test" "ab_test: --A_worker runs a prebuilt worker on this machine as it is, so --A_root would be left unused: give one or the other" \
  --A=true --B=true --A_worker=/bin/true --A_root=sid
# Every side's root is named rightly before any side is set up: A's root
# (whose missing /bin/sh setting it up would find) is not looked into.
mkdir -p "$tmp/bare/usr"
printf '[a, root=%s]\n[b, root=nosuchsuite]\n' "$tmp/bare" > "$tmp/roots.sides"
for args in "--A_root=$tmp/bare --B_root=nosuchsuite" "--sides=$tmp/roots.sides"; do
  if "$ab_test" $args > /dev/null 2> "$tmp/bad.err"; then fail "ab_test $args must fail"; fi
  head -1 "$tmp/bad.err" | grep -qE "^ab_test: (B: --B_root|$tmp/roots.sides:2: b: --sides): Debian has no suite named nosuchsuite \(its releases," \
    || fail "ab_test $args: expected B's suite refused first, got: $(cat "$tmp/bad.err")"
done
printf 'name,count\nadd,1\n' > "$tmp/foreign.csv"
if "$ab_test" --A=true --B=true --json="$tmp/foreign.csv" > /dev/null 2> "$tmp/foreign.err"; then fail "a CSV --json"; fi
grep -q -- "--json: $tmp/foreign.csv exists and is not a file this tool wrote" "$tmp/foreign.err" \
  || fail "foreign --json: $(cat "$tmp/foreign.err")"
[ "$(cat "$tmp/foreign.csv")" = "$(printf 'name,count\nadd,1')" ] || fail "ab_test touched the CSV"
echo PASS
