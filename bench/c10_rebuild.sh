#!/usr/bin/env bash
# Two LibTorch directories whose libc10.so is rebuilt from Debian's pytorch
# 1.13.1 source with the same flags, B with one line added to
# c10::alloc_cpu (`memset(data, 0, nbytes);`: every CPU allocation zeroed).
# Their headers and other libraries are Debian's. Prints the two
# directories, A's on the first line and B's on the second; progress goes
# to stderr.
#
#   bench/c10_rebuild.sh [CACHE]   # CACHE defaults to ~/.cache/icount/c10-rebuild
#
# The source comes from the machine's own Debian mirror, the one its apt
# sources name ($ICOUNT_DEBIAN_MIRROR wins; environment/debian_mirror.sh,
# the mirror icount makes roots from),
# through a private apt list and state directory under CACHE (the
# machine's apt configuration is left alone). The libraries are cached
# under CACHE by the hash of the source, the change, the flags and the
# compiler, so only the first run on a machine compiles (about 1.5 min on
# 2 cores: c10 once, then alloc_cpu.cpp again with the change); runs at
# the same time wait for each other. Needs
# libnuma-dev, libfmt-dev, libgoogle-glog-dev and libgflags-dev (./bazelw
# installs them). Used by bench/c10_rebuild_ab.sh and
# //tests:c10_rebuild_test.
set -euo pipefail
cache=$(realpath -m "${1:-$HOME/.cache/icount/c10-rebuild}")
mkdir -p "$cache"
say() { echo "c10_rebuild: $*" >&2; }
exec 9> "$cache/.lock"
flock 9

# 1. The source, from Debian's archive (bookworm's pytorch).
tarball=$(ls "$cache"/pytorch_1.13.1*.orig.tar.xz 2>/dev/null | head -1 || true)
if [[ -z $tarball ]]; then
  apt_dir=$cache/apt
  mkdir -p "$apt_dir/parts" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
  : > "$apt_dir/none.list"
  # The mirror icount makes roots from (the script says why when there is none).
  mirror=$("$(dirname "${BASH_SOURCE[0]}")/../environment/debian_mirror.sh") || exit 1
  printf 'Types: deb-src\nURIs: %s\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$mirror" > "$apt_dir/parts/bookworm-src.sources"
  apt_options=(-o "Dir::Etc::SourceList=$apt_dir/none.list" -o "Dir::Etc::SourceParts=$apt_dir/parts"
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o Debug::NoLocking=1)
  say "downloading Debian's pytorch source (about 18 MB) from $mirror into $cache"
  apt-get "${apt_options[@]}" --error-on=any update >&2 \
    || { say "apt-get update failed: the Debian mirror $mirror must be reachable and serve bookworm's sources"; exit 1; }
  # The original tarball is what c10 needs; Debian's packaging tarball may
  # have left the mirror, which is fine.
  (cd "$cache" && apt-get "${apt_options[@]}" source --download-only pytorch >&2) || true
  tarball=$(ls "$cache"/pytorch_1.13.1*.orig.tar.xz 2>/dev/null | head -1 || true)
  [[ -n $tarball ]] || { say "could not download pytorch's source (see above)"; exit 1; }
fi

# 2. The two libc10.so builds: every object once, alloc_cpu.cpp twice.
change='  memset(data, 0, nbytes);  // icount c10_rebuild: B zeroes every allocation'
flags=(-O2 -fPIC -std=c++17 -DC10_BUILD_MAIN_LIB -I. -w)
key=$(cat "$tarball" <(echo "$change" "${flags[*]}") <(g++ --version) | sha256sum | cut -c1-16)
root=$cache/$key
if [[ ! -f $root/B/lib/libc10.so.1.13 ]]; then
  say "building libc10.so twice from $(basename "$tarball") into $root"
  work=$cache/build-$key
  rm -rf "$root" "$work" && mkdir -p "$work/src" "$work/obj" "$work/obj-B"
  tar -xJf "$tarball" -C "$work/src" --strip-components=1 --wildcards '*/c10/*'
  cp /usr/include/c10/macros/cmake_macros.h "$work/src/c10/macros/"
  (cd "$work/src" && export OBJ="$work/obj" && find c10 -name '*.cpp' |
    grep -v -E '^c10/(test|benchmark|cuda|hip|mobile)/' |
    xargs -P "$(nproc)" -I{} sh -c 'g++ "$@" -c "$0" -o "$OBJ/$(echo "$0" | tr / _).o"' {} "${flags[@]}")
  alloc_cpu=c10/core/impl/alloc_cpu.cpp
  /usr/bin/python3 - "$work/src/$alloc_cpu" "$change" <<'PY'
import sys
path, change = sys.argv[1], sys.argv[2]
text = open(path).read()
anchor = "  // move data to a thread's NUMA node\n"
assert text.count(anchor) == 1, "alloc_cpu.cpp changed: update bench/c10_rebuild.sh"
open(path, "w").write(text.replace(anchor, change + "\n" + anchor))
PY
  alloc_cpu_object=$(echo "$alloc_cpu" | tr / _).o
  (cd "$work/src" && g++ "${flags[@]}" -c "$alloc_cpu" -o "$work/obj-B/$alloc_cpu_object")
  for object in "$work"/obj/*.o; do
    [[ $(basename "$object") == "$alloc_cpu_object" ]] || ln "$object" "$work/obj-B/"
  done
  for side in A B; do
    objects=$work/obj
    [[ $side == B ]] && objects=$work/obj-B
    mkdir -p "$work/$side/lib"
    g++ -shared -Wl,-soname,libc10.so.1.13 -o "$work/$side/lib/libc10.so.1.13" "$objects"/*.o \
      -lglog -lgflags -lnuma -lfmt -lpthread
  done
  mkdir -p "$root" && mv "$work/A" "$work/B" "$root/"
  rm -rf "$work"
fi

# 3. LibTorch directories: Debian's headers and libraries but libc10.
for side in A B; do
  mkdir -p "$root/$side/include" "$root/$side/share/cmake/Torch"
  for d in torch ATen c10 caffe2; do ln -sfn "/usr/include/$d" "$root/$side/include/$d"; done
  ln -sfn libc10.so.1.13 "$root/$side/lib/libc10.so"
  for lib in libtorch libtorch_cpu; do
    ln -sfn "/usr/lib/x86_64-linux-gnu/$lib.so" "$root/$side/lib/$lib.so"
  done
  cp /usr/lib/x86_64-linux-gnu/cmake/Torch/TorchConfig.cmake "$root/$side/share/cmake/Torch/"
done
echo "$root/A"
echo "$root/B"
