#!/usr/bin/env bash
# //tools:timeit end to end: wall time and counts for a Python snippet, the
# results file //tools:compare reads, and usage errors.
set -u
timeit="$1"
compare="$2"
tmp="${TEST_TMPDIR:-/tmp}"
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/test_steps.sh"

"$timeit" --language=python --setup='x = torch.ones(4, 4)' --stmt='torch.add(x, x)' \
  --number=1000 --callgrind --callgrind_number=20 --repeats=2 --top=3 --json="$tmp/t.json" \
  > "$tmp/out.txt" 2> "$tmp/err.txt" || fail "timeit failed: $(cat "$tmp/err.txt")"
grep -q "1 measurement, 1000 runs , 1 thread" "$tmp/out.txt" || fail "no Timeit summary: $(cat "$tmp/out.txt")"
grep -q "Instructions:" "$tmp/out.txt" || fail "no callgrind summary"
grep -q "Per run:" "$tmp/out.txt" || fail "no per-run count"
grep -qE "^2 repeats: ([0-9]+), \1 instructions \(identical\)$" "$tmp/out.txt" \
  || fail "no repeats, or they differ: $(cat "$tmp/out.txt")"
# Three functions, the rest on a line of their own, and a total of all of
# them: the region's count with noise removed.
[[ $(sed -n '/^Top functions/,/^$/p' "$tmp/out.txt" | grep -cE "^ +[0-9]+  ") == 3 ]] \
  || fail "not 3 functions: $(cat "$tmp/out.txt")"
grep -qE "^  [0-9]+ in [0-9]+ other functions$" "$tmp/out.txt" || fail "no line for the others"
denoised=$(sed -n 's/^    Instructions: .* \([0-9][0-9]*\)$/\1/p' "$tmp/out.txt")
grep -qx "Total: $denoised" "$tmp/out.txt" || fail "Total is not the region's $denoised: $(cat "$tmp/out.txt")"
"$compare" --input="$tmp/t.json" | grep -q "torch.add(x, x)" || fail "compare cannot read --json output"
# The results file says what measured: Debian's LibTorch (timeit's default),
# the toolchain, valgrind and its options, and the command line.
/usr/bin/python3 - "$tmp/t.json" <<'PY' || fail "what t.json records: $(cat "$tmp/t.json")"
import json, sys
run = json.load(open(sys.argv[1]))
settings = run["settings"]
assert "(Debian's system install) at /usr" in settings["libtorch"], settings
assert settings["libtorch_install"].startswith("torch "), settings
assert settings["toolchain"].startswith("Python 3.") and ", g++ " in settings["toolchain"], settings
assert settings["valgrind"].startswith("valgrind-"), settings
assert settings["valgrind_options"].startswith("--tool=callgrind "), settings
assert "wall_time_disturbances" in settings, settings
assert "'--stmt=torch.add(x, x)'" in run["command"], run["command"]
PY

"$timeit" --language=cpp --setup='auto x = torch::ones({2});' --stmt='auto y = x +;' > /dev/null 2> "$tmp/cpp.err" \
  && fail "a C++ statement that does not compile must fail"
grep -q "stmt:1:" "$tmp/cpp.err" || fail "compile error should point at stmt:1: $(cat "$tmp/cpp.err")"
"$timeit" --language=python --stmt='raise ValueError("nope")' --number=10 > /dev/null 2> "$tmp/raise.err" \
  && fail "a raising statement must fail"
grep -q "ValueError: nope" "$tmp/raise.err" || fail "exception text missing"
# The traceback names the user's own line of setup or stmt, as compile
# errors do, not the generated function's.
"$timeit" --language=python --setup=$'a = 1\nb = 2\nraise ValueError("in setup")' --stmt=pass \
  --number=10 > /dev/null 2> "$tmp/setup_raise.err" && fail "a raising setup must fail"
grep -qx '  File "setup", line 3' "$tmp/setup_raise.err" || fail "setup's line: $(cat "$tmp/setup_raise.err")"
"$timeit" --language=python --stmt=$'b = 2\nc = 1/0' --number=10 > /dev/null 2> "$tmp/stmt_raise.err" \
  && fail "a raising statement must fail"
grep -qx '  File "stmt", line 2' "$tmp/stmt_raise.err" || fail "stmt's line: $(cat "$tmp/stmt_raise.err")"
# A statement that crashes, exits or hangs is reported, never the tool's own
# death by a signal.
expect_error() {  # expect_error NAME PATTERN timeit-args...
  local name="$1" pattern="$2"
  shift 2
  "$timeit" "$@" > /dev/null 2> "$tmp/$name.err"
  local code=$?
  [ "$code" -eq 1 ] || fail "$name: exit code $code, expected 1: $(cat "$tmp/$name.err")"
  grep -q -- "$pattern" "$tmp/$name.err" || fail "$name: no \"$pattern\" in: $(cat "$tmp/$name.err")"
}
expect_error segfault "crashed (killed by signal 11 (Segmentation fault))" \
  --language=cpp --stmt='volatile int* p = nullptr; *p = 1;' --number=10
grep -q "stmt: volatile int\* p = nullptr; \*p = 1;" "$tmp/segfault.err" || fail "segfault: statement not named"
expect_error abort "crashed (killed by signal 6 (Aborted))" \
  --language=cpp --stmt='std::abort();' --global_setup='#include <cstdlib>' --number=10
expect_error exit "ended the process (exit code 3) before timing finished" \
  --language=python --setup='import os' --stmt='os._exit(3)' --number=10
expect_error hang "did not finish within 1 s (--timeout)" \
  --language=python --setup='import time' --stmt='time.sleep(100)' --number=10 --timeout=1
# Usage errors, before anything runs.
expect_error language '--language must be cpp or python, got "rust"' --language=rust --stmt=x
expect_error no_stmt "--stmt is required" --language=python
expect_error conflict "choose one of --number, --autorange and --adaptive" --language=python --stmt=x --number=5 --adaptive
expect_error adaptive_zero '--adaptive wants a positive threshold, got "0"' --language=python --stmt=x --adaptive=0
expect_error python_global "--global_setup is C++ only" --language=python --stmt=x --global_setup='#include <cmath>'
expect_error repeats_alone "timeit: --repeats applies to the instruction counts of --callgrind: add --callgrind, or drop it" \
  --language=python --stmt=x --repeats=3
expect_error cache_sim_alone "timeit: --cache_sim applies to the instruction counts of --callgrind" --language=python --stmt=x --cache_sim
expect_error unknown_flag "Unknown command line flag 'no_such_flag'" --language=python --stmt=x --no_such_flag
# A LibTorch directory has no torch Python package: a Python statement is
# refused before timeit is built for it (this one would not build).
libtorch="$tmp/libtorch"
fake_libtorch_directory "$libtorch"
expect_error libtorch_python "timeit: --libtorch: --language=python cannot run there: a LibTorch directory has no torch Python package; time a C++ statement there (--language=cpp)" \
  --libtorch="$libtorch" --language=python --stmt=x
grep -q "building" "$tmp/libtorch_python.err" && fail "built before refusing: $(cat "$tmp/libtorch_python.err")"
expect_error positional 'timeit: unexpected argument "extra": this program takes only flags' --language=python --stmt=x extra
expect_error zero_number "timeit: --number=0: must be at least 1" --language=python --stmt=pass --number=0
expect_error negative_number "timeit: --number=-5: must be at least 1" --language=python --stmt=pass --number=-5
expect_error zero_time "timeit: --min_run_time=0: must be greater than 0" --language=python --stmt=pass --min_run_time=0
expect_error time_beside_number "timeit: --min_run_time is the wall time of --autorange, which --number and --adaptive replace: drop one" \
  --language=python --stmt=pass --number=10 --min_run_time=1
expect_error negative_threads "timeit: --num_threads=-2: must be at least 1" --language=python --stmt=pass --number=10 --num_threads=-2
# Thousands of threads would take LibTorch minutes to start: refused.
cpus=$(getconf _NPROCESSORS_ONLN)
most=$((4 * cpus > 256 ? 4 * cpus : 256))
expect_error many_threads "timeit: --num_threads=100000: must be at most $most, the larger of 256 and 4 threads per CPU (this machine has $cpus): LibTorch starts a thread for each" \
  --language=cpp --stmt='int x = 0;' --number=10 --num_threads=100000
expect_error negative_timeout "timeit: --timeout=-1: must be at least 0" --language=python --stmt=pass --number=10 --timeout=-1
expect_error zero_callgrind_number "timeit: --callgrind_number=0: must be at least 1" \
  --language=python --stmt=pass --number=10 --callgrind --callgrind_number=0
expect_error zero_repeats "timeit: --repeats=0: must be at least 1" --language=python --stmt=pass --number=10 --callgrind --repeats=0
printf 'name,count\nadd,1\n' > "$tmp/foreign.csv"
expect_error foreign_json "--json: $tmp/foreign.csv exists and is not an icount results file" \
  --language=python --stmt=pass --number=10 --json="$tmp/foreign.csv"
[ "$(cat "$tmp/foreign.csv")" = "$(printf 'name,count\nadd,1')" ] || fail "timeit touched the CSV"
echo PASS
