#!/usr/bin/env python3
"""Which tests start valgrind, how often, and what those processes cost.

Runs a command (by default the valgrind-tagged tests, results not cached)
and samples /proc while it runs: every process whose executable is one of
valgrind's tools (/usr/libexec/valgrind/*-linux) is recorded with the test
it belongs to (TEST_TARGET in its own or an ancestor's environment; Slurm
tasks inherit it from the job), what it runs and the CPU time it used. A process whose parent is not a valgrind process is a
start (a worker, a timer's measuring process, ...); one forked by a valgrind
process (a case, a zygote's child) is counted with its start's test, not as
another start.

    bench/valgrind_census.py [--out FILE] [-- COMMAND...]

COMMAND defaults to `./bazelw test //... --test_tag_filters=valgrind
--nocache_test_results`, run from the checkout's root (the whole valgrind
suite: about 18 min on a 2-CPU EPYC). Prints, and writes to FILE
(default /tmp/icount-valgrind-census.md), a Markdown table per test: starts
by kind (a worker with Python, a worker without, other programs), valgrind
processes in all, and their CPU seconds; then the totals. The CPU of the
last ~0.2 s of each process's life is not seen; a process that lives less
than the sampling interval may be missed (none of a LibTorch program's
starts do: they take seconds).
"""
import argparse
import collections
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import machine  # noqa: E402

VALGRIND_TOOLS = "/usr/libexec/valgrind/"
DEFAULT_COMMAND = ["./bazelw", "test", "//...", "--test_tag_filters=valgrind",
                   "--nocache_test_results"]


def kind_of(cmdline):
    """What a valgrind command line runs: 'worker, Python', 'worker, C++' or
    the program's file name (its first argument that is not an option)."""
    program = next((arg for arg in cmdline[1:] if not arg.startswith("-")), "?")
    name = os.path.basename(program)
    if "--python=true" in cmdline:
        return "worker, Python"
    if "--python=false" in cmdline:
        return "worker, C++"
    return name


Process = collections.namedtuple("Process", "ppid test kind cpu_s")


def summarize(processes):
    """Per test: starts by kind, processes in all, CPU seconds.
    `processes` maps pid to Process; a process whose parent is in it
    is forked by valgrind (not a start) and counts for its root's test."""
    by_test = {}

    def root(process):
        while process.ppid in processes:
            process = processes[process.ppid]
        return process

    for process in processes.values():
        start = root(process)
        row = by_test.setdefault(start.test, {"starts": collections.Counter(),
                                               "processes": 0, "cpu_s": 0.0})
        row["processes"] += 1
        row["cpu_s"] += process.cpu_s
        if start is process:
            row["starts"][process.kind] += 1
    return by_test


def table(by_test):
    lines = ["| test | starts | what they run | valgrind processes | CPU s |",
             "|---|---|---|---|---|"]
    total_starts = total_processes = 0
    total_cpu = 0.0
    kinds = collections.Counter()
    for test, row in sorted(by_test.items(), key=lambda kv: -kv[1]["cpu_s"]):
        starts = sum(row["starts"].values())
        what = ", ".join(f"{n} {kind}" for kind, n in row["starts"].most_common())
        lines.append(f"| {test} | {starts} | {what} | {row['processes']} | {row['cpu_s']:.0f} |")
        total_starts += starts
        total_processes += row["processes"]
        total_cpu += row["cpu_s"]
        kinds.update(row["starts"])
    what = ", ".join(f"{n} {kind}" for kind, n in kinds.most_common())
    lines.append(f"| all | {total_starts} | {what} | {total_processes} | {total_cpu:.0f} |")
    return "\n".join(lines)


def read_stat(pid):
    """(ppid, CPU seconds) from /proc/PID/stat; the name may hold spaces."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / ticks


def test_target(pid):
    """TEST_TARGET from the process's environment or its nearest ancestor's."""
    while pid > 1:
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                for entry in f.read().split(b"\0"):
                    if entry.startswith(b"TEST_TARGET="):
                        return entry.split(b"=", 1)[1].decode()
            pid = read_stat(pid)[0]
        except (OSError, IndexError, ValueError):
            return "(no test)"
    return "(no test)"


def sample(processes):
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            if not os.readlink(f"/proc/{pid}/exe").startswith(VALGRIND_TOOLS):
                continue
            ppid, cpu_s = read_stat(pid)
            known = processes.get(pid)
            if known is None:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmdline = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
                processes[pid] = Process(ppid, test_target(pid), kind_of(cmdline), cpu_s)
            else:
                processes[pid] = known._replace(cpu_s=cpu_s)
        except (OSError, IndexError, ValueError):
            continue  # gone between listing and reading


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="/tmp/icount-valgrind-census.md")
    parser.add_argument("--interval", type=float, default=0.2)
    parser.add_argument("command", nargs="*", default=DEFAULT_COMMAND)
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    started = time.monotonic()
    child = subprocess.Popen(args.command, cwd=root, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    processes = {}
    while child.poll() is None:
        sample(processes)
        time.sleep(args.interval)
    wall = time.monotonic() - started
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root,
                            capture_output=True, text=True).stdout.strip()
    report = "\n".join([
        f"Machine: {machine.machine_description()}; commit {commit}; command `bench/valgrind_census.py`"
        f" ({' '.join(args.command)}: exit {child.returncode}, {wall:.0f} s).",
        "", table(summarize(processes)), ""])
    with open(args.out, "w") as f:
        f.write(report)
    print(report, end="")
    return 0 if child.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
