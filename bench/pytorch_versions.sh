#!/usr/bin/env bash
# The whole suite's counts on the PyTorch releases Debian ships, each in
# its own system: this machine's (bookworm: 1.13.1), trixie's (2.6.0) and
# sid's (2.14.1), run by `ab_test --sides` with the other two as roots
# (docs/roots.md), then tabled by bench/pytorch_versions.py. The roots and
# their builds are made the first time (about 10 minutes on 2 CPUs).
#
#   bench/pytorch_versions.sh OUT_DIR     # OUT_DIR/sides.json, sides.txt, table.md
set -euo pipefail
out=${1:?usage: bench/pytorch_versions.sh OUT_DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.."
cat > "$out/sides.txt" <<'SIDES'
# This machine's PyTorch, then Debian's newer ones, each in its own root.
[1.13.1 bookworm] true
[2.6.0 trixie, root=trixie]
[2.14.1 sid, root=sid]
SIDES
./bazelw build //tools:ab_test >"$out/build.log" 2>&1 || { tail -30 "$out/build.log" >&2; exit 1; }
start=$SECONDS
bazel-bin/tools/ab_test --sides="$out/sides.txt" --json="$out/sides.json" \
  >"$out/sides.out" 2>"$out/sides.log" || { tail -30 "$out/sides.log" >&2; exit 1; }
seconds=$((SECONDS - start))
{
  echo "On $(bench/machine.py 2>/dev/null || uname -m), at $(git rev-parse --short HEAD):"
  echo "\`bench/pytorch_versions.sh\` ran the sides in $((seconds / 60)) min $((seconds % 60)) s."
  echo
  /usr/bin/python3 bench/pytorch_versions.py "$out/sides.json"
} | tee "$out/table.md"
