#!/usr/bin/env bash
# Re-measures the README's figures on this machine, one after another (run
# it on an otherwise idle machine; it takes about an hour on 2 cores), and
# prints one summary line per figure. Each figure's full output is kept in
# OUT (default /tmp/icount-figures).
#
#   bench/readme_figures.sh [OUT] [FIGURE...]
#
# FIGURE is any of: timer main full5 ab abtime cold (default: all).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-/tmp/icount-figures}"
shift || true
figures=("$@")
[[ ${#figures[@]} -gt 0 ]] || figures=(timer main full5 ab abtime cold)
mkdir -p "$out"

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs," \
  "rdtscp in CPUID: $(grep -qw rdtscp /proc/cpuinfo && echo yes || echo no)," \
  "commit $(git rev-parse --short HEAD)"
./bazelw build //tools:main //tools:ab_test //timer:timer_benchmark >"$out/build.log" 2>&1 \
  || { echo "build failed: see $out/build.log"; exit 1; }

# timed NAME COMMAND...: runs it, output in $out/$name.{out,err}, prints seconds.
timed() {
  local name="$1"
  shift
  local start
  start=$(date +%s%N)
  "$@" >"$out/$name.out" 2>"$out/$name.err"
  local status=$?
  echo "$name: $(( ($(date +%s%N) - start) / 1000000000 )) s (exit $status)"
}

for figure in "${figures[@]}"; do
  case "$figure" in
    timer)
      timed timer_benchmark ./bazel-bin/timer/timer_benchmark
      grep -E 's$|instructions|ns' "$out/timer_benchmark.out" | sed 's/^/  /'
      ;;
    main)
      timed main_default ./bazel-bin/tools/main
      grep -E 'failed|done' "$out/main_default.err" | tail -1 | sed 's/^/  /'
      ;;
    full5)
      rm -f "$out/full5.json" "$out/full5.json.journal"
      timed full5 ./bazel-bin/tools/main --repeats=5 --output="$out/full5.json"
      /usr/bin/python3 - "$out/full5.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
counts = d["instruction_counts"]
same = sum(1 for c in counts if len(set(c["counts"])) == 1)
print(f"  {len(counts)} count cases, {same} with all repeats identical; "
      f"{len(d['measurements'])} wall-time measurements")
PY
      ;;
    ab)
      rm -f "$out/ab.json"*
      timed ab_counts /usr/bin/time -v ./bazel-bin/tools/ab_test --A=true --B=true --json="$out/ab.json"
      grep 'Maximum resident' "$out/ab_counts.err" | sed 's/^\s*/  /'
      ;;
    abtime)
      rm -f "$out/abt.json"*
      timed ab_time ./bazel-bin/tools/ab_test --A=true --B=true --display_time --json="$out/abt.json"
      ;;
    cold)
      # A clean clone, as CI sees it: the workspace's own bazel-* symlinks
      # would point into another output root and be read as packages.
      cold=$(mktemp -d /tmp/icount-cold.XXXXXX)
      git clone -q . "$cold/clone"
      timed cold_test env -C "$cold/clone" ./bazelw --output_user_root="$cold/root" \
        test //... --disk_cache=
      grep -hE '^Executed|^INFO: Elapsed' "$out/cold_test.out" "$out/cold_test.err" | sed 's/^/  /'
      (cd "$cold/clone" && ./bazelw --output_user_root="$cold/root" shutdown >/dev/null 2>&1)
      chmod -R u+w "$cold" && rm -rf "$cold"
      ;;
    *) echo "unknown figure $figure" ;;
  esac
done
