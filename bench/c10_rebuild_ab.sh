#!/usr/bin/env bash
# A real A/B fixture: two LibTorch directories whose libc10.so is rebuilt
# from Debian's pytorch 1.13.1 source with the same flags, B with one line
# added to c10::alloc_cpu (`memset(data, 0, nbytes);`, every CPU
# allocation zeroed), made by bench/c10_rebuild.sh. The rest of LibTorch
# and the headers are Debian's. ab_test builds the worker for each side,
# then compares them over the suite's C++ cases (a LibTorch directory has
# no torch package): the allocating cases move, with alloc_cpu and memset
# named; the others do not.
#
#   bench/c10_rebuild_ab.sh [OUT] [ab_test flags, e.g. --filter=REGEX]
#   C10_AB_A=debian bench/c10_rebuild_ab.sh [OUT] ...   # A: Debian's own LibTorch
#
# With C10_AB_A=debian, A is Debian's LibTorch as installed instead of the
# unchanged rebuild: the A/B then also shows what the rebuild's other
# compiler flags change.
# The source and the libraries are cached in OUT (bench/c10_rebuild.sh),
# so a rerun compiles nothing. Writes OUT/ab.txt, OUT/ab.json and
# OUT/ab.log.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-$HOME/.cache/icount/c10-rebuild}
shift || true
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
say() { echo "c10_rebuild_ab: $*" >&2; }

{ read -r side_a; read -r side_b; } < <(bench/c10_rebuild.sh "$OUT")
[[ -d $side_a && -d $side_b ]] || { say "bench/c10_rebuild.sh failed (see above)"; exit 1; }

start=$(date +%s)
a_flags=(--A=true --A_libtorch="$side_a")
case ${C10_AB_A:-rebuild} in
  rebuild) ;;
  debian) a_flags=(--A=true) ;;
  *) say "C10_AB_A=${C10_AB_A}: expected rebuild or debian"; exit 1 ;;
esac
./bazelw run //tools:ab_test -- "${a_flags[@]}" --B=true \
  --B_libtorch="$side_b" --json="$OUT/ab.json" "$@" > "$OUT/ab.txt" 2> "$OUT/ab.log" || {
  say "ab_test failed; see $OUT/ab.log"
  tail -20 "$OUT/ab.log" >&2
  exit 1
}
say "ab_test: $(($(date +%s) - start)) s (builds included); table in $OUT/ab.txt"
cat "$OUT/ab.txt"
