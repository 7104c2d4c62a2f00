#!/usr/bin/env bash
# ./bazelw on machines in every state, with stand-ins first on PATH for
# dpkg-query (reads a list of installed packages), apt-get (records what it
# was asked and installs into that list), id (the user), sudo, and bazel
# (BAZELW_BAZEL). Cases: all missing, some missing, none missing, no root
# without sudo, password-less sudo, apt-get failing; the options file of
# the Bazel's version; a root's build, which skips the package check.
set -u
bazelw="$(readlink -f "$1")"
fail() { echo "FAIL: $*" >&2; exit 1; }

stand_ins="$TEST_TMPDIR/bin"
mkdir -p "$stand_ins"
cat > "$stand_ins/dpkg-query" <<'STANDIN'
#!/usr/bin/env bash
# Like dpkg-query -W -f='${Package} ${db:Status-Status}\n' PKG...: a line per
# known package, "no packages found" and exit 1 for unknown ones.
if [[ $* == *'${Version}'* ]]; then  # the version of bazel-bootstrap
  echo -n "${FAKE_BAZEL_PACKAGE_VERSION:-}"; exit 0
fi
status=0
for arg in "$@"; do
  [[ $arg == -* ]] && continue
  if grep -qx -- "$arg" "$STATE/installed"; then
    echo "$arg installed"
  elif grep -qx -- "$arg" "$STATE/known"; then
    echo "$arg not-installed"
  else
    echo "dpkg-query: no packages found matching $arg" >&2
    status=1
  fi
done
exit $status
STANDIN
cat > "$stand_ins/apt-get" <<'STANDIN'
#!/usr/bin/env bash
echo "apt-get $*" >> "$STATE/apt.log"
[[ -n ${APT_FAILS:-} ]] && { echo "E: Unable to locate package" >&2; exit 100; }
if [[ $1 == install ]]; then
  for arg in "$@"; do
    [[ $arg == -* || $arg == install ]] || echo "$arg" >> "$STATE/installed"
  done
fi
exit 0
STANDIN
cat > "$stand_ins/id" <<'STANDIN'
#!/usr/bin/env bash
echo "${FAKE_UID:-0}"
STANDIN
cat > "$stand_ins/sudo" <<'STANDIN'
#!/usr/bin/env bash
# Password-less only when SUDO_WORKS is set; like `sudo -n`, fails otherwise.
[[ -n ${SUDO_WORKS:-} ]] || { echo "sudo: a password is required" >&2; exit 1; }
[[ $1 == -n ]] && shift
echo "sudo $*" >> "$STATE/sudo.log"
exec "$@"
STANDIN
cat > "$stand_ins/bazel" <<'STANDIN'
#!/usr/bin/env bash
# Says its version as Bazel 7 does ("bazel 7.7.1"), or as Debian's 4.2.3
# does ("bazel no_version") when FAKE_BAZEL_VERSION is unset.
[[ $1 == --version ]] && { echo "bazel ${FAKE_BAZEL_VERSION:-no_version}"; exit 0; }
echo "bazel $*" >> "$STATE/bazel.log"
STANDIN
chmod +x "$stand_ins"/*

# The packages bazelw checks, read from the script itself.
mapfile -t all < <(sed -n '/^PACKAGES=(/,/^)/{/PACKAGES=(/d;/^)/d;p}' "$bazelw" | tr ' ' '\n' \
  | grep -E '^[a-z0-9][a-z0-9.+-]+$')
(( ${#all[@]} >= 10 )) || fail "could not read bazelw's package list: ${all[*]}"

# [KNOWN=...] run_bazelw INSTALLED... runs bazelw test //x with those packages
# installed (the rest unknown to dpkg); output in $out, exit code in $code.
run_bazelw() {
  export STATE="$TEST_TMPDIR/state.$RANDOM"
  mkdir -p "$STATE"
  : > "$STATE/installed"; : > "$STATE/known"; : > "$STATE/apt.log"
  : > "$STATE/bazel.log"; : > "$STATE/sudo.log"
  for p in "$@"; do echo "$p" >> "$STATE/installed"; done
  for p in ${KNOWN:-}; do echo "$p" >> "$STATE/known"; done
  # The machine's own LibTorch does not decide the C++ standard here
  # (a case below sets BAZELW_ATEN itself).
  out=$(PATH="$stand_ins:$PATH" BAZELW_BAZEL="$stand_ins/bazel" \
    BAZELW_ATEN="${BAZELW_ATEN:-$TEST_TMPDIR/no-ATen.h}" "$bazelw" test //x 2>&1)
  code=$?
}

# 1. A fresh machine: dpkg has heard of none of them (dpkg-query exits 1).
run_bazelw
[[ $code == 0 ]] || fail "all missing: exit $code: $out"
grep -q "^apt-get install" "$STATE/apt.log" || fail "all missing: apt-get install not run: $out"
for p in "${all[@]}"; do
  grep -q -- " $p\( \|$\)" <(grep '^apt-get install' "$STATE/apt.log") \
    || fail "all missing: $p not installed: $(cat "$STATE/apt.log")"
done
grep -qx "bazel test //x" "$STATE/bazel.log" || fail "all missing: bazel not run after install"

# 2. Some missing, one of them known to dpkg but not installed.
KNOWN="${all[0]}" run_bazelw "${all[@]:2}"
[[ $code == 0 ]] || fail "some missing: exit $code: $out"
[[ $(grep '^apt-get install' "$STATE/apt.log" | tr ' ' '\n' | grep -cv -- '^-\|^apt-get$\|^install$') == 2 ]] \
  || fail "some missing: expected exactly 2 packages installed: $(cat "$STATE/apt.log")"
grep -q -- " ${all[0]} ${all[1]}$" "$STATE/apt.log" || fail "some missing: $(cat "$STATE/apt.log")"
grep -qx "bazel test //x" "$STATE/bazel.log" || fail "some missing: bazel not run"

# 3. None missing: no apt-get at all.
run_bazelw "${all[@]}"
[[ $code == 0 ]] || fail "none missing: exit $code: $out"
[[ ! -s $STATE/apt.log ]] || fail "none missing: apt-get was run: $(cat "$STATE/apt.log")"
grep -qx "bazel test //x" "$STATE/bazel.log" || fail "none missing: bazel not run"

# 4. Not root, no password-less sudo: the exact line to run, exit 1.
FAKE_UID=1000 run_bazelw "${all[@]:1}"
[[ $code == 1 ]] || fail "no root: expected exit 1, got $code: $out"
grep -q "apt-get install -y ${all[0]}$" <<<"$out" || fail "no root: no install line: $out"
[[ ! -s $STATE/apt.log && ! -s $STATE/bazel.log ]] || fail "no root: ran apt-get or bazel"

# 5. Not root, password-less sudo: apt-get through sudo.
FAKE_UID=1000 SUDO_WORKS=1 run_bazelw "${all[@]:1}"
[[ $code == 0 ]] || fail "sudo: exit $code: $out"
grep -q "apt-get install.* ${all[0]}$" "$STATE/sudo.log" || fail "sudo: not used: $out"

# 6. apt-get fails: a clear message, exit 1, no bazel.
APT_FAILS=1 run_bazelw "${all[@]:1}"
[[ $code == 1 ]] || fail "apt failure: expected exit 1, got $code: $out"
grep -q "apt-get could not install: ${all[0]}" <<<"$out" || fail "apt failure: $out"
[[ ! -s $STATE/bazel.log ]] || fail "apt failure: bazel ran"

# 7. The options of the Bazel's version: Bazel 7 says its version, Debian's
# 4.2.3 leaves it to its package. Bazel 7 and later build the module and
# need Debian's packaged rule sets (read from BAZELW_SHARE), installed with
# the rest; a Bazel older than 4.2 is refused; an untested one gets a note.
rc_dir=$(dirname "$bazelw")/bazel
share="$TEST_TMPDIR/share"
mapfile -t modules < <(sed -n '/^readonly MODULE_PACKAGES=(/,/^)/{/=(/d;/^)/d;p}' "$bazelw" \
  | tr ' ' '\n' | grep ':')
(( ${#modules[@]} >= 5 )) || fail "could not read bazelw's module packages: ${modules[*]}"
module_packages=()
for entry in "${modules[@]}"; do
  mkdir -p "$share/${entry%%:*}" && touch "$share/${entry%%:*}/MODULE.bazel"
  module_packages+=("${entry#*:}")
done
export BAZELW_SHARE="$share"
FAKE_BAZEL_VERSION=7.7.1 run_bazelw "${all[@]}"
grep -qx "bazel --bazelrc=$rc_dir/bazel7.bazelrc test //x" "$STATE/bazel.log" \
  || fail "Bazel 7: $out $(cat "$STATE/bazel.log")"
grep -q "apt-get install.* bazel-rules-proto " "$STATE/apt.log" \
  || fail "Bazel 7: the module packages were not installed: $(cat "$STATE/apt.log")"
FAKE_BAZEL_VERSION=7.7.1 run_bazelw "${all[@]}" "${module_packages[@]}"
[[ $code == 0 && ! -s $STATE/apt.log ]] || fail "Bazel 7, all installed: exit $code: $out"
rm "$share/rules/proto/MODULE.bazel"
FAKE_BAZEL_VERSION=7.7.1 run_bazelw "${all[@]}" "${module_packages[@]}"
[[ $code == 1 && ! -s $STATE/bazel.log ]] || fail "Bazel 7 without rules_proto: exit $code: $out"
grep -q "these are missing:" <<<"$out" && grep -q "apt-get install -y bazel-rules-proto)" <<<"$out" \
  || fail "Bazel 7 without rules_proto: $out"
touch "$share/rules/proto/MODULE.bazel"
FAKE_BAZEL_PACKAGE_VERSION=4.2.3+ds-7 run_bazelw "${all[@]}"
grep -qx "bazel --bazelrc=$rc_dir/bazel4.bazelrc test //x" "$STATE/bazel.log" \
  || fail "Bazel 4: $(cat "$STATE/bazel.log")"
[[ $out != *"tested with"* ]] || fail "Bazel 4.2.3 got a note: $out"
FAKE_BAZEL_VERSION=4.1.0 run_bazelw "${all[@]}"
[[ $code == 1 && ! -s $STATE/bazel.log ]] || fail "Bazel 4.1: exit $code: $out"
grep -q "icount needs Bazel 4.2 or later" <<<"$out" || fail "Bazel 4.1: $out"
FAKE_BAZEL_VERSION=8.4.2 run_bazelw "${all[@]}" "${module_packages[@]}"
grep -qx "bazel --bazelrc=$rc_dir/bazel7.bazelrc test //x" "$STATE/bazel.log" \
  || fail "Bazel 8: $(cat "$STATE/bazel.log")"
grep -q "icount is tested with Bazel 4.2.3 and 7.7.1, not Bazel 8.4.2; trying it with the options of Bazel 7" <<<"$out" \
  || fail "Bazel 8: no note: $out"
unset BAZELW_SHARE

# The C++ standard follows the system's LibTorch: C++20 where its ATen.h
# demands it, nothing added otherwise.
echo '#error C++20 or later compatible compiler is required to use ATen.' > "$TEST_TMPDIR/ATen.h"
BAZELW_ATEN="$TEST_TMPDIR/ATen.h" FAKE_BAZEL_PACKAGE_VERSION=4.2.3+ds-7 run_bazelw "${all[@]}"
grep -qx "bazel --bazelrc=$rc_dir/bazel4.bazelrc --bazelrc=$rc_dir/cxx20.bazelrc test //x" \
  "$STATE/bazel.log" || fail "LibTorch needing C++20: $(cat "$STATE/bazel.log")"
echo '#include <c10/core/Allocator.h>' > "$TEST_TMPDIR/ATen.h"
BAZELW_ATEN="$TEST_TMPDIR/ATen.h" FAKE_BAZEL_PACKAGE_VERSION=4.2.3+ds-7 run_bazelw "${all[@]}"
grep -qx "bazel --bazelrc=$rc_dir/bazel4.bazelrc test //x" "$STATE/bazel.log" \
  || fail "LibTorch content with C++17: $(cat "$STATE/bazel.log")"

# 8. Inside a root icount made: its packages are a root's, not this list.
BAZELW_SKIP_PACKAGE_CHECK=1 run_bazelw
[[ $code == 0 && ! -s $STATE/apt.log ]] || fail "root build: exit $code, apt: $(cat "$STATE/apt.log")"
grep -qx "bazel test //x" "$STATE/bazel.log" || fail "root build: bazel not run"
echo PASS
