#!/usr/bin/env python3
"""Writes rows of docs/figures.md, the page of icount's headline figures.

Each row is one figure with the machine, the commit and the command that
produced it; bench/figures.sh measures the figures and calls this to
record them. Rows not named are kept as they are, so a figure re-measured
alone replaces only its own row.

  bench/figures_page.py [--page=docs/figures.md] row ID VALUE
      # one figure of FIGURES, measured now at this checkout's HEAD
  bench/figures_page.py [--page=...] ci_time OUT/ci_time.md
      # the cold and nothing-changed rows from bench/ci_time.sh's output,
      # with the machine and commit it names

A figure with a row of its own for one of the slower EPYCs (CPUID family
25 model 1, id ending in _model1; family 26 model 2, id ending in
_family26) is written to that row when measured there, so the page keeps
the machines' figures side by side.
"""

import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import machine  # noqa: E402  (bench/machine.py)

# id -> (what is measured, the command that measures it), in page order.
FIGURES = {
    "tests": ("test targets of `./bazelw test //...`", "`./bazelw query 'tests(//...) except attr(tags, manual, //...)'`"),
    "ci_cold": ("`./bazelw test //...` cold: new clone, new output base, empty disk cache",
                "`bench/ci_time.sh`"),
    "ci_fresh": ("the README's two commands on a fresh machine: no Bazel, LibTorch, output base, "
                 "disk cache or roots; `./bazelw` installs the packages", "`.ci/run` in a new clone"),
    "ci_warm": ("`./bazelw test //...` with nothing changed (cached results)",
                "`bench/ci_time.sh`"),
    "ci_new_clone": ("`.ci/run` in a new clone of a commit this machine has tested (new output "
                     "base; results and objects from the machine's disk cache)", "`.ci/run`"),
    "ci_cold_model1": ("`./bazelw test //...` cold, on the slower EPYC", "`bench/ci_time.sh`"),
    "ci_warm_model1": ("`./bazelw test //...` with nothing changed, on the slower EPYC",
                       "`bench/ci_time.sh`"),
    "ci_cold_family26": ("`./bazelw test //...` cold, on the EPYC of family 26: packages installed, "
                         "no output base, disk cache or roots (as on a fresh machine)",
                         "`bench/ci_time.sh`, or `./bazelw test //...` on a fresh machine"),
    "ci_warm_family26": ("`./bazelw test //...` with nothing changed, on the EPYC of family 26",
                         "`bench/ci_time.sh`, or `./bazelw test //...` again"),
    "ci_cold_xeon207": ("`./bazelw test //...` cold, on the Intel Xeon of model 207: packages "
                        "installed, no output base, disk cache or roots (as on a fresh machine)",
                        "`bench/ci_time.sh`"),
    "ci_warm_xeon207": ("`./bazelw test //...` with nothing changed, on the Intel Xeon of model 207",
                        "`bench/ci_time.sh`"),
    "bazel7_suite": ("`./bazelw test //...` in Debian sid: Bazel 7.7.1 building the module, g++ 16, "
                     "PyTorch 2.14.1 with C++20, Python 3.14, valgrind 3.27; new output base, "
                     "the tests that make roots left out",
                     "`bench/bazel7_suite.sh OUT`"),
    "fast_loop": ("the fast loop: tests that start no valgrind, build done, run afresh",
                  "`./bazelw test //... --test_tag_filters=-valgrind --nocache_test_results`"),
    "fast_loop_model1": ("the fast loop, on the slower EPYC",
                         "`./bazelw test //... --test_tag_filters=-valgrind --nocache_test_results`"),
    "timer_cpp": ("`collect_callgrind` of C++ `torch::add(x, y)` (4x4), number=100, 5 repeats, "
                  "a fresh process under valgrind", "`bazel-bin/timer/timer_benchmark`"),
    "timer_python": ("the same for Python `torch.add(x, y)`", "`bazel-bin/timer/timer_benchmark`"),
    "timer_compile": ("compiling a C++ string snippet (cache miss; a hit is a file read)",
                      "`bazel-bin/timer/timer_benchmark`"),
    "timer_compile_model1": ("compiling a C++ string snippet (cache miss), on the slower EPYC",
                             "`bazel-bin/timer/timer_benchmark`"),
    "timer_overhead": ("timing an empty C++ callable, per run",
                       "`bazel-bin/timer/timer_benchmark`"),
    "main": ("the default main job: all cases, 1 callgrind repeat of 100 runs, 0.05 s of wall time "
             "a case, a worker per CPU", "`bazel-bin/tools/main`"),
    "full5": ("the full suite with 5 repeats of counts, and wall time",
              "`bazel-bin/tools/main --repeats=5 --output=F`"),
    "ab": ("A/B of the whole suite, counts only, two identical environments",
           "`bazel-bin/tools/ab_test --A=true --B=true --json=F`"),
    "abtime": ("A/B of the whole suite with wall time (6 paired rounds), two identical environments",
               "`bazel-bin/tools/ab_test --A=true --B=true --display_time --json=F`"),
}

HEADER = """\
# Figures

icount's headline figures, each with the machine, the commit and the
command that produced it. `bench/figures.sh` measures them and writes this
page (`bench/figures.sh OUT main` re-measures one figure and replaces its
row); run it on an otherwise idle machine. The commands run what
`./bazelw build //tools:main //tools:ab_test //timer:timer_benchmark`
builds. Counts differ between CPUs
(LibTorch picks kernels by CPU features), so compare counts taken on one
machine; times differ more, between machines of one kind too.

Figures about one part of icount are on that part's page, with their
commands: [wall time](wall_time.md), [history](history.md),
[report](report.md), [Slurm](slurm.md), [counts](counts.md),
[what a run costs](main.md), [testing](testing.md).

| figure | value | command | commit | machine |
|---|---|---|---|---|
"""

_ROW = re.compile(r"^\| <a id=\"([\w-]+)\"></a>")


def read_rows(page):
    rows = {}
    if os.path.exists(page):
        with open(page, encoding="utf-8") as f:
            for line in f:
                match = _ROW.match(line)
                if match:
                    rows[match.group(1)] = line.rstrip("\n")
    return rows


def write_page(page, rows):
    unknown = sorted(set(rows) - set(FIGURES))
    if unknown:
        sys.exit(f"figures_page: {page} has rows this script does not know: {unknown}")
    with open(page + ".tmp", "w", encoding="utf-8") as f:
        f.write(HEADER)
        for figure in FIGURES:
            if figure in rows:
                f.write(rows[figure] + "\n")
    os.replace(page + ".tmp", page)


def head_commit():
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True, check=True).stdout.strip()
    # The page itself changes as figures are written; anything else changed
    # means the figure is not of that commit.
    changed = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no",
                              "--", ".", ":!docs/figures.md"],
                             capture_output=True, text=True, check=True).stdout.strip()
    return commit + (" with changes" if changed else "")


# bench/machine.py's words for a slower EPYC -> the suffix of its rows.
# Machines whose figures have rows of their own (bench/machine.py's words
# for the CPU), beside those of the model-17 EPYC.
OTHER_MACHINES = {
    "(family 25, model 1, ": "_model1",
    "(family 26, model 2, ": "_family26",
    "Intel(R) Xeon(R) Processor (family 6, model 207, ": "_xeon207",
}


def row_id(figure, machine_text):
    """The row a figure measured on `machine_text` (bench/machine.py's line)
    goes to: its row for that machine, where it has one."""
    for words, suffix in OTHER_MACHINES.items():
        if words in machine_text and figure + suffix in FIGURES:
            return figure + suffix
    return figure


def row(figure, value, commit, machine_text):
    what, command = FIGURES[figure]
    cells = [f'<a id="{figure}"></a>{what}', value, command, commit, machine_text]
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--page", default=os.path.join(ROOT, "docs", "figures.md"))
    sub = parser.add_subparsers(dest="command", required=True)
    one = sub.add_parser("row")
    one.add_argument("figure", choices=list(FIGURES))
    one.add_argument("value")
    ci = sub.add_parser("ci_time")
    ci.add_argument("ci_time_md")
    args = parser.parse_args()

    rows = read_rows(args.page)
    if args.command == "row":
        machine_text = machine.machine_description()
        figure = row_id(args.figure, machine_text)
        rows[figure] = row(figure, args.value, head_commit(), machine_text)
    else:
        with open(args.ci_time_md, encoding="utf-8") as f:
            text = f.read()
        header = re.search(r"^Machine: (.*); commit (\w+); command", text, re.M)
        cold = re.search(r"^\| cold [^|]*\| ([^|]+) \| (\d+) \| ([\d.]+) \|", text, re.M)
        warm = re.search(r"^\| nothing changed [^|]*\| ([^|]+) \|", text, re.M)
        if not (header and cold and warm):
            sys.exit(f"figures_page: {args.ci_time_md} is not bench/ci_time.sh's output")
        machine_text, commit = header.groups()
        cold_id, warm_id = row_id("ci_cold", machine_text), row_id("ci_warm", machine_text)
        rows[cold_id] = row(cold_id, f"**{cold.group(1).strip()}** ({cold.group(2)} test "
                            f"targets, all passed; {cold.group(3)} CPUs busy on average)", commit,
                            machine_text)
        rows[warm_id] = row(warm_id, f"**{warm.group(1).strip()}**", commit, machine_text)
    write_page(args.page, rows)


if __name__ == "__main__":
    main()
