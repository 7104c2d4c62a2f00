#!/usr/bin/env bash
# Outputs: every tool's output flag that names a file in a missing
# directory stops the tool before any work, with one message naming the
# flag; and relative paths land where the user ran `bazel run` from
# (BUILD_WORKING_DIRECTORY), the messages naming them absolute, where the
# tools' shell commands start too.
set -u
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/test_steps.sh"
main="$PWD/$1"
ci="$PWD/$2"
timeit="$PWD/$3"
ab_test="$PWD/$4"
merge="$PWD/$5"
history="$PWD/$6"
report="$PWD/$7"
fake_inputs="$PWD/$8"
tmp="$TEST_TMPDIR"
missing="$tmp/no/such/dir"
"$fake_inputs" --cases=4 --output_dir="$tmp" > /dev/null || fail "fake inputs"

# expect_refused FLAG TOOL ARGS...: TOOL fails at once, naming --FLAG.
expect_refused() {
  local flag=$1
  shift
  if "$@" > "$tmp/out.txt" 2> "$tmp/err.txt"; then fail "$* must fail"; fi
  grep -qF -- "--$flag=$missing/" "$tmp/err.txt" && grep -qF "cannot write into $missing/ (No such file or directory); create the directory or choose another" "$tmp/err.txt" \
    || fail "$*: expected the missing directory named for --$flag: $(cat "$tmp/err.txt")"
  ! grep -q "measur" "$tmp/out.txt" "$tmp/err.txt" || fail "$*: measured before refusing: $(cat "$tmp/err.txt")"
  [ "$(wc -l < "$tmp/err.txt")" -le 1 ] || fail "$*: one line expected: $(cat "$tmp/err.txt")"
}

step "a missing output directory stops every tool before any work"
expect_refused output "$main" --output="$missing/run.json"
expect_refused html "$main" --html="$missing/run.html"
expect_refused destination "$ci" --destination="$missing/ci.json"
expect_refused markdown "$ci" --destination="$tmp/ci.json" --markdown="$missing/ci.md"
expect_refused json "$ci" --destination="$tmp/ci.json" --baseline="$tmp/baseline.json" --json="$missing/c.json"
expect_refused json "$timeit" --stmt=pass --language=python --json="$missing/t.json"
expect_refused json "$ab_test" --A=true --B=true --json="$missing/ab.json"
expect_refused html "$ab_test" --A=true --B=true --html="$missing/ab.html"
expect_refused output "$merge" --output="$missing/m.json" "$tmp/current.json" "$tmp/baseline.json"
expect_refused output "$history" --db="$tmp/history.db" export --output="$missing/h.csv"
expect_refused output "$report" --input="$tmp/current.json" --output="$missing/r.html"

# expect_kept MESSAGE FILE TOOL ARGS...: TOOL fails at once with MESSAGE
# (after "TOOL: "), and FILE is as it was.
expect_kept() {
  local message=$1 file=$2
  shift 2
  local before
  before=$(sha256sum < "$file")
  if "$@" > "$tmp/out.txt" 2> "$tmp/err.txt"; then fail "$* must fail"; fi
  grep -qF -- "$message" "$tmp/err.txt" || fail "$*: expected \"$message\": $(cat "$tmp/err.txt")"
  ! grep -q "measur" "$tmp/out.txt" "$tmp/err.txt" || fail "$*: measured before refusing: $(cat "$tmp/err.txt")"
  [ "$(sha256sum < "$file")" = "$before" ] || fail "$*: changed $file"
}

step "no output replaces a file that is not the tool's own, or another output of the run"
replaces="choose another file or move it away"
cp "$tmp/current.json" "$tmp/run.json"
expect_kept "main: --output and --html both name $tmp/run.json: give each its own file" \
  "$tmp/run.json" "$main" --output="$tmp/run.json" --html="$tmp/./run.json"
expect_kept "ab_test: --json and --html both name $tmp/ab.json: give each its own file" \
  "$tmp/run.json" "$ab_test" --A=true --B=true --json="$tmp/ab.json" --html="$tmp/ab.json"
expect_kept "ci: --destination and --markdown both name $tmp/run.json" \
  "$tmp/run.json" "$ci" --destination="$tmp/run.json" --markdown="$tmp/run.json"
expect_kept "ci: --json: $tmp/baseline.json exists and is not a comparison file ci wrote; icount replaces only its own summaries and comparison files: $replaces" \
  "$tmp/baseline.json" "$ci" --destination="$tmp/run.json" --baseline="$tmp/baseline.json" --json="$tmp/baseline.json"
expect_kept "main: --html: $tmp/run.json exists and is not an icount report page; icount replaces only its own report pages: $replaces" \
  "$tmp/run.json" "$main" --html="$tmp/run.json"
expect_kept "report: --output: $tmp/current.json exists and is not an icount report page" \
  "$tmp/current.json" "$report" --input="$tmp/current.json" --output="$tmp/current.json"
expect_kept "history: --db and --output both name $tmp/history.db: give each its own file" \
  "$tmp/history.db" "$history" --db="$tmp/history.db" export --output="$tmp/history.db"
expect_kept "history: --output: $tmp/run.json exists and is not a CSV export of an icount history store; icount replaces only its own exports: $replaces" \
  "$tmp/run.json" "$history" --db="$tmp/history.db" export --output="$tmp/run.json"
# A --history that is not a store stops the run before any side is set up.
expect_kept "ab_test: --history: $tmp/run.json: not an icount history store" \
  "$tmp/run.json" "$ab_test" --A=true --B=true --history="$tmp/run.json"
expect_kept "main: --history_label names the run in a --history store: give --history=DB too, or drop it" \
  "$tmp/run.json" "$main" --history_label=nightly
# A store is created only for a run that records in it: --list runs
# nothing and refuses the flags of a run, and a run that another flag
# stops creates none.
if "$main" --list --history="$tmp/listed.db" > /dev/null 2> "$tmp/err.txt"; then fail "main --list --history must fail"; fi
grep -qxF "main: --history shapes a run, and --list runs nothing (it lists the same cases in every environment): drop one of them" \
  "$tmp/err.txt" || fail "main --list --history: $(cat "$tmp/err.txt")"
[ ! -e "$tmp/listed.db" ] || fail "main --list created its --history store"
if "$main" --json > /dev/null 2> "$tmp/err.txt"; then fail "main --json without --list must fail"; fi
grep -qxF "main: --json prints --list's lines as JSON: give --list too, or drop --json" "$tmp/err.txt" \
  || fail "main --json: $(cat "$tmp/err.txt")"
if "$main" --jobs=-1 --history="$tmp/refused.db" 2> "$tmp/err.txt"; then fail "main --jobs=-1 must fail"; fi
grep -qF -- "--jobs=-1" "$tmp/err.txt" || fail "main --jobs=-1: $(cat "$tmp/err.txt")"
[ ! -e "$tmp/refused.db" ] || fail "a refused main run created its --history store"
# What cannot be written to standard output fails the tool, saying why.
if "$main" --list > /dev/full 2> "$tmp/err.txt"; then fail "main --list > /dev/full must fail"; fi
grep -qxF "main: cannot write to standard output: No space left on device" "$tmp/err.txt" \
  || fail "main --list > /dev/full: $(cat "$tmp/err.txt")"
if "$main" --list >&- 2> "$tmp/err.txt"; then fail "main --list with stdout closed must fail"; fi
grep -qxF "main: cannot write to standard output: Bad file descriptor" "$tmp/err.txt" \
  || fail "main --list >&-: $(cat "$tmp/err.txt")"
# A journal left by an earlier run is said before anything is loaded or built.
echo '{}' > "$tmp/left.json.journal"
expect_kept "main: $tmp/left.json.journal exists from an earlier run: pass --resume to continue it, or remove it" \
  "$tmp/left.json.journal" "$main" --output="$tmp/left.json"
# A pipe is not read (that would wait for a writer for ever) nor replaced.
mkfifo "$tmp/pipe"
if "$main" --output="$tmp/pipe" > "$tmp/out.txt" 2> "$tmp/err.txt"; then fail "main --output=PIPE must fail"; fi
grep -qF "main: --output: $tmp/pipe exists and is not a regular file (a device, pipe or socket)" "$tmp/err.txt" \
  || fail "main --output=PIPE: $(cat "$tmp/err.txt")"
[ -p "$tmp/pipe" ] || fail "main --output=PIPE replaced the pipe"
# Its own outputs it replaces.
for format in csv bmf; do
  for run in 1 2; do
    "$history" --db="$tmp/history.db" export --format=$format --output="$tmp/export.$format" 2> "$tmp/err.txt" \
      || fail "history export --format=$format, run $run: $(cat "$tmp/err.txt")"
  done
done
for run in 1 2; do
  "$report" --input="$tmp/current.json" --output="$tmp/page.html" 2> "$tmp/err.txt" \
    || fail "report, run $run: $(cat "$tmp/err.txt")"
done

step "relative paths from where bazel run was started"
mkdir -p "$tmp/here" && cp "$tmp/current.json" "$tmp/baseline.json" "$tmp/here/"
export BUILD_WORKING_DIRECTORY="$tmp/here"
(cd / && "$report" --input=current.json --baseline=./baseline.json --output=page.html) \
  > "$tmp/out.txt" 2> "$tmp/err.txt" || fail "report: $(cat "$tmp/err.txt")"
[ -s "$tmp/here/page.html" ] || fail "report --output=page.html did not land in $tmp/here"
grep -qF "written to $tmp/here/page.html" "$tmp/err.txt" || fail "report must name $tmp/here/page.html: $(cat "$tmp/err.txt")"
(cd / && "$merge" --output=merged.json current.json) > "$tmp/out.txt" 2> "$tmp/err.txt" \
  || fail "merge_results: $(cat "$tmp/err.txt")"
grep -qF -- "-> $tmp/here/merged.json" "$tmp/out.txt" || fail "merge_results must name $tmp/here/merged.json: $(cat "$tmp/out.txt")"
(cd / && "$main" --filter='^Empty / no allocation$' --no_counts --no_python --min_run_time=0.01 \
  --output=run.json) > "$tmp/out.txt" 2> "$tmp/err.txt" || fail "main: $(cat "$tmp/err.txt")"
[ -s "$tmp/here/run.json" ] || fail "main --output=run.json did not land in $tmp/here: $(cat "$tmp/err.txt")"
grep -qF "$tmp/here/run.json" "$tmp/out.txt" "$tmp/err.txt" || fail "main must name $tmp/here/run.json: $(cat "$tmp/err.txt")"
# A shell command of the tool's (--env) starts there too.
touch "$tmp/here/marker"
(cd / && "$main" --filter='^Empty / no allocation$' --no_counts --no_python --min_run_time=0.01 \
  --env="test -f marker") > "$tmp/out.txt" 2> "$tmp/err.txt" \
  || fail "main --env='test -f marker' must run where bazel run was started: $(cat "$tmp/err.txt")"
echo PASS
