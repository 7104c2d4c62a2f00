#!/bin/bash
# Tests //tools:fuzz: its output for a few seeds is the reference's (the
# lines fuzzer/testdata/make_reference.py printed from torch.utils.benchmark),
# and bad input is a usage error (exit 1, a message on stderr).
#
# Usage: fuzz_test.sh <fuzz binary> <the samples //fuzzer:reference_samples makes>
set -u
fuzz=$1
reference=$2
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# The first $2 samples of the reference case named $1.
reference_samples() {
  awk -F'\t' -v name="$1" -v n="$2" '
    $1 == "case" { on = ($2 == name); k = 0; next }
    on && $1 == "sample" && k < n { print $2; k++ }' "$reference"
}

# expect_reference <case> <n> <flags...>
expect_reference() {
  local name=$1 n=$2
  shift 2
  local want got
  want=$(reference_samples "$name" "$n")
  [[ -n $want ]] || { fail "no reference samples for $name in $reference"; return; }
  got=$("$fuzz" "$@" --n="$n") || { fail "fuzz $* exited with $?"; return; }
  [[ $got == "$want" ]] || fail "fuzz $* differs from the reference's $name:
got:  $got
want: $want"
}

# expect_usage_error <stderr substring> <flags...>
expect_usage_error() {
  local want=$1
  shift
  local err rc
  err=$("$fuzz" "$@" 2>&1 >/dev/null)
  rc=$?
  [[ $rc == 1 ]] || fail "fuzz $*: exit code $rc, expected 1"
  [[ $err == *"$want"* ]] || fail "fuzz $*: stderr lacks '$want':
$err"
}

expect_reference "unary/float32/seed=0" 2 --fuzzer=unary --seed=0
expect_reference "spectral/float64/seed=2" 2 --fuzzer=spectral --seed=2
expect_reference "binary/float16/seed=6" 2 --fuzzer=binary --seed=6 --dtype=float16
expect_reference "sparse_binary/float32/seed=0" 3 --fuzzer=sparse_binary --seed=0 --dtype=torch.float32

expect_usage_error "unknown op fuzzer 'ternary'; expected one of unary, binary" --fuzzer=ternary
expect_usage_error "unknown dtype 'float128'" --fuzzer=unary --dtype=float128
expect_usage_error "--fuzzer is required"
expect_usage_error "Seed must be between 0 and 2**32 - 1" --fuzzer=unary --seed=-1
expect_usage_error "--n must be >= 0" --fuzzer=unary --n=-2
expect_usage_error "unexpected argument 'extra'" --fuzzer=unary extra
expect_usage_error "--dtype=bool: the op fuzzers fill tensors with torch.randint(1, 127), which bool cannot hold" --fuzzer=unary --dtype=bool
expect_usage_error "Usage: bazel run //tools:fuzz" --fuzzer=nope
expect_usage_error "Unknown command line flag 'no_such_flag'" --fuzzer=unary --no_such_flag
expect_usage_error "Illegal value 'two' specified for flag 'n'" --fuzzer=unary --n=two
expect_usage_error "unknown op fuzzer 'Unary'" --fuzzer=Unary
expect_usage_error "--fuzzer is required" --fuzzer=
expect_usage_error "seed 4294967296 is out of range" --fuzzer=unary --seed=4294967296
expect_usage_error "--dtype=bool: the op fuzzers fill tensors" --fuzzer=sparse_unary --dtype=bool
expect_usage_error "sparse tensors of dtype torch.complex64 are not supported" --fuzzer=sparse_binary --dtype=complex64
# A constraint no sample can meet fails at the sample, after the ones before it.
expect_usage_error "sample 0 of --fuzzer=sparse_unary --seed=0: tensor 'x': an uncoalesced sparse tensor needs a floating dtype" \
  --fuzzer=sparse_unary --dtype=int8 --seed=0 --n=3

out=$("$fuzz" --fuzzer=unary --n=0) || fail "--n=0 exited with $?"
[[ -z $out ]] || fail "--n=0 printed something: $out"
version=$("$fuzz" --version) || fail "--version exited with $?"
[[ $version == *"fuzzer "* ]] || fail "--version lacks the fuzzer version: $version"

if ((failures > 0)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all checks passed"
