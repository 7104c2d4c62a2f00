# Sourced by the bench scripts: the machine's busy CPUs over a stretch of
# time, from /proc/stat (all processes, so the machine must be otherwise
# idle for the figure to be the measured command's).
#
#   mark=$(busy_cpus_mark)
#   ...                        # the command to measure
#   busy_cpus_since "$mark"    # prints e.g. 1.87, the mean busy CPUs

busy_cpus_mark() {  # the busy and all jiffies of all CPUs since boot
  awk '/^cpu / { idle = $5 + $6; total = 0; for (i = 2; i <= NF; i++) total += $i;
                 print total - idle, total }' /proc/stat
}

busy_cpus_since() {  # busy_cpus_since MARK: mean busy CPUs since MARK
  local busy0 total0 busy1 total1
  read -r busy0 total0 <<< "$1"
  read -r busy1 total1 < <(busy_cpus_mark)
  awk -v b=$((busy1 - busy0)) -v a=$((total1 - total0)) -v n="$(nproc)" \
    'BEGIN { printf "%.2f\n", (a > 0 ? n * b / a : 0) }'
}
