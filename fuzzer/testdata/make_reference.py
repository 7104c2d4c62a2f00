#!/usr/bin/python3
"""Samples of torch.utils.benchmark's fuzzers, in the JSON of //tools:fuzz.

The //fuzzer tests compare the C++ fuzzers with what this prints; run it with
Debian's Python, whose torch is the release of Debian's LibTorch (the
`python3` first on PATH may be a pyenv without torch):

  # What `bazel run //tools:fuzz -- --fuzzer=unary --seed=0 --n=3` prints:
  /usr/bin/python3 fuzzer/testdata/make_reference.py --fuzzer=unary --seed=0 --n=3

  # The test data, as the build makes it (//fuzzer:reference_samples):
  /usr/bin/python3 fuzzer/testdata/make_reference.py --testdata > samples.txt

Test data format, one record per line, tab-separated:
  case <TAB> <name> <TAB> <n>        a take(n) of the fuzzer called <name>
  sample <TAB> <json>                its samples, in order
  rejection_rate <TAB> <repr>        Fuzzer.rejection_rate after the take
Names are "<op fuzzer>/<dtype>/seed=<seed>" or "scenario_<name>/seed=<seed>";
the scenarios are defined here and, identically, in fuzzer/reference_test.cc.

Log-uniform bounds that are not powers of two go through np.log2, which on
AVX512_SKX machines is SVML's and differs from libm's in the last bit for
some inputs (see fuzzer/internal/numpy_log2.h).

PyTorch 2.14's FuzzedParameter refuses every normalized custom distribution
(its check reads `if not abs(sum - 1) > 1e-5: raise`), its own op fuzzers'
included; where it does, this script checks distributions as earlier
releases do (see follow_earlier_distribution_check). The check only
validates: what the fuzzers draw is untouched.
"""

import argparse
import json
import math
import sys

import torch
from torch.utils.benchmark import (FuzzedParameter, FuzzedSparseTensor,
                                   FuzzedTensor, Fuzzer, ParameterAlias)
from torch.utils.benchmark.op_fuzzers import (binary, sparse_binary,
                                              sparse_unary, spectral, unary)

OP_FUZZERS = {
    "unary": (unary.UnaryOpFuzzer, torch.float32),
    "binary": (binary.BinaryOpFuzzer, torch.float32),
    "spectral": (spectral.SpectralOpFuzzer, torch.float64),
    "sparse_unary": (sparse_unary.UnaryOpSparseFuzzer, torch.float32),
    "sparse_binary": (sparse_binary.BinaryOpSparseFuzzer, torch.float32),
}


def follow_earlier_distribution_check():
    """Replaces FuzzedParameter._check_distribution where it refuses a
    normalized distribution (PyTorch 2.14) with the check of 1.13."""
    from torch.utils.benchmark.utils import fuzzer as fuzzer_module
    try:
        FuzzedParameter("probe", distribution={1: 0.5, 2: 0.5})
        return
    except AssertionError as e:
        if "not normalized" not in str(e):
            raise

    def check(self, distribution):
        if not isinstance(distribution, dict):
            if distribution not in fuzzer_module._DISTRIBUTIONS:
                raise AssertionError(f"Unknown distribution: {distribution}")
            return distribution
        if any(p < 0 for p in distribution.values()):
            raise AssertionError("Probabilities cannot be negative")
        if abs(sum(distribution.values()) - 1) > 1e-5:
            raise AssertionError("Distribution is not normalized")
        if self._minval is not None or self._maxval is not None:
            raise AssertionError("A custom distribution takes no minval or maxval")
        return distribution

    fuzzer_module.FuzzedParameter._check_distribution = check


follow_earlier_distribution_check()


def op_fuzzer(name, seed, dtype=None):
    cls, default_dtype = OP_FUZZERS[name]
    return cls(seed=seed, dtype=dtype or default_dtype)


def scenario_mixed(seed):
    """Every parameter kind, alias chains, strict parameters, a constraint,
    steps, forced permutations, several dtypes and a custom constructor."""
    return Fuzzer(
        parameters=[
            FuzzedParameter("dim", distribution={1: 0.2, 2: 0.3, 3: 0.5}, strict=True),
            # Bounds whose np.log2 is not exact.
            FuzzedParameter("a", minval=3, maxval=1000, distribution="loguniform"),
            FuzzedParameter("b", minval=5, maxval=77777, distribution="loguniform"),
            # Truncates below its float minval at times, returning 2.5.
            FuzzedParameter("g", minval=2.5, maxval=40, distribution="loguniform"),
            FuzzedParameter("c", minval=1, maxval=9, distribution="uniform"),
            FuzzedParameter("f", minval=0.25, maxval=2.5, distribution="uniform"),
            # 64-bit draws in NumPy's bounded integers.
            FuzzedParameter("big", minval=0, maxval=2 ** 40, distribution="uniform"),
            # h -> a2 -> a: a chain through a later parameter.
            FuzzedParameter("h", distribution={
                ParameterAlias("c"): 0.5, ParameterAlias("a2"): 0.5}),
            FuzzedParameter("a2", distribution={ParameterAlias("a"): 1.0}),
            FuzzedParameter("st", minval=1, maxval=4, distribution="uniform", strict=True),
            FuzzedParameter("s", distribution={1: 0.5, 2: 0.25, 4: 0.25}),
            FuzzedParameter("flag", distribution={True: 0.5, False: 0.5}),
            FuzzedParameter("d", distribution={0.5: 0.3, 1.5: 0.7}),
        ],
        tensors=[
            FuzzedTensor("x", size=("a", "c", 7), steps=("s", 1, "s"),
                         probability_contiguous=0.3, max_elements=20000,
                         dim_parameter="dim", dtype=torch.float64),
            FuzzedTensor("y", size=("h", "st"), probability_contiguous=0.0,
                         min_elements=10, dtype=torch.int32),
            FuzzedTensor("z", size=("b",), dtype=torch.float16),
            FuzzedTensor("w", size=(3, "st", 2), steps=(2,), dtype=torch.complex64,
                         max_allocation_bytes=400),
            FuzzedTensor("u", size=("c", "st"), probability_contiguous=0.5,
                         tensor_constructor=lambda size, dtype, **params:
                             torch.randn(size, dtype=dtype) * params["f"]),
        ],
        constraints=[lambda params: (params["a"] + params["c"]) % 3 != 0],
        seed=seed,
    )


def scenario_sparse(seed):
    """Hybrid and fully sparse tensors, int density, both coalesced states."""
    return Fuzzer(
        parameters=[
            FuzzedParameter("n0", minval=1, maxval=50, distribution="uniform"),
            FuzzedParameter("n1", minval=1, maxval=30, distribution="uniform"),
            FuzzedParameter("n2", distribution={2: 0.5, 3: 0.5}),
            FuzzedParameter("sparse_dim", distribution={1: 0.5, 2: 0.5}),
            FuzzedParameter("density", distribution={0.2: 0.5, 1: 0.5}),
            FuzzedParameter("coalesced", distribution={True: 0.6, False: 0.4}),
        ],
        tensors=[
            FuzzedSparseTensor("h", size=("n0", "n1", "n2"), sparse_dim="sparse_dim",
                               density="density", coalesced="coalesced",
                               dtype=torch.float64),
            FuzzedSparseTensor("q", size=("n1", "n0"), min_elements=20),
        ],
        seed=seed,
    )


def scenario_sparse_int(seed):
    """Integer values (the reference cannot make uncoalesced integer tensors)."""
    return Fuzzer(
        parameters=[
            FuzzedParameter("k", minval=2, maxval=40, distribution="uniform"),
            FuzzedParameter("density", distribution={0.5: 0.5, 0.25: 0.5}),
            FuzzedParameter("coalesced", distribution={True: 1.0}),
        ],
        tensors=[FuzzedSparseTensor("i", size=("k", "k"), dtype=torch.int64)],
        seed=seed,
    )


SCENARIOS = {
    "mixed": scenario_mixed,
    "sparse": scenario_sparse,
    "sparse_int": scenario_sparse_int,
}

# (name, seeds, samples per take) for --testdata.
TESTDATA_OP_CASES = [
    ("unary", torch.float32, (0, 3, 4, 5), 4),
    ("unary", torch.float64, (7,), 2),
    ("unary", torch.int32, (8,), 2),
    ("binary", torch.float32, (1, 2, 3), 4),
    ("binary", torch.float16, (6,), 2),
    ("spectral", torch.float64, (0, 2, 4), 4),
    ("spectral", torch.complex64, (9,), 2),
    ("sparse_unary", torch.float32, (0, 1, 2, 3), 4),
    ("sparse_unary", torch.float64, (4,), 3),
    ("sparse_binary", torch.float32, (0, 2, 4, 5), 4),
]
TESTDATA_SCENARIO_CASES = [
    ("mixed", (0, 1, 2, 3, 4, 5), 6),
    ("sparse", (0, 1, 2), 6),
    ("sparse_int", (3,), 4),
]


def dtype_flag(dtype):
    return str(dtype).replace("torch.", "")


def tensor_sum(values):
    if values.is_complex():
        s = complex(values.sum(dtype=torch.complex128))
        return {"sum": s.real, "sum_imag": s.imag}
    return {"sum": float(values.sum(dtype=torch.float64))}


def sample_json(tensors, properties, params):
    out = {"params": params, "tensors": {}}
    for name, t in tensors.items():
        p = properties[name]
        if t.is_sparse:
            entry = {
                "size": list(t.shape), "dtype": p["dtype"], "numel": p["numel"],
                "nnz": t._nnz(), "is_coalesced": t.is_coalesced(),
                "sparse_dim": t.sparse_dim(), "dense_dim": t.dense_dim(),
            }
            entry.update(tensor_sum(t._values()))
        else:
            entry = {
                "size": list(t.shape), "stride": list(t.stride()), "dtype": p["dtype"],
                "is_contiguous": p["is_contiguous"], "numel": p["numel"],
                "order": [int(i) for i in p["order"]], "steps": list(p["steps"]),
            }
            entry.update(tensor_sum(t))
        out["tensors"][name] = entry
    return json.dumps(out)


def write_take(fuzzer, n, out, with_case=None):
    if with_case:
        out.write("case\t%s\t%d\n" % (with_case, n))
    for tensors, properties, params in fuzzer.take(n):
        line = sample_json(tensors, properties, params)
        out.write(("sample\t" if with_case else "") + line + "\n")
        out.flush()
    if with_case:
        out.write("rejection_rate\t%r\n" % fuzzer.rejection_rate)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fuzzer", choices=sorted(OP_FUZZERS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n", type=int, default=1)
    parser.add_argument("--dtype", help="e.g. float32; default: the fuzzer's")
    parser.add_argument("--testdata", action="store_true",
                        help="print the test data file instead")
    args = parser.parse_args()
    # Sums depend on how LibTorch splits them across threads.
    torch.set_num_threads(1)

    if args.testdata:
        out = sys.stdout
        out.write("# Generated by: /usr/bin/python3 fuzzer/testdata/make_reference.py "
                  "--testdata\n")
        out.write("# torch %s, numpy %s.\n" % (
            torch.__version__, __import__("numpy").__version__))
        for name, dtype, seeds, n in TESTDATA_OP_CASES:
            for seed in seeds:
                write_take(op_fuzzer(name, seed, dtype), n, out,
                           "%s/%s/seed=%d" % (name, dtype_flag(dtype), seed))
        for name, seeds, n in TESTDATA_SCENARIO_CASES:
            for seed in seeds:
                write_take(SCENARIOS[name](seed), n, out, "scenario_%s/seed=%d" % (name, seed))
        return

    if not args.fuzzer:
        parser.error("--fuzzer or --testdata is required")
    dtype = getattr(torch, args.dtype.replace("torch.", "")) if args.dtype else None
    write_take(op_fuzzer(args.fuzzer, args.seed, dtype), args.n, sys.stdout)


if __name__ == "__main__":
    main()
