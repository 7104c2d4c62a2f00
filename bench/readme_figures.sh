#!/usr/bin/env bash
# Re-measures the README's figures on this machine, one after another (run
# it on an otherwise idle machine; it takes about an hour on 2 cores), and
# prints one summary line per figure. Each figure's full output is kept in
# OUT (default /tmp/icount-figures).
#
#   bench/readme_figures.sh [--against=COMMIT | --flag=FLAG] [--rounds=N] [OUT] [FIGURE...]
#
# FIGURE is any of: timer main full5 ab abtime cold (default: all).
#
# --against=COMMIT measures before and after on the same day: it builds
# COMMIT in a git worktree (OUT/against) and runs each of the figures main,
# full5 and ab there and here alternately, N rounds (default 1). Compare
# builds so: machines of one kind run the suite 2-4x apart (CPUs a
# generation apart, by one name), and not by the same factor for every
# build.
#
# --flag=FLAG measures an option the same way, in this build: main, full5
# and ab without and with FLAG (e.g. --rehearse_torchscript) alternately.
set -uo pipefail
cd "$(dirname "$0")/.."
against=""
flag=""
rounds=1
while [[ $# -gt 0 && "$1" == --* ]]; do
  case "$1" in
    --against=*) against="${1#--against=}" ;;
    --flag=*) flag="${1#--flag=}" ;;
    --rounds=*) rounds="${1#--rounds=}" ;;
    *) echo "unknown option $1 (see the header of $0)"; exit 2 ;;
  esac
  shift
done
if [[ -n "$against" && -n "$flag" ]]; then echo "--against and --flag: one at a time"; exit 2; fi
out="${1:-/tmp/icount-figures}"
shift || true
figures=("$@")
if [[ ${#figures[@]} -eq 0 ]]; then
  if [[ -n "$against$flag" ]]; then figures=(main full5 ab); else figures=(timer main full5 ab abtime cold); fi
fi
mkdir -p "$out" && out=$(realpath "$out")

echo "machine: $(python3 bench/machine.py), commit $(git rev-parse --short HEAD)"
./bazelw build //tools:main //tools:ab_test //timer:timer_benchmark >"$out/build.log" 2>&1 \
  || { echo "build failed: see $out/build.log"; exit 1; }

# timed NAME COMMAND...: runs it, output in $out/$name.{out,err}, prints
# its seconds of wall, user and system time (bash's `time`: the command and
# every process it waited for).
timed() {
  local name="$1"
  shift
  local TIMEFORMAT="%R %U %S" seconds status
  seconds=$({ time "$@" >"$out/$name.out" 2>"$out/$name.err"; } 2>&1)
  status=$?
  read -r wall user sys <<<"$seconds"
  echo "$name: ${wall} s wall, ${user} s user, ${sys} s system (exit $status)"
}

# run_figure TREE SUFFIX FIGURE [FLAG...]: one figure, with the build in
# TREE, its files named with SUFFIX, main and ab_test given FLAGs.
run_figure() {
  local tree="$1" suffix="$2" figure="$3"
  shift 3
  local flags=("$@")
  case "$figure" in
    timer)
      timed timer_benchmark env -C "$tree" bazel-bin/timer/timer_benchmark
      grep -E 's$|instructions|ns' "$out/timer_benchmark.out" | sed 's/^/  /'
      ;;
    main)
      timed "main_default$suffix" env -C "$tree" bazel-bin/tools/main "${flags[@]}"
      grep -E 'failed|done' "$out/main_default$suffix.err" | tail -1 | sed 's/^/  /'
      ;;
    full5)
      rm -f "$out/full5$suffix.json" "$out/full5$suffix.json.journal"
      timed "full5$suffix" env -C "$tree" bazel-bin/tools/main --repeats=5 \
        --output="$out/full5$suffix.json" "${flags[@]}"
      /usr/bin/python3 - "$out/full5$suffix.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
counts = d["instruction_counts"]
same = sum(1 for c in counts if len(set(c["counts"])) == 1)
print(f"  {len(counts)} count cases, {same} with all repeats identical; "
      f"{len(d['measurements'])} wall-time measurements")
PY
      ;;
    ab)
      rm -f "$out/ab$suffix.json"*
      # Peak RSS from GNU time where it is installed.
      local rss=()
      [[ -x /usr/bin/time ]] && rss=(/usr/bin/time -v)
      timed "ab_counts$suffix" env -C "$tree" "${rss[@]}" bazel-bin/tools/ab_test --A=true --B=true \
        --json="$out/ab$suffix.json" "${flags[@]}"
      grep 'Maximum resident' "$out/ab_counts$suffix.err" | sed 's/^\s*/  /'
      ;;
    abtime)
      rm -f "$out/abt.json"*
      timed ab_time env -C "$tree" bazel-bin/tools/ab_test --A=true --B=true --display_time \
        --json="$out/abt.json"
      ;;
    cold)
      # bench/ci_time.sh: a clean clone, cold and with nothing changed.
      timed cold_test bench/ci_time.sh "$out/ci_time"
      sed 's/^/  /' "$out/ci_time/ci_time.md"
      ;;
    *) echo "unknown figure $figure" ;;
  esac
}

# alternate_rounds OPTION TREE1 NAME1 TREE2 NAME2 [FLAG]: each round runs
# every figure (main, full5, ab) with TREE1's build, then with TREE2's given
# FLAG; files and lines are named NAME1 and NAME2.
alternate_rounds() {
  local option="$1" tree1="$2" name1="$3" tree2="$4" name2="$5"
  local flags2=("${@:6}")
  for ((round = 1; round <= rounds; ++round)); do
    for figure in "${figures[@]}"; do
      case "$figure" in main | full5 | ab) ;; *) echo "$option measures main, full5 and ab, not $figure"; continue ;; esac
      echo "round $round, $figure:"
      run_figure "$tree1" "_${name1}_$round" "$figure" | sed "s/^/  $(printf '%-7s' "$name1") /"
      run_figure "$tree2" "_${name2}_$round" "$figure" "${flags2[@]}" | sed "s/^/  $(printf '%-7s' "$name2") /"
    done
  done
}

if [[ -n "$flag" ]]; then
  echo "without and with $flag, $(git rev-parse --short HEAD) with this worktree's changes"
  alternate_rounds --flag "$PWD" without "$PWD" with "$flag"
  exit 0
fi

if [[ -n "$against" ]]; then
  before="$out/against"
  commit=$(git rev-parse --short "$against") || exit 1
  git worktree remove --force "$before" >/dev/null 2>&1
  { git worktree add --force --detach "$before" "$commit" &&
    (cd "$before" && ./bazelw build //tools:main //tools:ab_test); } >"$out/build_against.log" 2>&1 \
    || { echo "building $commit failed: see $out/build_against.log"; exit 1; }
  echo "before: $commit (in $before); after: $(git rev-parse --short HEAD) with this worktree's changes"
  alternate_rounds --against "$before" before "$PWD" after
  # The worktree's Bazel server and output base (its own) go with it.
  (cd "$before" && ./bazelw clean --expunge >/dev/null 2>&1)
  git worktree remove --force "$before"
  exit 0
fi

for figure in "${figures[@]}"; do
  run_figure "$PWD" "" "$figure"
done
