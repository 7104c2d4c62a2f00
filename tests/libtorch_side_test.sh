#!/usr/bin/env bash
# A side that brings its own LibTorch: a relocated copy of Debian's (the
# libraries copied, as an unpacked LibTorch archive lays them out) with one
# inline function of a c10 header changed, and one API changed as a
# developer's branch might (c10::InferenceMode's constructor explicit, its
# argument required). ab_test builds icount's worker and C++ cases against
# it (a nested Bazel build of this checkout), leaving out the cases that no
# longer compile, and compares it with Debian's: the worker provably loads
# the copies (/proc/PID/maps), the case that drops tensors changes with the
# function named, a case that does not is counted the same, and a case that
# does not compile fails on that side alone, with the compiler's error.
#
# Runs unsandboxed (no-sandbox: the nested build needs this checkout, found
# through WORKSPACE's link; tests/BUILD.bazel says what its result depends
# on). Its output base lives in the test's directory and goes with it; its
# actions come from the machine's icount disk cache, so only those that see
# the changed header compile.
set -u
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/test_steps.sh"
ab_test="$PWD/$1"
root="$(dirname "$(readlink -f "$2")")"
timeit="$PWD/$3"
tmp="$TEST_TMPDIR"
prefix="$tmp/libtorch"
export ICOUNT_WORKSPACE="$root"
nested_icount_builds "$tmp"

step "a relocated LibTorch with an edited c10/util/intrusive_ptr.h"
mkdir -p "$prefix/include" "$prefix/lib" "$prefix/share/cmake/Torch"
for d in torch ATen caffe2; do ln -s "/usr/include/$d" "$prefix/include/$d"; done
cp -r /usr/include/c10 "$prefix/include/c10"
header="$prefix/include/c10/util/intrusive_ptr.h"
grep -q '^  void reset_() noexcept {$' "$header" || fail "intrusive_ptr.h has no reset_() to edit"
# Every Tensor's release spins first: more work on a path C++ cases inline.
sed -i '0,/^  void reset_() noexcept {$/s//  void reset_() noexcept {\n    for (volatile int spin = 0; spin < 16; spin = spin + 1) {}/' "$header"
grep -q "volatile int spin" "$header" || fail "the edit did not apply"
# And a mark that only code compiled against this copy sees.
echo '#define ICOUNT_EDITED_HEADER 1' >> "$header"
inference="$prefix/include/c10/core/InferenceMode.h"
grep -q '^  InferenceMode(bool enabled = true)$' "$inference" || fail "InferenceMode.h has no constructor to edit"
sed -i 's/^  InferenceMode(bool enabled = true)$/  explicit InferenceMode(bool enabled)/' "$inference"
for lib in libtorch libtorch_cpu libc10; do
  real=$(readlink -f "/usr/lib/x86_64-linux-gnu/$lib.so")
  soname=$(basename "$(readlink "/usr/lib/x86_64-linux-gnu/$lib.so")")
  cp "$real" "$prefix/lib/"
  ln -s "$(basename "$real")" "$prefix/lib/$soname"
  ln -s "$soname" "$prefix/lib/$lib.so"
done
cp /usr/lib/x86_64-linux-gnu/cmake/Torch/TorchConfig.cmake "$prefix/share/cmake/Torch/"

step "ab_test, B on the relocated LibTorch (builds the worker for it)"
# InferenceMode / View does not compile against B: it fails there alone,
# and the run exits 1 for it, the other cases compared.
filter='^(Empty / no allocation|Metadata and views / size|InferenceMode / View)$'
status=0
"$ab_test" --A=true --B=true --B_libtorch="$prefix" --filter="$filter" --json="$tmp/ab.json" \
  > "$tmp/ab.txt" 2> "$tmp/ab.log" || status=$?
[[ $status == 1 ]] || fail "ab_test exited $status, not 1 for a failed case: $(tail -30 "$tmp/ab.log")"
nested_build_summary "$tmp/ab.log"
version=$(debian_libtorch_version)
grep -q "^ab_test: B: measures torch $version (LibTorch directory) at $prefix, found by --B_libtorch$" "$tmp/ab.log" \
  || fail "what B has: $(head -5 "$tmp/ab.log")"
grep -q "^ab_test: B: bazel: \[" "$tmp/ab.log" || fail "no build progress: $(head -20 "$tmp/ab.log")"
step "the InferenceMode cases do not compile against B: left out, the rest built"
grep -q "^ab_test: B: does not compile against it: InferenceMode/View|Eager|Forward|C++|1: .*InferenceMode.*error: " \
  "$tmp/ab.log" || fail "no compile error named: $(grep -i "compile\|error" "$tmp/ab.log" | head -20)"
grep -q "^ab_test: B: building again without 3 C++ cases that do not compile against it$" "$tmp/ab.log" \
  || fail "not built again without them: $(grep "^ab_test: B: [^b]" "$tmp/ab.log" | head -20)"
grep -q "Python cases are skipped" "$tmp/ab.log" || fail "a LibTorch directory runs C++ cases only"
worker=$(sed -n 's/^ab_test: B: worker \(.*\) (fingerprint [0-9a-f]*)$/\1/p' "$tmp/ab.log")
[[ -x $worker ]] || fail "no worker built for B: $(grep worker "$tmp/ab.log")"

step "B's worker loads the copies"
mkfifo "$tmp/orders"
# The worker blocks opening its orders (a FIFO): its libraries are mapped.
"$worker" --scratch="$tmp/scratch" --orders="$tmp/orders" --python=false 2> "$tmp/worker.log" &
pid=$!
maps_name_libtorch() { grep -q "libtorch_cpu" "/proc/$pid/maps"; }
wait_for 60 "the worker to map LibTorch" maps_name_libtorch
grep "libtorch_cpu\|libc10" "/proc/$pid/maps" > "$tmp/maps"
kill "$pid"
wait "$pid" 2>/dev/null
grep -q "$prefix/lib/libtorch_cpu.so" "$tmp/maps" || fail "B's worker maps: $(cat "$tmp/maps")"
grep -q "$prefix/lib/libc10.so" "$tmp/maps" || fail "B's worker maps: $(cat "$tmp/maps")"
grep -q "/usr/lib/x86_64-linux-gnu/libtorch_cpu" "$tmp/maps" && fail "Debian's LibTorch mapped too"

step "the changed function shows where it runs, and only there"
empty=$(ab_json_count_delta_pct "$tmp/ab.json" "Empty/no allocation|Eager|Forward|C++")
size=$(ab_json_count_delta_pct "$tmp/ab.json" "Metadata and views/size|Eager|Forward|C++")
[[ -n $empty && -n $size ]] || fail "cases missing from the comparisons: $(head -c 2000 "$tmp/ab.json")"
awk -v d="$empty" 'BEGIN { exit !(d >= 5) }' || fail "Empty / no allocation moved by $empty%, not by the spin"
awk -v d="$size" 'BEGIN { exit !(d == 0) }' || fail "Metadata and views / size moved by $size%"
# The table cuts a long name at its end: sid's 2.14.1 names the function
# "c10::intrusive_ptr<c10::TensorImpl, c10::UndefinedTensorImpl>::reset_(...".
grep -q "intrusive_ptr<.*>::reset_(" "$tmp/ab.txt" \
  || fail "per-function table does not name reset_(): $(cat "$tmp/ab.txt")"

step "the case that does not compile against B fails in B alone"
grep -q "^ab_test: InferenceMode/View|Eager|Forward|C++|1 failed in B: compile: does not compile against this side's LibTorch: .*InferenceMode.*error: " \
  "$tmp/ab.log" || fail "B's failure: $(grep "failed in" "$tmp/ab.log")"
grep -q "failed in A" "$tmp/ab.log" && fail "A failed too: $(grep "failed in" "$tmp/ab.log")"

step "a second run, --sides with a side on the relocated LibTorch, builds nothing"
printf '[debian] true\n[edited, libtorch=%s]\n' "$prefix" > "$tmp/sides.txt"
"$ab_test" --sides="$tmp/sides.txt" --filter='^Empty / no allocation$' \
  > "$tmp/sides.out" 2> "$tmp/again.log" || fail "ab_test --sides: $(tail -30 "$tmp/again.log")"
cat "$tmp/sides.out"
grep -q "^ab_test: edited: bazel: INFO: Build completed successfully" "$tmp/again.log" \
  || fail "no build in the second run: $(head -20 "$tmp/again.log")"
grep -q "Compiling" "$tmp/again.log" && fail "the second run compiled: $(grep Compiling "$tmp/again.log" | head)"
grep -q "edited (+" "$tmp/sides.out" || fail "--sides: the edited side must change the case"
step "timeit --libtorch: a C++ statement compiled against the relocated LibTorch"
# The statement compiles only against the copy's headers (the mark), and
# is measured: the run-time snippet follows the LibTorch timeit is built for.
stmt='static_assert(ICOUNT_EDITED_HEADER == 1, "the copy"); auto y = torch::empty({0});'
timeit_flags=(--language=cpp --stmt="$stmt" --number=10 --callgrind --callgrind_number=20)
"$timeit" "${timeit_flags[@]}" --libtorch="$prefix" > "$tmp/side.txt" 2> "$tmp/side.err" \
  || fail "timeit --libtorch: $(tail -20 "$tmp/side.err")"
grep -q "^timeit: --libtorch: measures torch $version (LibTorch directory) at $prefix, found by --libtorch$" \
  "$tmp/side.err" || fail "what timeit measured against: $(head -5 "$tmp/side.err")"
grep -q "Per run: *[0-9]" "$tmp/side.txt" || fail "no counts: $(cat "$tmp/side.txt")"
# Against Debian's headers the same statement does not compile.
if "$timeit" "${timeit_flags[@]}" > "$tmp/own.txt" 2> "$tmp/own.err"; then
  fail "the statement compiled against Debian's headers too"
fi
grep -q "ICOUNT_EDITED_HEADER" "$tmp/own.err" || fail "timeit without --libtorch: $(tail -5 "$tmp/own.err")"
echo PASS
