#!/usr/bin/env python3
"""Where one case's instruction-count measurement spends its time.

    bench/case_phases.py [--main=bazel-bin/tools/main] [--repeats=5]
                         [--filter=REGEX] [--markdown] [--aggregate]
                         [-- MAIN_FLAG...]

Runs `main --no_wall_time --jobs=1` once for the C++ and once for the
Python variants of a case (default: Pointwise / Math / add / Case:  0;
a --filter that selects several shows each, in suite order)
with ICOUNT_PHASE_LOG set, so the worker's processes log every phase
(base/phase_log.h), and prints per phase: wall, user and system seconds
and minor/major page faults. Process tree of a case (worker/worker.h,
timer/internal/callgrind_collect.cc), all under callgrind:

    worker ─ zygote ─ case ─ repeat x N

(two zygotes from the same state: C++ cases fork from one that emptied
valgrind's translation cache, Python cases from one that keeps it)

where the case process runs setup and warm-up itself (with main
--template_per_case, as before worker 0.9, it forks a template for them:
case ─ template ─ repeat x N; with --baseline_per_case a case also forks
a "baseline template" and its repeat for an empty statement). The runner
parses the dumps ("runner: parse a case's dumps").

"(whole life)" rows are a child's own usage from fork to exit as wait4
reports it; "(parent side)" rows are what fork() costs the parent;
"rest" rows are a whole life minus the phases logged inside it: mostly
process start and exit, where valgrind writes its final profile. The
canary (an empty C++ statement every worker measures first) and the
shared baseline (an empty statement's loop, measured once per worker,
language, number and thread count, subtracted from every case's count)
are shown apart from the case. With --aggregate, main runs as users run
it (one worker per CPU) and each language's table sums every case the
filter selects (default: the whole suite), canaries and shared baselines
included: where a whole suite's time goes. Build first:
./bazelw build //tools:main

Flags after `--` go to main as they are, e.g. `bench/case_phases.py
--filter='^nn Modules / Conv2d' -- --rehearse_torchscript` for what the
TorchScript rehearsal changes in a TorchScript case.
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile
import time

import machine  # bench/machine.py, beside this file

CASE = "^Pointwise / Math / add / Case:  0$"


def read_log(path):
    rows = []
    with open(path) as f:
        for line in f:
            pid, process, phase, wall, user, sys_, minflt, majflt = line.rstrip("\n").split("\t")
            rows.append(dict(pid=int(pid), process=process, phase=phase, wall=float(wall),
                             user=float(user), sys=float(sys_), minflt=int(minflt),
                             majflt=int(majflt)))
    return rows


def split_cases(rows):
    """(start rows, [rows of each case in order], [rows of each shared
    baseline's case]): a case ends with the worker's "read the case's
    result" line (one worker: cases in order), and the runner's parsing
    of its dumps follows; a shared baseline's case is followed by the
    worker's "measure a shared baseline" line."""
    start, cases, baselines, current = [], [], [], []
    for row in rows:
        if row["process"] == "runner":
            # The runner parses a case's dumps once its result is back
            # (with one worker, before the next case's result).
            (cases[-1] if cases else start).append(row)
            continue
        if row["process"] == "worker" and row["phase"] == "measure a shared baseline":
            baselines.append(cases.pop())
            continue
        if row["process"] == "worker" and row["phase"] != "send the order, wait for the case" \
                and row["phase"] != "read the case's result":
            start.append(row)
            continue
        current.append(row)
        if row["process"] == "worker" and row["phase"] == "read the case's result":
            cases.append(current)
            current = []
    return start, cases, baselines


FIELDS = ("wall", "user", "sys", "minflt", "majflt")


def total(rows):
    return {f: sum(r[f] for r in rows) for f in FIELDS}


def repeats_tree(template, repeat):
    return [
        (template, "setup", []),
        (template, "warm-up (instrumented, 10 calls)", []),
        (template, "fork a repeat (parent side)", []),
        (template, "repeat (whole life)", [
            (repeat, "from fork to the measured block", []),
            (repeat, "measured block", []),
            (repeat, "dump", []),
        ]),
        (template, "claim the repeat's dump", []),
    ]


# How a case's phases nest: every figure of a child (wall, CPU including
# reaped children, page faults) is part of its parent's; a parent's "rest"
# row is what its children do not account for.
CASE_TREE = [
    # Once per worker, before the first case of the TorchScript zygote
    # (main --rehearse_torchscript).
    ("zygote", "rehearse TorchScript (before its first case)", []),
    ("zygote", "fork the case (parent side)", []),
    ("zygote", "case process (whole life)", [
        ("case", "compile the C++ string (in a child)", []),
        ("case", "run the order", [
            ("case", "make the timer (compile a Python snippet, find a C++ one)", []),
            ("case", "prepare the baseline's statement", []),
            ("case", "set LibTorch's thread count", []),
            # The case process is the template (worker 0.9) ...
            *repeats_tree("case", "case's repeat"),
            # Only where the case process does not end once measured (it
            # ends before instrumentation stops otherwise).
            ("case", "stop instrumentation", []),
            # Only where the case process does not end once measured (the
            # canary, main --template_per_case).
            ("case", "leave the statement (its setup's state freed)", []),
            # ... or forks one (main --template_per_case, the canary).
            ("case", "fork a template (parent side)", []),
            ("case", "template (whole life)", repeats_tree("template", "repeat")),
            ("case", "baseline template (whole life)",
             repeats_tree("baseline template", "baseline repeat")),
            ("case", "parse the dumps", []),
        ]),
        ("case", "write the result", []),
    ]),
    # The worker's wait contains the zygote's rows in wall time only (the
    # zygote reaps the case, not the worker).
    ("worker", "send the order, wait for the case", []),
    ("worker", "read the case's result", []),
    # Natively, in main's own process, while the worker runs its next case.
    ("runner", "parse a case's dumps", []),
]


def case_table(rows, tree=CASE_TREE, depth=0):
    """[(name, count, figures)]: the tree's rows that were logged, each
    repeated phase summed, with a "rest" row under every parent."""
    table = []
    for process, phase, children in tree:
        members = [r for r in rows if r["process"] == process and r["phase"] == phase]
        if not members:
            continue
        figures = total(members)
        table.append(("  " * depth + f"{process}: {phase}", len(members), figures))
        if children:
            below = case_table(rows, children, depth + 1)
            table += below
            direct = [t for name, _, t in below if not name.startswith("  " * (depth + 2))]
            rest = {f: figures[f] - sum(t[f] for t in direct) for f in FIELDS}
            table.append(("  " * (depth + 1) + "rest (not logged: process start, exit, ...)",
                          len(members), rest))
    return table


def print_table(title, table, markdown):
    header = ("phase", "n", "wall s", "user s", "sys s", "minor faults", "major faults")
    lines = [(name, str(n), f"{t['wall']:.3f}", f"{t['user']:.3f}", f"{t['sys']:.3f}",
              str(t["minflt"]), str(t["majflt"])) for name, n, t in table]
    print(f"\n{title}\n")
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for line in lines:
            print("| " + " | ".join(line) + " |")
        return
    widths = [max(len(r[i]) for r in [header] + lines) for i in range(len(header))]
    for line in [header] + lines:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(line, widths))))


def run(args, language_flag):
    with tempfile.TemporaryDirectory(prefix="icount-phases") as tmp:
        log = os.path.join(tmp, "phases.tsv")
        env = dict(os.environ, ICOUNT_PHASE_LOG=log)
        command = [args.main, f"--filter={args.filter}", "--no_wall_time",
                   "--jobs=0" if args.aggregate else "--jobs=1",
                   f"--repeats={args.repeats}", language_flag,
                   f"--output={os.path.join(tmp, 'results.json')}"] + args.main_flags
        start = time.monotonic()
        done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        elapsed = time.monotonic() - start
        if done.returncode != 0:
            sys.exit(f"case_phases: {' '.join(command)} failed:\n{done.stderr}")
        return read_log(log), elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--main", default="bazel-bin/tools/main")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--filter", default=CASE)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--aggregate", action="store_true")
    parser.add_argument("main_flags", nargs="*", metavar="MAIN_FLAG",
                        help="after --: more flags for main")
    args = parser.parse_args()
    if args.aggregate and args.filter == CASE:
        args.filter = ""
    print(f"machine: {machine.machine_description()}; case {args.filter!r}, "
          f"--repeats={args.repeats}{''.join(' ' + f for f in args.main_flags)}")
    for language, flag in (("C++", "--no_python"), ("Python", "--no_cpp")):
        rows, elapsed = run(args, flag)
        if args.aggregate:
            print(f"\n== {language}: main took {elapsed:.1f} s in all")
            workers = [r for r in rows if r["process"] == "worker"
                       and r["phase"].startswith(("start", "initialise", "fork the zygote"))]
            phases = dict.fromkeys(r["phase"] for r in workers)  # in order, once each
            print_table("worker start (all workers)",
                        case_table(workers, [("worker", p, []) for p in phases]), args.markdown)
            cases = sum(1 for r in rows if r["phase"] == "case process (whole life)")
            print_table(f"all {cases} cases, canaries and shared baselines included ({language})", case_table(rows),
                        args.markdown)
            continue
        start, cases, baselines = split_cases(rows)
        if len(cases) < 2:
            sys.exit(f"case_phases: expected the canary and a case, found {len(cases)} "
                     "(does --filter name a case?)")
        print(f"\n== {language}: main took {elapsed:.1f} s in all")
        print_table("worker start (once per worker)",
                    [(f"{r['process']}: {r['phase']}", 1, r) for r in start], args.markdown)
        print_table("the canary (once per worker)", case_table(cases[0]), args.markdown)
        for baseline in baselines:
            print_table("the shared baseline (an empty statement, once per worker, language, "
                        "number and thread count)", case_table(baseline), args.markdown)
        for i, case in enumerate(cases[1:]):
            which = f" {i + 1} of {len(cases) - 1}, in suite order" if len(cases) > 2 else ""
            print_table(f"the case ({language}{which})", case_table(case), args.markdown)


if __name__ == "__main__":
    main()
