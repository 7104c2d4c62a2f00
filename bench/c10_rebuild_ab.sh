#!/usr/bin/env bash
# A real A/B fixture: two LibTorch directories whose libc10.so is rebuilt
# from Debian's pytorch 1.13.1 source with the same flags, B with one line
# added to c10::alloc_cpu (`memset(data, 0, nbytes);`, every CPU
# allocation zeroed). The rest of LibTorch and the headers are Debian's.
# ab_test builds the worker for each side, then compares them over the
# suite's C++ cases (a LibTorch directory has no torch package): the
# allocating cases move, with alloc_cpu and memset named; the others do not.
#
#   bench/c10_rebuild_ab.sh [OUT] [ab_test flags, e.g. --filter=REGEX]
#
# The source comes from Debian's archive through a private apt list and
# state directory under OUT (the machine's apt configuration is left
# alone); the libraries are cached under OUT by the source's and the
# change's hash, so a rerun compiles nothing. Needs libnuma-dev,
# libfmt-dev, libgoogle-glog-dev and libgflags-dev (./bazelw installs
# them). Writes OUT/ab.txt, OUT/ab.json and OUT/ab.log.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-$HOME/.cache/icount/c10-rebuild}
shift || true
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
say() { echo "c10_rebuild_ab: $*" >&2; }

# 1. The source, from Debian's archive (bookworm's pytorch).
tarball=$(ls "$OUT"/pytorch_1.13.1*.orig.tar.xz 2>/dev/null | head -1 || true)
if [[ -z $tarball ]]; then
  apt_dir=$OUT/apt
  mkdir -p "$apt_dir/parts" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
  : > "$apt_dir/none.list"
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    > "$apt_dir/parts/bookworm-src.sources"
  apt_options=(-o "Dir::Etc::SourceList=$apt_dir/none.list" -o "Dir::Etc::SourceParts=$apt_dir/parts"
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o Debug::NoLocking=1)
  say "downloading Debian's pytorch source (about 18 MB)"
  apt-get "${apt_options[@]}" update >&2
  # The original tarball is what c10 needs; Debian's packaging tarball may
  # have left the mirror, which is fine.
  (cd "$OUT" && apt-get "${apt_options[@]}" source --download-only pytorch >&2) || true
  tarball=$(ls "$OUT"/pytorch_1.13.1*.orig.tar.xz 2>/dev/null | head -1 || true)
  [[ -n $tarball ]] || { say "could not download pytorch's source (see above)"; exit 1; }
fi

# 2. Two libc10.so builds, cached by the source's and the change's hash.
change='  memset(data, 0, nbytes);  // icount c10_rebuild_ab: B zeroes every allocation'
key=$(cat "$tarball" <(echo "$change") <(g++ --version) | sha256sum | cut -c1-16)
build_c10() {  # NAME WITH_CHANGE: OUT/<key>/NAME/libc10.so.1.13
  local name=$1 with_change=$2 dir=$OUT/$key/$1
  [[ -f $dir/lib/libc10.so.1.13 ]] && return
  say "building libc10.so ($name)"
  rm -rf "$dir" && mkdir -p "$dir/src" "$dir/obj" "$dir/lib"
  tar -xJf "$tarball" -C "$dir/src" --strip-components=1 --wildcards '*/c10/*'
  cp /usr/include/c10/macros/cmake_macros.h "$dir/src/c10/macros/"
  if [[ $with_change == yes ]]; then
    python3 - "$dir/src/c10/core/impl/alloc_cpu.cpp" "$change" <<'PY'
import sys
path, change = sys.argv[1], sys.argv[2]
text = open(path).read()
anchor = "  // move data to a thread's NUMA node\n"
assert text.count(anchor) == 1, "alloc_cpu.cpp changed: update bench/c10_rebuild_ab.sh"
open(path, "w").write(text.replace(anchor, change + "\n" + anchor))
PY
  fi
  (cd "$dir/src" && find c10 -name '*.cpp' | grep -v -E '^c10/(test|benchmark|cuda|hip|mobile)/' |
    xargs -P "$(nproc)" -I{} sh -c 'g++ -O2 -fPIC -std=c++17 -DC10_BUILD_MAIN_LIB -I. -w -c "$1" -o "$2/$(echo "$1" | tr / _).o"' _ {} "$dir/obj")
  g++ -shared -Wl,-soname,libc10.so.1.13 -o "$dir/lib/libc10.so.1.13" "$dir"/obj/*.o \
    -lglog -lgflags -lnuma -lfmt -lpthread
  rm -rf "$dir/src" "$dir/obj"
}
build_c10 A no
build_c10 B yes

# 3. LibTorch directories: Debian's headers and libraries but libc10.
for side in A B; do
  root=$OUT/$key/$side
  mkdir -p "$root/include" "$root/share/cmake/Torch"
  for d in torch ATen c10 caffe2; do ln -sfn "/usr/include/$d" "$root/include/$d"; done
  ln -sfn libc10.so.1.13 "$root/lib/libc10.so"
  for lib in libtorch libtorch_cpu; do
    ln -sfn "/usr/lib/x86_64-linux-gnu/$lib.so" "$root/lib/$lib.so"
  done
  cp /usr/lib/x86_64-linux-gnu/cmake/Torch/TorchConfig.cmake "$root/share/cmake/Torch/"
done

# 4. The A/B.
start=$(date +%s)
./bazelw run //tools:ab_test -- --A=true --A_libtorch="$OUT/$key/A" --B=true \
  --B_libtorch="$OUT/$key/B" --json="$OUT/ab.json" "$@" > "$OUT/ab.txt" 2> "$OUT/ab.log" || {
  say "ab_test failed; see $OUT/ab.log"
  tail -20 "$OUT/ab.log" >&2
  exit 1
}
say "ab_test: $(($(date +%s) - start)) s (builds included); table in $OUT/ab.txt"
cat "$OUT/ab.txt"
