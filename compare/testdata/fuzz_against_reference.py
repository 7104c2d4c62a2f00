#!/usr/bin/python3
"""Checks `compare` against torch.utils.benchmark.Compare on random inputs.

The goldens next to this script pin chosen cases; this explores many more:
random labels, sub_labels, descriptions, envs (unset ones mixed with named
ones), thread counts, replicates, times from sub-nanosecond to kiloseconds,
some without times, and random options. Each case is written as a results
file, rendered by the `compare` binary and by the reference (after the
stand-ins of make_goldens.py for what the reference cannot render), and the
two outputs must be identical. A mismatching case is kept as
mismatch<N>.json / mismatch<N>.txt in the output directory.

  /usr/bin/python3 compare/testdata/fuzz_against_reference.py \\
      --compare=bazel-bin/tools/compare --cases=2000 --seed=1
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_goldens  # noqa: E402

OPTIONS = {
    "trim_significant_figures": "--trim_significant_figures",
    "colorize": "--colorize=columnwise",
    "colorize_rowwise": "--colorize=rowwise",
    "highlight_warnings": "--highlight_warnings",
}


def random_measurement(rng, labels, sub_labels, descriptions, envs, stmts):
    entry = {}
    for key, choices in (("label", labels), ("sub_label", sub_labels),
                         ("description", descriptions), ("env", envs)):
        value = rng.choice(choices)
        if value is not None:
            entry[key] = value
    entry["num_threads"] = rng.choice([1, 1, 2, 4, 16])
    entry["stmt"] = rng.choice(stmts)
    entry["number_per_run"] = rng.choice([1, 10, 100, 1000])
    per_run = 10 ** rng.uniform(-10.5, 3.5)
    spread = rng.choice([0, 0.001, 0.01, 0.05, 0.2, 0.5])
    n = rng.choice([0, 1, 2, 3, 4, 5, 8, 20, 50] if rng.random() < 0.1 else [1, 2, 3, 4, 5, 8, 20, 50])
    entry["raw_times"] = [
        float("%.6g" % (max(per_run * (1 + rng.gauss(0, spread)), per_run * 0.01) *
                        entry["number_per_run"]))
        for _ in range(n)
    ]
    return entry


def random_case(rng):
    # Never "" descriptions or a literal "Unspecified env": the stand-ins for
    # None would merge with them in the reference but not in icount.
    labels = rng.sample([None, "", "add", "mul", "\u00b5-op", "a very long label name", "x"],
                        rng.randint(1, 3))
    sub_labels = rng.sample([None, "", "4x4", "16x16", "long sub label here", "\u00e9"],
                            rng.randint(1, 4))
    descriptions = rng.sample([None, "float", "double", "\u00b5s", "a-longer-description", "q"],
                              rng.randint(1, 4))
    envs = rng.sample([None, "master", "branch", "env-\u00e9"], rng.randint(1, 3))
    stmts = rng.sample(["x + y", "", "torch.add(x, y)", "y = x"], rng.randint(1, 3))
    entries = [random_measurement(rng, labels, sub_labels, descriptions, envs, stmts)
               for _ in range(rng.randint(1, 25))]
    calls = [call for call in OPTIONS if rng.random() < 0.5]
    if "colorize" in calls and "colorize_rowwise" in calls:
        calls.remove("colorize")
    return entries, calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", required=True, help="the compare binary")
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=tempfile.mkdtemp(prefix="compare_fuzz_"))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    mismatches = 0
    for _ in range(args.cases):
        entries, calls = random_case(rng)
        path = os.path.join(args.out, "case.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"measurements": entries}, f, ensure_ascii=False)
        expected = make_goldens.render(make_goldens.load(path, stand_ins=True), calls)
        expected = expected + "\n" if expected else ""  # compare prints like Compare.print()
        run = subprocess.run([args.compare, "--input=" + path] + [OPTIONS[c] for c in calls],
                             capture_output=True)
        actual = run.stdout.decode("utf-8")
        if actual != expected:
            mismatches += 1
            os.rename(path, os.path.join(args.out, f"mismatch{mismatches}.json"))
            with open(os.path.join(args.out, f"mismatch{mismatches}.txt"), "w",
                      encoding="utf-8") as f:
                f.write(f"options: {calls}\n--- reference\n{expected}--- compare\n{actual}")
    print(f"{args.cases} cases, {mismatches} mismatches" +
          (f"; kept in {args.out}" if mismatches else ""))
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
