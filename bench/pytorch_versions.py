#!/usr/bin/python3
"""How PyTorch's overhead changed across releases, from `ab_test --sides --json`.

Reads the JSON of an `ab_test --sides` run whose sides are PyTorch
releases in order (bench/pytorch_versions.sh runs one: this machine's
1.13.1, trixie's 2.6.0 and sid's 2.14.1) and prints Markdown:

- per suite group and mode (Python/C++, Eager/TorchScript), and per mode
  over all groups, the geometric mean over its cases of each release's
  count against the one before, with a 95% interval (Student's t over the
  logs of the ratios);
- the ten cases whose count changed most from the first release to the
  last, each with the three functions whose exclusive counts moved most.

Functions are matched across releases by name alone: the file a symbol
was compiled from and the library's version suffix differ between
releases, and code without a symbol is pooled per library ("unnamed code
in libtorch_cpu.so").

Usage: pytorch_versions.py SIDES.json
"""

import collections
import json
import math
import re
import statistics
import sys

# Two-sided 95% quantiles of Student's t, by degrees of freedom.
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(df):
    return _T975[df - 1] if df <= len(_T975) else 1.96


def case_key(count):
    return count["metadata"]["case"]


def mode(count):
    return count["description"]  # "Python Eager", "C++ TorchScript", ...


def title(count):
    return f'{count["label"]} / {count["sub_label"]} [{mode(count)}]'


def function_name(row):
    """A row's function without file or arguments' object: 'free' for
    ./malloc/malloc.c:free in libc.so.6; 'unnamed code in libtorch_cpu.so'
    for an address in libtorch_cpu.so.2.6.0 (libpython3.X: libpython3).
    Rows carry the key's fields ("key"); files of older icount builds its
    text alone ("function": "file:function [object]")."""
    key = row.get("key")
    if key is not None:
        symbol, library = key.get("function", ""), key.get("object", "")
    else:
        text, library = row["function"], ""
        match = re.match(r"^(.*) \[(.*)\]$", text)
        if match:
            text, library = match.group(1), match.group(2)
        # file:symbol, where the symbol may hold '::'.
        symbol = re.sub(r"^.*?(?<!:):(?!:)", "", text, count=1).removesuffix("'2")
    library = re.sub(r"\.so[.\d]*$", ".so", library.rsplit("/", 1)[-1])
    library = re.sub(r"^libpython3\.\d+", "libpython3", library)  # each release's Python
    if re.fullmatch(r"0x[0-9a-f]+", symbol):
        return f"unnamed code in {library or 'an unknown object'}"
    return symbol


def exclusive(count):
    per_run = collections.Counter()
    number = int(count["number_per_run"])
    for row in count.get("exclusive", {}).get("rows", []):
        per_run[function_name(row)] += int(row["count"]) / number
    return per_run


def geometric_mean(ratios):
    logs = [math.log(r) for r in ratios]
    mean = statistics.fmean(logs)
    if len(logs) < 2:
        return math.exp(mean), None, None
    half = t975(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def percent(x):
    return f"{(x - 1) * 100:+.1f}%"


def main(path):
    with open(path) as f:
        data = json.load(f)
    sides = data["sides"]
    names = [s["name"] for s in sides]
    counts = [{case_key(c): c for c in s["results"]["instruction_counts"]} for s in sides]
    common = [k for k in counts[0] if all(k in side for side in counts)]

    print(f"Cases counted on every side: {len(common)} of {len(counts[0])}.\n")
    groups = collections.defaultdict(list)
    for key in common:
        first = counts[0][key]
        groups[(first["label"], mode(first))].append(key)
        groups[("all groups", mode(first))].append(key)
    header = ["group", "mode", "cases"] + [f"{names[i - 1]} → {names[i]}" for i in range(1, len(names))]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * 3 + "---:|" * (len(names) - 1))
    for (label, how), keys in sorted(groups.items(), key=lambda item: (item[0][0] == "all groups", item[0])):
        cells = [label, how, str(len(keys))]
        for i in range(1, len(names)):
            ratios = [counts[i][k]["counts_per_run"] / counts[i - 1][k]["counts_per_run"] for k in keys]
            mean, low, high = geometric_mean(ratios)
            cells.append(percent(mean) + (f" [{percent(low)}, {percent(high)}]" if low else ""))
        print("| " + " | ".join(cells) + " |")

    print(f"\nThe ten largest changes from {names[0]} to {names[-1]} (instructions per run):\n")
    changes = sorted(common, key=lambda k: -abs(math.log(counts[-1][k]["counts_per_run"] /
                                                          counts[0][k]["counts_per_run"])))
    for key in changes[:10]:
        before, after = counts[0][key], counts[-1][key]
        path = " → ".join(f'{side[key]["counts_per_run"]:,.0f}' for side in counts)
        print(f'- **{title(before)}**: {path} '
              f'({percent(after["counts_per_run"] / before["counts_per_run"])})')
        moved = exclusive(after)
        moved.subtract(exclusive(before))
        moved = {name: delta for name, delta in moved.items() if round(delta) != 0}
        for name, delta in sorted(moved.items(), key=lambda item: -abs(item[1]))[:3]:
            print(f"  - `{name}` {delta:+,.0f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
