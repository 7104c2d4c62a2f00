# Sourced by the tools' shell tests for bad input: a tool must fail before
# doing anything, and the first line it prints to stderr must be exactly the
# expected message. Needs $tmp (a scratch directory) and fail() from the
# sourcing test.
#
#   source "$3"   # $(rootpath //tests:expect_first_line.sh)
#   expect_first_line "$main" "main: --repeats=0: must be at least 1" --repeats=0
expect_first_line() {  # expect_first_line TOOL FIRST_LINE ARGS...
  local tool="$1" message="$2"
  shift 2
  if "$tool" "$@" > /dev/null 2> "$tmp/bad.err"; then fail "$(basename "$tool") $* must fail"; fi
  [ "$(head -1 "$tmp/bad.err")" = "$message" ] \
    || fail "$(basename "$tool") $*: expected \"$message\", got: $(cat "$tmp/bad.err")"
}
