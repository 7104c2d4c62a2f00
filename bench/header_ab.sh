#!/usr/bin/env bash
# A/B of a change in an inline LibTorch header, which swapping libraries
# (LD_LIBRARY_PATH) cannot show. B is Debian's PyTorch with one header
# edited, laid out as a side can bring it:
#   package    (default) a torch Python package with include/ and lib/, as
#              a wheel or a source build has it, that B's `import torch`
#              finds (--B="export PATH=/usr/bin:$PATH PYTHONPATH=<site>");
#   directory  a LibTorch directory (--B_libtorch=DIR): C++ cases only.
# ab_test finds B's PyTorch, builds icount's worker and C++ cases against
# its headers (the first time; a rerun builds nothing), and compares B's
# counts with A's (Debian's LibTorch).
#
#   bench/header_ab.sh [OUT] [package|directory] [--filter=REGEX ...]
#
# The edit: c10::intrusive_ptr::reset_() (every Tensor's release) spins a
# 16-step volatile loop first. C++ cases that drop tensors move, with
# reset_() named; Python cases run library code built against Debian's
# headers and do not move. Writes OUT/<layout>.json, .txt and .log; the
# fixture stays in OUT for reruns.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-/tmp/icount-header-ab}
LAYOUT=${2:-package}
shift 2 || shift $# || true
filter=("$@")
[[ ${#filter[@]} -eq 0 ]] && filter=(--filter='^(Pointwise / Math / add|Empty / no allocation)')

# include/ and lib/ of Debian's LibTorch as links, with the edited header a
# real file.
make_libtorch() {
  local root=$1 header=$1/include/c10/util/intrusive_ptr.h
  [[ -e $header ]] && return
  mkdir -p "$root/include" "$root/lib" "$root/share/cmake/Torch"
  for d in torch ATen caffe2; do ln -sfn "/usr/include/$d" "$root/include/$d"; done
  cp -rs /usr/include/c10 "$root/include/c10"
  rm "$header"
  python3 - /usr/include/c10/util/intrusive_ptr.h "$header" <<'PY'
import sys
text = open(sys.argv[1]).read()
old = "  void reset_() noexcept {\n    if (target_ != NullType::singleton() &&\n        detail::atomic_refcount_decrement"
assert text.count(old) == 1, "intrusive_ptr.h changed: update bench/header_ab.sh"
new = old.replace("  void reset_() noexcept {\n",
                  "  void reset_() noexcept {\n    for (volatile int spin = 0; spin < 16; spin = spin + 1) {}\n")
open(sys.argv[2], "w").write(text.replace(old, new))
PY
  for lib in libtorch libtorch_cpu libc10; do
    ln -sfn "/usr/lib/x86_64-linux-gnu/$lib.so" "$root/lib/$lib.so"
  done
  cp /usr/lib/x86_64-linux-gnu/cmake/Torch/TorchConfig.cmake "$root/share/cmake/Torch/"
}

case $LAYOUT in
  package)
    site=$OUT/site-packages
    if [[ ! -d $site/torch ]]; then
      # Debian's torch package as links (what `import torch` runs), with an
      # include/ of its own, as a wheel carries it (Debian's is links into
      # /usr/include).
      mkdir -p "$site"
      cp -rs /usr/lib/python3/dist-packages/torch "$site/torch"
      rm -rf "$site/torch/include"
    fi
    make_libtorch "$site/torch"
    side=(--B="export PATH=/usr/bin:\$PATH PYTHONPATH=$site")
    ;;
  directory)
    make_libtorch "$OUT/libtorch"
    side=(--B=true --B_libtorch="$OUT/libtorch")
    ;;
  *) echo "header_ab: layout must be package or directory, not $LAYOUT" >&2; exit 2 ;;
esac

start=$(date +%s)
./bazelw run //tools:ab_test -- --A=true "${side[@]}" "${filter[@]}" \
  --json="$OUT/$LAYOUT.json" >"$OUT/$LAYOUT.txt" 2>"$OUT/$LAYOUT.log" || {
  echo "header_ab: ab_test failed; see $OUT/$LAYOUT.log" >&2
  tail -20 "$OUT/$LAYOUT.log" >&2
  exit 1
}
echo "header_ab: $LAYOUT: $(($(date +%s) - start)) s; table in $OUT/$LAYOUT.txt" >&2
cat "$OUT/$LAYOUT.txt"
