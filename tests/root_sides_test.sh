#!/usr/bin/env bash
# A side in a Debian root, as a user meets it: `main --root=SUITE` builds
# icount's worker inside the root (its Bazel, compiler, C++ standard,
# Python and torch) and counts the add and Linear cases in Python, C++ and
# TorchScript, each case twice with the same count. For sid besides,
# `ab_test --A=true --B_root=sid` compares this machine's PyTorch with
# sid's in both languages and names the functions that moved, and timeit
# measures a C++ and a Python statement there (built in the root, its
# results file naming the root's torch, toolchain and valgrind: in sid,
# where //tests:bazel7_module_test's build of the tools leaves the objects
# timeit shares with them in the root's disk cache); for trixie, bad roots
# are refused with what to do.
#
#   root_sides_test.sh SUITE MAIN AB_TEST TIMEIT WORKSPACE
#
# The roots and their builds are the machine's, as a user's are
# (~/.cache/icount/roots and root-builds): the first run on a machine makes
# them (mmdebstrap from the machine's Debian mirror, then a build in each),
# later runs reuse them. ICOUNT_TEST_ROOT_CACHE=DIR puts them in DIR instead
# (to time a cold run). Runs unsandboxed: roots are entered through mount
# namespaces, and the builds need this checkout (found through WORKSPACE).
set -u
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/test_steps.sh"
suite=$1
main="$PWD/$2"
ab_test="$PWD/$3"
timeit="$PWD/$4"
export ICOUNT_WORKSPACE="$(dirname "$(readlink -f "$5")")"
tmp="$TEST_TMPDIR"
use_machine_roots
filter='^(Pointwise / Math / add / Case:  [01]|nn Modules / Linear)$'

# check_run JSON SUITE TORCH_MAJOR_MINOR: every case counted in every mode
# it has, both repeats alike, and the side said in the settings.
check_run() {
  /usr/bin/python3 - "$@" <<'PY' || fail "main --root=$2: see above"
import json, sys
path, suite, torch = sys.argv[1:]
run = json.load(open(path))
settings = run["settings"]
assert f"(root {suite})" in settings["libtorch"], settings["libtorch"]
assert f"torch {torch}." in settings["libtorch"], settings["libtorch"]
assert "toolchain" in settings and "c++" in settings["toolchain"], settings
modes = sorted((c["sub_label"], c["description"]) for c in run["instruction_counts"])
want = sorted([(f"Math / add / Case:  {i}", m) for i in (0, 1)
               for m in ("Python Eager", "C++ Eager")] +
              [("Linear", m) for m in ("Python Eager", "C++ Eager",
                                       "Python TorchScript", "C++ TorchScript")])
assert modes == want, f"counted {modes}, not {want}"
for c in run["instruction_counts"]:
    counts = c["counts"]
    assert len(counts) == 2 and counts[0] == counts[1], (c["sub_label"], c["description"], counts)
    assert c["counts_per_run"] > 1000, c
nodes = {n.get("valgrind") for n in run["nodes"].values()} - {None}
assert nodes and "valgrind-3.19.0" not in nodes, f"counted by {nodes}, not the root's valgrind"
print(f"{suite}: {len(run['instruction_counts'])} counts, repeats alike, valgrind {nodes}")
PY
}

case $suite in
  trixie) torch=2.6 python=3.13 valgrind=3.24 ;;
  sid) torch=2.14 python=3.14 valgrind=3.27 ;;
  *) fail "no expectations for the root $suite" ;;
esac
step "main --root=$suite: built and counted in the root"
"$main" --root="$suite" --filter="$filter" --repeats=2 --output="$tmp/$suite.json" \
  > "$tmp/$suite.out" 2> "$tmp/$suite.log" \
  || { tail -40 "$tmp/$suite.log" >&2; fail "main --root=$suite failed"; }
nested_build_summary "$tmp/$suite.log"
grep -q "icount: --root: root $suite at .*: Python $python" "$tmp/$suite.log" \
  || fail "main did not say which root and Python: $(head -5 "$tmp/$suite.log")"
check_run "$tmp/$suite.json" "$suite" "$torch"
grep -q "nn Modules / Linear  *|" "$tmp/$suite.out" || fail "no table: $(cat "$tmp/$suite.out")"

if [[ $suite == sid ]]; then
  step "ab_test --A=true --B_root=sid: this machine's PyTorch against sid's"
  "$ab_test" --A=true --B_root=sid --filter="$filter" --json="$tmp/ab.json" \
    > "$tmp/ab.out" 2> "$tmp/ab.log" || { tail -40 "$tmp/ab.log" >&2; fail "ab_test failed"; }
  grep -q "A (LibTorch 1.13.0) vs B (LibTorch 2.14.1)" "$tmp/ab.out" || fail "$(head "$tmp/ab.out")"
  grep -q "|C++|1: [-+0-9]* instructions per run; largest per-function changes" "$tmp/ab.out" \
    || fail "no C++ per-function changes: $(cat "$tmp/ab.out")"
  grep -q "|Python|1: [-+0-9]* instructions per run; largest per-function changes" "$tmp/ab.out" \
    || fail "no Python per-function changes"
  # 1.13 against 2.14 moves more functions than the ten shown: the rest are
  # summed on a line of their own, and no "Total:" stands for the rows shown.
  grep -q "^  [-+][0-9]* in [0-9]* other functions$" "$tmp/ab.out" \
    || fail "no line for the functions left out: $(cat "$tmp/ab.out")"
  ! grep -q "^Total:" "$tmp/ab.out" || fail "a Total: line under the per-function changes"
  grep -q 'B with Python 3.14.*c++20 (settings "toolchain")' "$tmp/ab.log" \
    || fail "no warning that the toolchains differ: $(cat "$tmp/ab.log")"
  /usr/bin/python3 - "$tmp/ab.json" <<'PY' || fail "ab_test --json; its failures: $(grep -iE "fail|error|timed out|refused" "$tmp/ab.out" "$tmp/ab.log" | head -30)"
import json, sys
ab = json.load(open(sys.argv[1]))
assert len(ab["comparisons"]) == 8, [c["case"] for c in ab["comparisons"]]
b = ab["libtorch"]["B"]
assert b["root"].startswith("sid (") and b["valgrind"].startswith("valgrind-3.27"), b
assert "c++20" in b["toolchain"], b
PY
fi

if [[ $suite == sid ]]; then
  step "timeit --root=$suite: a C++ statement counted twice alike, a Python one timed"
  "$timeit" --root="$suite" --language=cpp --setup='auto x = torch::ones({4, 4});' \
    --stmt='torch::add(x, x);' --number=100 --callgrind --callgrind_number=20 --repeats=2 \
    --json="$tmp/timeit_cpp.json" > "$tmp/timeit_cpp.out" 2> "$tmp/timeit_cpp.log" \
    || { tail -40 "$tmp/timeit_cpp.log" >&2; fail "timeit --root=$suite --language=cpp failed"; }
  nested_build_summary "$tmp/timeit_cpp.log"
  grep -qE "^2 repeats: ([0-9]+), \1 instructions \(identical\)$" "$tmp/timeit_cpp.out" \
    || fail "no repeats, or they differ: $(cat "$tmp/timeit_cpp.out")"
  grep -q "libtorch_cpu.so.$torch" "$tmp/timeit_cpp.out" \
    || fail "not the root's LibTorch: $(cat "$tmp/timeit_cpp.out")"
  "$timeit" --root="$suite" --language=python --setup='x = torch.ones(4, 4)' --stmt='torch.add(x, x)' \
    --number=100 --json="$tmp/timeit_python.json" > "$tmp/timeit_python.out" 2> "$tmp/timeit_python.log" \
    || { tail -40 "$tmp/timeit_python.log" >&2; fail "timeit --root=$suite --language=python failed"; }
  /usr/bin/python3 - "$tmp" "$suite" "$torch" "$python" "$valgrind" <<'PY' || fail "timeit's results files"
import json, sys
tmp, suite, torch, python, valgrind = sys.argv[1:]
for language in ("cpp", "python"):
    run = json.load(open(f"{tmp}/timeit_{language}.json"))
    settings = run["settings"]
    assert f"torch {torch}." in settings["libtorch"] and f"(root {suite})" in settings["libtorch"], settings
    assert settings["toolchain"].startswith(f"Python {python}."), settings
    assert f"--root={suite}" in run["command"], run["command"]
    assert len(run["measurements"]) == 1, run["measurements"]
cpp = json.load(open(f"{tmp}/timeit_cpp.json"))
assert cpp["settings"]["valgrind"].startswith(f"valgrind-{valgrind}"), cpp["settings"]
assert cpp["instruction_counts"][0]["counts"][0] == cpp["instruction_counts"][0]["counts"][1], cpp
PY
fi

if [[ $suite == trixie ]]; then
  step "bad roots: each refused before anything is built, with what to do"
  expect_refusal() {  # expect_refusal MESSAGE ROOT
    "$main" --root="$2" --filter="$filter" > "$tmp/bad.out" 2>&1 && fail "--root=$2 was taken"
    grep -qF -- "$1" "$tmp/bad.out" || fail "--root=$2: $(cat "$tmp/bad.out")"
  }
  expect_refusal "main: --root: $tmp/missing: no such directory" "$tmp/missing"
  mkdir -p "$tmp/bare/usr"
  expect_refusal "has no /bin/sh: a root is a whole system" "$tmp/bare"
  expect_refusal "neither a directory" "Sid"
  expect_refusal "Debian has no suite named nosuchsuite" nosuchsuite
fi
echo PASS
