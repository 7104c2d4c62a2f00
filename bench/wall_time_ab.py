#!/usr/bin/env python3
"""How often ab_test's wall-time comparison raises a false alarm, and how
often it catches a real slowdown.

    bench/wall_time_ab.py [--filter=REGEX] [--trials=N] [--ab_test=...]
                          [--clock=bazel-bin/tests/libscaled_clock.so]
                          [--keep=DIR] [-- extra ab_test flags, e.g. --time_rounds=8]

Runs `ab_test --no_counts` (wall time only) over the cases --filter
selects (default: an 84-case subset; --filter= for the whole suite):

  1. --trials times between identical sides (--A=true --B=true): every
     significant case is a false alarm;
  2. once with B's monotonic clocks running 10% fast
     (LD_PRELOAD=libscaled_clock.so, tests/scaled_clock.c): every case is
     10% slower in B, and each one flagged "slower" is caught.

and prints per run the cases compared, the flagged ones, the median and
largest "resolvable" change (what a case's noise lets the method resolve),
and how long ab_test took (--keep keeps each run's JSON). Build first:
./bazelw build //tools:ab_test //tests:libscaled_clock.so
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import machine  # bench/machine.py, beside this file

SUBSET = "^(Empty|Pointwise / Math|Reduction|Indexing)"


def run_ab(args, b_command, label):
    with tempfile.TemporaryDirectory(prefix="icount-wall-ab") as tmp:
        out = os.path.join(tmp, "ab.json")
        command = [args.ab_test, "--A=true", f"--B={b_command}", "--no_counts",
                   f"--filter={args.filter}", f"--json={out}"] + args.extra
        start = time.monotonic()
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
        seconds = time.monotonic() - start
        if done.returncode != 0:
            sys.exit(f"wall_time_ab: {' '.join(command)} failed:\n{done.stderr[-3000:]}")
        with open(out) as f:
            comparisons = json.load(f)["comparisons"]
        if args.keep:
            # Every round's times are in the file: other statistics can be
            # tried on them later.
            os.makedirs(args.keep, exist_ok=True)
            name = "".join(ch if ch.isalnum() else "_" for ch in label) + ".json"
            shutil.copy(out, os.path.join(args.keep, name))
    timed = [c for c in comparisons if c["time_delta_pct"] is not None]
    flagged = [c for c in timed if c["time_significant"]]
    slower = [c for c in flagged if c["time_verdict"] == "slower"]
    resolvable = [c["time_resolvable_pct"] for c in timed]
    print(f"{label}: {len(timed)} cases compared in {seconds:.0f} s; "
          f"{len(flagged)} flagged ({len(slower)} slower); resolvable change: median "
          f"{statistics.median(resolvable):.1f}%, largest {max(resolvable):.1f}%; "
          f"median change {statistics.median(c['time_delta_pct'] for c in timed):+.2f}%",
          flush=True)
    for c in flagged[:5]:
        print(f"    {c['case']}: {c['time_delta_pct']:+.1f}% "
              f"[{c['time_ci_pct'][0]:+.1f}, {c['time_ci_pct'][1]:+.1f}]")
    return len(timed), len(flagged), len(slower)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ab_test", default="bazel-bin/tools/ab_test")
    parser.add_argument("--clock", default="bazel-bin/tests/libscaled_clock.so")
    parser.add_argument("--filter", default=SUBSET)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--keep", help="a directory to keep each run's ab_test --json in")
    parser.add_argument("extra", nargs="*", help="more ab_test flags (after --)")
    args = parser.parse_args()
    print(f"machine: {machine.machine_description()}; --filter={args.filter!r} "
          f"{' '.join(args.extra)}")
    runs_with_alarm = 0
    cases = alarms = 0
    for trial in range(args.trials):
        n, flagged, _ = run_ab(args, "true", f"identical sides, trial {trial + 1}")
        cases += n
        alarms += flagged
        runs_with_alarm += flagged > 0
    print(f"false alarms: {alarms} of {cases} case comparisons "
          f"({100 * alarms / max(cases, 1):.1f}%); runs with any: {runs_with_alarm} of "
          f"{args.trials}")
    clock = os.path.abspath(args.clock)
    n, _, slower = run_ab(args, f"export LD_PRELOAD={clock}", "B 10% slower")
    print(f"detected: {slower} of {n} cases 10% slower ({100 * slower / max(n, 1):.1f}%)")


if __name__ == "__main__":
    main()
