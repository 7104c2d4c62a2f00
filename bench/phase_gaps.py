#!/usr/bin/env python3
"""When each phase of a run yields its results, and how long the machine
waits between phases.

    bench/phase_gaps.py [--runs=1] -- COMMAND [ARGS...]

e.g. `bench/phase_gaps.py -- bazel-bin/tools/main --output=/tmp/r.json`
(after `./bazelw build //tools:main`). Runs COMMAND, timestamps every
progress line on its stderr ("icount: 202/402 done, wall time, 1 thread,
...", worker/progress.h) at which the count of finished orders grows, and
prints per phase: its results, the seconds from the start to its first and
its last result, and the gap before it: from the previous phase's last
result to this one's first, which is the previous phase's tail, stopping
its workers and starting this phase's (issue #20: "no idle tail"). The
first phase's gap is the workers' start. With --runs=N, every run's table.
"""
import argparse
import re
import subprocess
import sys
import time

PROGRESS = re.compile(r"icount: (\d+)/(\d+) done, (.+?), \S+ elapsed")


def timeline(command):
    """[(seconds since start, finished orders, phase)] whenever the number
    of finished orders grows, and the run's total seconds and exit code."""
    start = time.monotonic()
    process = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    events, line, last_done = [], b"", -1
    while True:
        byte = process.stderr.read(1)
        if not byte:
            break
        if byte not in b"\r\n":
            line += byte
            continue
        match = PROGRESS.search(line.decode(errors="replace"))
        line = b""
        if match and int(match.group(1)) > last_done:
            last_done = int(match.group(1))
            events.append((time.monotonic() - start, last_done, match.group(3)))
    code = process.wait()
    return events, time.monotonic() - start, code


def phases(events):
    """[(phase, results, first, last)] in the order the phases ran; the
    first progress line (0 done) only marks the start."""
    rows, previous_done = [], None
    for seconds, done, phase in events:
        if previous_done is None:
            previous_done = done
            continue
        if not rows or rows[-1][0] != phase:
            rows.append([phase, 0, seconds, seconds])
        rows[-1][1] += done - previous_done
        rows[-1][3] = seconds
        previous_done = done
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    for run in range(args.runs):
        events, total, code = timeline(args.command)
        if code != 0:
            print(f"the command exited with code {code}", file=sys.stderr)
            return code
        print(f"run {run + 1}: {total:.2f} s in all")
        print(f"{'phase':<22} {'results':>7} {'first s':>8} {'last s':>8} {'gap before s':>12}")
        previous_last = 0.0
        for phase, results, first, last in phases(events):
            print(f"{phase:<22} {results:>7} {first:>8.2f} {last:>8.2f} "
                  f"{first - previous_last:>12.2f}")
            previous_last = last
    return 0


if __name__ == "__main__":
    sys.exit(main())
