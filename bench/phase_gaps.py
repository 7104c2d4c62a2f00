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
first phase's gap is the workers' start. For each phase with its gap, and
for the whole run, it also samples /proc/stat: how busy the machine's CPUs
were and how many CPU-seconds idled (other programs count as busy, so run
it on an otherwise idle machine). With --runs=N, every run's table.
"""
import argparse
import os
import re
import subprocess
import sys
import threading
import time

import machine  # bench/machine.py, beside this file

PROGRESS = re.compile(r"icount: (\d+)/(\d+) done, (.+?), \S+ elapsed")


def cpu_seconds():
    """(all CPU-seconds, idle CPU-seconds) the machine has counted since boot:
    /proc/stat's first line, idle and iowait as idle."""
    with open("/proc/stat") as stat:
        ticks = [int(field) for field in stat.readline().split()[1:]]
    per_second = os.sysconf("SC_CLK_TCK")
    return sum(ticks) / per_second, (ticks[3] + ticks[4]) / per_second


def cpu_use(samples, begin, end):
    """(busy share, idle CPU-seconds) between `begin` and `end` (seconds
    since the start), from samples [(seconds since start, all, idle)]: the
    last sample at or before `begin`, the first at or after `end`."""
    before = [s for s in samples if s[0] <= begin] or samples[:1]
    after = [s for s in samples if s[0] >= end] or samples[-1:]
    all_seconds = after[0][1] - before[-1][1]
    idle = after[0][2] - before[-1][2]
    return (1 - idle / all_seconds if all_seconds > 0 else 0.0), idle


def timeline(command, samples=None):
    """[(seconds since start, finished orders, phase)] whenever the number
    of finished orders grows, and the run's total seconds and exit code.
    With `samples`, a list, appends (seconds since start, all CPU-seconds,
    idle CPU-seconds) to it every 0.2 s while the command runs."""
    start = time.monotonic()
    running = threading.Event()
    running.set()

    def sample():
        while True:
            samples.append((time.monotonic() - start, *cpu_seconds()))
            if not running.is_set():
                return
            time.sleep(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    if samples is not None:
        sampler.start()
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
    total = time.monotonic() - start
    if samples is not None:
        running.clear()
        sampler.join()
    return events, total, code


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
    print(f"machine: {machine.machine_description()}")
    for run in range(args.runs):
        samples = []
        events, total, code = timeline(args.command, samples)
        if code != 0:
            print(f"the command exited with code {code}", file=sys.stderr)
            return code
        busy, idle = cpu_use(samples, 0, total)
        print(f"run {run + 1}: {total:.2f} s in all; CPUs {100 * busy:.0f}% busy, "
              f"{idle:.1f} CPU-seconds idle")
        print(f"{'phase':<22} {'results':>7} {'first s':>8} {'last s':>8} {'gap before s':>12} "
              f"{'busy %':>7} {'idle CPU s':>10}")
        previous_last = 0.0
        for phase, results, first, last in phases(events):
            # The phase with the gap before it, which its start is part of.
            busy, idle = cpu_use(samples, previous_last, last)
            print(f"{phase:<22} {results:>7} {first:>8.2f} {last:>8.2f} "
                  f"{first - previous_last:>12.2f} {100 * busy:>7.0f} {idle:>10.1f}")
            previous_last = last
    return 0


if __name__ == "__main__":
    sys.exit(main())
