#!/usr/bin/env python3
"""How many of main's wall-time cells show two or more significant figures.

    bench/wall_time_figures.py [--main=bazel-bin/tools/main]
                               [--text=FILE --results=FILE.json]
                               [-- main flags, e.g. --filter=REGEX --no_counts]

Runs `main` (at its defaults unless flags follow `--`), or reads the
output it printed (--text) and its results file (--results), and counts
the significant figures of every cell of its wall-time tables (Compare's,
"Times are in ..." below each) in two ways:

  - as printed, conservatively: the digits from the first non-zero one,
    and for a whole number its trailing zeros do not count ("1700" is 2
    figures, "601" is 3, "9" is 1), so no cell counts more than it shows,
    and a two-figure 800 (8.0e2) counts one;
  - by icount's rule (timer/measurement.h, FiguresRule::kBlocks),
    recomputed here from the results file's blocks: a cross-check of the
    C++ rule, and the count without the trailing-zero ambiguity.

Prints both, the cells with one figure, and how long main took. Build
first: ./bazelw build //tools:main
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

# A table row: "      name  |  cell  |  cell"; the header row has no
# number in its cells, the "N threads:" lines no "|".
CELL = re.compile(r"^-?(\d+(\.\d*)?)$")


def figures(cell):
    digits = cell.lstrip("-")
    if "." in digits:
        return len(digits.replace(".", "").lstrip("0"))
    return len(digits.lstrip("0").rstrip("0")) or 1


def wall_time_cells(tables):
    """(table title, row, column index, cell text) of each wall-time cell."""
    cells = []
    for table in tables:
        lines = table.strip("\n").splitlines()
        title = lines[0].strip("[]- ")
        for line in lines[2:]:
            if "|" not in line:
                continue
            row, *columns = [part.strip() for part in line.split("|")]
            for index, cell in enumerate(columns):
                # Highlighted cells end in "(! 12%)"; the number comes first.
                value = cell.split(" (!")[0].strip()
                if CELL.match(value):
                    cells.append((title, row, index, value))
    return cells


def student_t_95(df):
    """One-sided 95% quantile of Student's t, by bisection on its CDF
    (Simpson's rule over the density; df >= 1)."""
    def cdf(t):
        steps = 2000
        h = t / steps
        norm = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))
        f = lambda x: norm * (1 + x * x / df) ** (-(df + 1) / 2)
        area = f(0) + f(t) + sum((4 if i % 2 else 2) * f(i * h) for i in range(1, steps))
        return 0.5 + area * h / 3
    low, high = 0.0, 10.0
    while cdf(high) < 0.95:
        high *= 2
    for _ in range(60):
        mid = (low + high) / 2
        (low, high) = (mid, high) if cdf(mid) < 0.95 else (low, mid)
    return (low + high) / 2


def rule_figures(measurement):
    """FiguresRule::kBlocks for one measurement of a results file."""
    runs = int(measurement["number_per_run"])
    times = sorted(t / runs for t in measurement["raw_times"])
    n = len(times)
    points = times[n // 4:min(math.ceil(3 * n / 4), n)]
    median = statistics.median(times) if times else 0
    if len(points) < 2 or median <= 0:
        return 1
    sd = statistics.stdev(points)
    interval = max(student_t_95(len(points) - 1) * sd / math.sqrt(len(points)), 25e-9 / runs)
    return min(max(math.floor(math.log10(median / interval)), 1), 4)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--main", default="bazel-bin/tools/main")
    parser.add_argument("--text", help="main's printed output, instead of running it")
    parser.add_argument("--results", help="with --text: the results file main wrote")
    parser.add_argument("extra", nargs="*", help="main's flags (after --)")
    args = parser.parse_args()
    tmp = tempfile.TemporaryDirectory(prefix="icount-figures")
    if args.text:
        text, seconds, results = open(args.text).read(), None, args.results
    else:
        results = os.path.join(tmp.name, "results.json")
        start = time.monotonic()
        run = subprocess.run([args.main] + args.extra + [f"--output={results}"],
                             stdout=subprocess.PIPE, text=True)
        seconds = time.monotonic() - start
        if run.returncode not in (0, 1):  # 1: some cases failed, the rest printed
            sys.exit(f"wall_time_figures: {args.main} exited {run.returncode}")
        text = run.stdout
    # Compare's tables start with "[--- label ---]" and end with "Times are
    # in ..."; the counts table and the failures are skipped.
    tables = [t for t in re.split(r"\n(?=\[-)", "\n" + text) if "Times are in" in t]
    cells = wall_time_cells(tables)
    if not cells:
        sys.exit("wall_time_figures: no wall-time table in main's output (was it run with --no_wall_time?)")
    counts = {}
    for cell in cells:
        counts[figures(cell[3])] = counts.get(figures(cell[3]), 0) + 1
    two_or_more = sum(n for f, n in counts.items() if f >= 2)
    print(f"cells: {len(cells)}; by significant figures: "
          + ", ".join(f"{f}: {counts[f]}" for f in sorted(counts)))
    print(f"as printed: two or more in {two_or_more} of {len(cells)} "
          f"({100 * two_or_more / len(cells):.1f}%)")
    for title, row, index, value in cells:
        if figures(value) < 2:
            print(f"  one figure: {title} / {row} (column {index + 1}): {value}")
    if results:
        measurements = json.load(open(results))["measurements"]
        by_rule = [rule_figures(m) for m in measurements]
        two = sum(f >= 2 for f in by_rule)
        print(f"by the rule, from {len(by_rule)} measurements: two or more in {two} "
              f"({100 * two / len(by_rule):.1f}%)")
    if seconds is not None:
        print(f"main took {seconds:.0f} s")


if __name__ == "__main__":
    main()
