#!/usr/bin/env bash
# How many CPUs each given test keeps busy when it runs alone: its wall time
# and the machine's mean busy CPUs over it (from /proc/stat, so the machine
# must be otherwise idle). A test tagged cpu:2 holds both CPUs of a 2-core
# machine for its whole run; one that keeps ~1 busy leaves the other idle.
#
#   bench/test_cpu_use.sh //tests:ab_test_tax_test //worker:runner_test ...
#
# Builds the targets first (not measured), then runs each alone with
# --nocache_test_results and prints a table: test, tags, wall s, busy CPUs.
set -euo pipefail
cd "$(dirname "$0")/.."
(($#)) || { echo "usage: bench/test_cpu_use.sh //pkg:test..." >&2; exit 2; }
./bazelw build "$@" > /dev/null 2>&1 || { echo "test_cpu_use: building $* failed" >&2; exit 1; }

source bench/busy_cpus.sh

echo "Machine: $(python3 bench/machine.py); commit $(git rev-parse --short HEAD); command \`bench/test_cpu_use.sh\`."
echo
echo "| test | tags | wall s | busy CPUs |"
echo "|---|---|---|---|"
for target in "$@"; do
  tags=$(./bazelw query --output=build "$target" 2>/dev/null | sed -n 's/^ *tags = \[\(.*\)\],$/\1/p' | tr -d '" ' \
    | sed 's/__CC_RULES_MIGRATION_DO_NOT_USE_WILL_BREAK__,\?//')
  mark=$(busy_cpus_mark)
  started=$SECONDS
  ./bazelw test "$target" --nocache_test_results > /dev/null 2>&1 \
    || { echo "test_cpu_use: $target failed" >&2; exit 1; }
  echo "| $target | ${tags//,/, } | $((SECONDS - started)) | $(busy_cpus_since "$mark") |"
done
