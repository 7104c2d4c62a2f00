# shellcheck shell=bash
# What the shell tests share: a line on stderr per step (so that a test
# killed at its timeout shows in its test.log where it stopped), failing
# with a message, and waiting on an event with a deadline.
#
#   source "${TEST_SRCDIR}/${TEST_WORKSPACE}/tests/test_steps.sh"
#   step "a run killed mid-way"
#   wait_for 300 "a journaled result" journal_has_lines "$out.journal" 2
#   [[ -s $out ]] || fail "no output"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# step WHAT: a numbered line with the seconds since the test began.
step() {
  _test_step=$((${_test_step:-0} + 1))
  echo "--- step ${_test_step} (${SECONDS} s): $*" >&2
}

# wait_for SECONDS WHAT COMMAND [ARG...]: runs COMMAND every 0.1 s until it
# succeeds, and fails naming WHAT when SECONDS pass first. The deadline is
# for a machine that is not making progress at all: pick it many times the
# event's usual time, well inside the test's timeout.
wait_for() {
  local seconds=$1 what=$2
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@"; do
    ((SECONDS < deadline)) || fail "waited ${seconds} s for ${what}"
    sleep 0.1
  done
}

# file_has_lines FILE N: FILE exists and holds at least N lines.
file_has_lines() {
  [[ -f $1 ]] && (($(wc -l < "$1") >= $2))
}

# ab_json_count_delta_pct JSON CASE_KEY_PREFIX: the count change, (B - A) / A
# in percent, of the cases in ab_test's --json whose key starts so.
ab_json_count_delta_pct() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1]))["comparisons"]:
    if c["case"].startswith(sys.argv[2]):
        print(c["counts_delta_pct"])
PY
}

# fake_libtorch_directory DIR: makes DIR a LibTorch directory as icount's
# checks read it (headers saying 1.13.1, libraries), which would not build
# or load: its libraries are empty files.
fake_libtorch_directory() {
  mkdir -p "$1/include/torch/csrc/api/include/torch" "$1/include/ATen" "$1/include/c10" "$1/lib" \
    || fail "cannot make $1"
  printf '#define TORCH_VERSION_MAJOR 1\n#define TORCH_VERSION_MINOR 13\n#define TORCH_VERSION_PATCH 1\n' \
    > "$1/include/torch/csrc/api/include/torch/version.h"
  touch "$1/lib/libtorch_cpu.so" "$1/lib/libc10.so"
}

# debian_libtorch_version: Debian's LibTorch release as its headers say
# ("1.13.0" on bookworm, "2.14.1" on sid; 2.10 and later keep the numbers
# in torch/headeronly/version.h).
debian_libtorch_version() {
  grep -hE "^#define TORCH_VERSION_(MAJOR|MINOR|PATCH) " /usr/include/torch/headeronly/version.h \
    /usr/include/torch/csrc/api/include/torch/version.h 2>/dev/null | awk '{print $3}' | head -3 | paste -sd.
}

# nested_icount_builds DIR: for a test whose tools build icount again (a
# side with its own LibTorch): the user's HOME (Bazel gives a test none,
# and the machine's disk cache is under it), the nested output bases under
# DIR/cache, and their Bazel servers stopped when the test exits.
nested_icount_builds() {
  HOME=$(getent passwd "$(id -u)" | cut -d: -f6)
  # A shell's PATH order, not a test's (/bin first): Bazel's C++ toolchain
  # takes gcc's path from the first match on PATH, /bin/gcc on a merged-/usr
  # Debian, and the compile commands (disk cache keys) name it, so with a
  # test's PATH none of the nested compiles matched the default build's.
  PATH=/usr/local/bin:/usr/bin:/bin
  export HOME PATH ICOUNT_CACHE_DIR="$1/cache"
  trap _shutdown_nested_bazel EXIT
}

# nested_build_summary LOG: the lines of a nested Bazel build (as ab_test
# or main forward them to LOG) that say how many actions ran and how many
# came from the disk cache, on stderr: a cold run's test.log then shows
# what the nested build compiled.
nested_build_summary() {
  grep -E ": bazel: (INFO: [0-9]+ processes|INFO: Elapsed time)" "$1" >&2 || true
}

_shutdown_nested_bazel() {
  local base
  for base in "$ICOUNT_CACHE_DIR"/libtorch-builds/*; do
    [[ -d $base ]] && /usr/bin/bazel --output_base="$base" shutdown 2>/dev/null
  done
}

# workers_left DIR: the icount workers (and the valgrind and case
# processes around them) still running whose environment names DIR (a
# test's own TEST_TMPDIR: TMPDIR and the cache directory under it, which
# the runner passes on), one "PID COMMAND" line each. The runner starts
# workers as /tmp/icount-path-XXXXXX/worker.
workers_left() {
  local pid
  for pid in $(pgrep -f /tmp/icount-path-); do
    grep -qaF "$1" "/proc/$pid/environ" 2> /dev/null \
      && echo "$pid $(tr '\0' ' ' < "/proc/$pid/cmdline" 2> /dev/null)"
  done
  return 0
}

# use_machine_roots: the environment of a test that uses the machine's
# Debian roots and the builds made in them, as a user's tools do
# (~/.cache/icount; ICOUNT_TEST_ROOT_CACHE=DIR puts them in DIR, to time a
# cold run): the user's HOME (Bazel gives a test none), a shell's PATH, and
# ICOUNT_CACHE_DIR as the choice says.
use_machine_roots() {
  HOME=$(getent passwd "$(id -u)" | cut -d: -f6)
  PATH=/usr/local/bin:/usr/bin:/bin
  export HOME PATH
  if [[ -n ${ICOUNT_TEST_ROOT_CACHE:-} ]]; then
    export ICOUNT_CACHE_DIR="$ICOUNT_TEST_ROOT_CACHE"
  else
    unset ICOUNT_CACHE_DIR
  fi
}
