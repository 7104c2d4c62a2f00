#!/usr/bin/env bash
# Measures icount's headline figures on this machine, one after another
# (run it on an otherwise idle machine; all of them take about an hour on 2
# cores), prints one summary line per figure and writes each figure's row of
# docs/figures.md (bench/figures_page.py: the value, the command, this
# checkout's commit and the CPU). Each figure's full output is kept in OUT
# (default /tmp/icount-figures).
#
#   bench/figures.sh [--against=COMMIT | --flag=FLAG] [--rounds=N] [OUT] [FIGURE...]
#
# FIGURE is any of: tests fast timer main full5 ab abtime cold (default:
# all).
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
# Neither writes docs/figures.md.
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
  if [[ -n "$against$flag" ]]; then figures=(main full5 ab); else figures=(tests fast timer main full5 ab abtime cold); fi
fi
mkdir -p "$out" && out=$(realpath "$out")

echo "machine: $(python3 bench/machine.py), commit $(git rev-parse --short HEAD)"
./bazelw build //tools:main //tools:ab_test //timer:timer_benchmark >"$out/build.log" 2>&1 \
  || { echo "build failed: see $out/build.log"; exit 1; }

# timed NAME COMMAND...: runs it, output in $out/$name.{out,err}, prints
# its seconds of wall, user and system time (bash's `time`: the command and
# every process it waited for) and leaves them in $wall, $user, $sys and
# its exit status in $status.
timed() {
  local name="$1"
  shift
  local TIMEFORMAT="%R %U %S" seconds
  seconds=$({ time "$@" >"$out/$name.out" 2>"$out/$name.err"; } 2>&1)
  status=$?
  read -r wall user sys <<<"$seconds"
  echo "$name: ${wall} s wall, ${user} s user, ${sys} s system (exit $status)"
}

# page FIGURE VALUE: FIGURE's row of docs/figures.md, when this run writes
# the page (not with --against or --flag).
page() {
  if [[ -z "$against$flag" ]]; then python3 bench/figures_page.py row "$@"; fi
}

# minutes SECONDS: "2 min 41 s" (or "41.2 s" under a minute).
minutes() {
  awk -v s="$1" 'BEGIN { if (s < 60) printf "%.1f s", s; else printf "%d min %d s", s / 60, s % 60 }'
}

# run_figure TREE SUFFIX FIGURE [FLAG...]: one figure, with the build in
# TREE, its files named with SUFFIX, main and ab_test given FLAGs.
run_figure() {
  local tree="$1" suffix="$2" figure="$3"
  shift 3
  local flags=("$@")
  case "$figure" in
    tests)
      ./bazelw query 'tests(//...) except attr(tags, manual, //...)' >"$out/tests.out" 2>"$out/tests.err"
      echo "tests: $(wc -l <"$out/tests.out") test targets"
      page tests "**$(wc -l <"$out/tests.out")**"
      ;;
    fast)
      ./bazelw build //... >"$out/fast_build.log" 2>&1
      timed fast_loop ./bazelw test //... --test_tag_filters=-valgrind --nocache_test_results
      local ran
      ran=$(cat "$out/fast_loop.out" "$out/fast_loop.err" | grep -oE "Executed [0-9]+ out of [0-9]+ tests?" | head -1 | grep -oE "^Executed [0-9]+" | grep -oE "[0-9]+")
      [[ $status -eq 0 ]] && page fast_loop "**$(minutes "$wall")** ($ran test targets, all passed)"
      ;;
    timer)
      # An empty snippet cache, so that the compile figure is a cache miss.
      rm -rf "$out/snippet-cache"
      timed timer_benchmark env -C "$tree" ICOUNT_CACHE_DIR="$out/snippet-cache" bazel-bin/timer/timer_benchmark
      grep -E 's$|instructions|ns' "$out/timer_benchmark.out" | sed 's/^/  /'
      # "C++ torch::add(x, y): collect_callgrind(...) in 7.4 s; 5765.6 instructions per run; 5 repeats identical: yes"
      local line
      for language in "C++:timer_cpp" "Python:timer_python"; do
        line=$(grep -F "${language%%:*} torch" "$out/timer_benchmark.out" | grep -F collect_callgrind) || continue
        page "${language#*:}" "$(sed -E 's/.* in ([0-9.]+ s); ([0-9.]+) instructions per run; 5 repeats identical: (\w+)/**\1**; \2 instructions per run; 5 repeats identical: \3/' <<<"$line")"
      done
      line=$(grep -F "C++ snippet compile" "$out/timer_benchmark.out") && page timer_compile "**${line##*: }**"
      local per_run ns
      per_run=$(grep -oE "^empty callable: [0-9.]+ instructions per run" "$out/timer_benchmark.out" | grep -oE "[0-9.]+ instructions")
      ns=$(grep -oE "^empty callable: [0-9.]+ ns per run" "$out/timer_benchmark.out" | grep -oE "[0-9.]+ ns")
      [[ -n "$per_run" ]] && page timer_overhead "**$per_run**, $ns"
      ;;
    main)
      timed "main_default$suffix" env -C "$tree" bazel-bin/tools/main "${flags[@]}"
      local done_line
      done_line=$(grep -E 'failed|done' "$out/main_default$suffix.err" | tail -1)
      echo "  $done_line"
      # "icount: 402/402 done, ..." (", N failed" when some failed)
      local orders failed
      orders=$(grep -oE '[0-9]+/[0-9]+ done' <<<"$done_line" | grep -oE '^[0-9]+')
      failed=$(grep -oE '[0-9]+ failed' <<<"$done_line" || echo "none failed")
      [[ $status -eq 0 ]] && page main "**$(minutes "$wall")** (${user} s user, ${sys} s system); $orders work orders, $failed"
      ;;
    full5)
      rm -f "$out/full5$suffix.json" "$out/full5$suffix.json.journal"
      timed "full5$suffix" env -C "$tree" bazel-bin/tools/main --repeats=5 \
        --output="$out/full5$suffix.json" "${flags[@]}"
      local repeats
      repeats=$(python3 - "$out/full5$suffix.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
counts = d["instruction_counts"]
same = sum(1 for c in counts if len(set(c["counts"])) == 1)
print(f"{same} of {len(counts)} cases' 5 repeats identical; "
      f"{len(d['measurements'])} wall-time measurements")
PY
)
      echo "  $repeats"
      [[ $status -eq 0 ]] && page full5 "**$(minutes "$wall")** (${user} s user, ${sys} s system); $repeats"
      ;;
    ab)
      rm -f "$out/ab$suffix.json"*
      # Peak RSS from GNU time where it is installed.
      local rss=()
      [[ -x /usr/bin/time ]] && rss=(/usr/bin/time -v)
      timed "ab_counts$suffix" env -C "$tree" "${rss[@]}" bazel-bin/tools/ab_test --A=true --B=true \
        --json="$out/ab$suffix.json" "${flags[@]}"
      grep 'Maximum resident' "$out/ab_counts$suffix.err" | sed 's/^\s*/  /'
      local rss_mb equal
      rss_mb=$(awk '/Maximum resident/ { printf "%d", $NF / 1024 }' "$out/ab_counts$suffix.err")
      equal=$(python3 - "$out/ab$suffix.json" <<'PY'
import json, sys
comparisons = json.load(open(sys.argv[1]))["comparisons"]
equal = sum(1 for c in comparisons if c.get("counts_delta_pct") == 0)
print(f"{equal} of {len(comparisons)} cases' counts equal between A and B")
PY
)
      echo "  $equal"
      [[ $status -eq 0 ]] && page ab "**$(minutes "$wall")**; ${rss_mb:+peak RSS $rss_mb MB; }$equal"
      ;;
    abtime)
      rm -f "$out/abt.json"*
      timed ab_time env -C "$tree" bazel-bin/tools/ab_test --A=true --B=true --display_time \
        --json="$out/abt.json"
      local alarms
      alarms=$(python3 - "$out/abt.json" <<'PY'
import json, sys
comparisons = json.load(open(sys.argv[1]))["comparisons"]
timed = [c for c in comparisons if "time_significant" in c]
alarms = sum(1 for c in timed if c["time_significant"])
print(f"{alarms} of {len(timed)} cases' wall time flagged as changed (false alarms)")
PY
)
      echo "  $alarms"
      [[ $status -eq 0 ]] && page abtime "**$(minutes "$wall")**; $alarms"
      ;;
    cold)
      # bench/ci_time.sh: a clean clone, cold and with nothing changed.
      timed cold_test bench/ci_time.sh "$out/ci_time"
      sed 's/^/  /' "$out/ci_time/ci_time.md"
      [[ $status -eq 0 && -z "$against$flag" ]] && python3 bench/figures_page.py ci_time "$out/ci_time/ci_time.md"
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
