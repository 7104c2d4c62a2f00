#!/usr/bin/env python3
"""Where did the instruction counts of two results files change?

    bench/explain_count_changes.py BEFORE.json AFTER.json [--min_pct=0.1] [--identical [--ignore_baseline]]

For every case (matched by metadata "case") whose per-run count moved by at
least --min_pct percent: the change, the share of it spent in the
allocators (glibc's malloc.c: _int_malloc, malloc_consolidate,
unlink_chunk, ...; CPython's PyObject_Malloc, PyObject_Free, PyMem_*), and
the functions outside them that moved most. A change that is
almost all allocator is heap state (a different worker binary, what ran
before), not a change in what the operator does; use it to tell the two
apart, e.g. between bench/behaviour_snapshot.sh runs of two commits.
Both files need the per-function counts results files carry ("exclusive").

With --identical it checks instead that a change left counts alone: every
case in both files, every repeat's count and the baseline equal; it lists
each case that differs and exits 1 if any does. For a change meant to make
measuring cheaper, run the suite's counts with both builds, e.g.
`bazel-bin/tools/main --no_wall_time --repeats=2 --output=F`, then this.
Counts follow the worker binary's layout (up to ~1% for an unrelated code
change, see docs/counts.md), so compare two runs of one binary where the
change can be switched at run time, e.g. main with and without
--baseline_per_case; --ignore_baseline then compares the statements'
counts alone and only summarises how far the baselines moved.
"""
import argparse
import collections
import json
import sys


def load(path):
    with open(path) as f:
        data = json.load(f)
    cases = {}
    for c in data.get("instruction_counts", []):
        key = c.get("metadata", {}).get("case") or c.get("stmt")
        rows = c.get("exclusive", {}).get("rows", [])
        cases[key] = (c, collections.Counter({key_text(r): int(r["count"]) for r in rows}))
    return cases


def key_text(row):
    """A row's function as callgrind_annotate writes it,
    "file:function'N [object]": from the key's fields ("key"), or the text
    files of older icount builds carry ("function")."""
    key = row.get("key")
    if key is None:
        return row["function"]
    recursion = key.get("recursion", 1)
    return (key.get("file", "") + ":" + key.get("function", "")
            + (f"'{recursion}" if recursion > 1 else "")
            + (f' [{key["object"]}]' if key.get("object") else ""))


def is_allocator(function):
    return ("/malloc/" in function or "malloc.c" in function
            or "PyObject_Malloc" in function or "PyObject_Free" in function
            or "PyMem_" in function)


def check_identical(before, after, ignore_baseline):
    differ = 0
    baselines_moved = []
    for key in sorted(set(before) | set(after)):
        if key not in before or key not in after:
            print(f"{key}: only in {'AFTER' if key in after else 'BEFORE'}")
            differ += 1
            continue
        a, b = before[key][0], after[key][0]
        baseline_differs = a.get("baseline") != b.get("baseline")
        if a.get("counts") != b.get("counts") or (baseline_differs and not ignore_baseline):
            print(f"{key}: counts {a.get('counts')} -> {b.get('counts')}, "
                  f"baseline {a.get('baseline')} -> {b.get('baseline')}")
            differ += 1
        elif baseline_differs:
            baselines_moved.append(abs(int(b["baseline"]) - int(a["baseline"])))
    total = len(set(before) | set(after))
    if ignore_baseline:
        print(f"{total - differ} of {total} cases identical (every repeat's count)"
              + (f"; {len(baselines_moved)} baselines differ, by at most "
                 f"{max(baselines_moved)} instructions" if baselines_moved else
                 "; every baseline identical too"))
    else:
        print(f"{total - differ} of {total} cases identical (every repeat and the baseline)")
    return 1 if differ else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--min_pct", type=float, default=0.1)
    parser.add_argument("--identical", action="store_true")
    parser.add_argument("--ignore_baseline", action="store_true")
    args = parser.parse_args()
    before, after = load(args.before), load(args.after)
    if args.identical:
        return check_identical(before, after, args.ignore_baseline)
    shown = 0
    for key in sorted(set(before) & set(after)):
        (a, fa), (b, fb) = before[key], after[key]
        pct = (b["counts_per_run"] - a["counts_per_run"]) / a["counts_per_run"] * 100
        if abs(pct) < args.min_pct:
            continue
        shown += 1
        delta = {f: fb.get(f, 0) - fa.get(f, 0) for f in set(fa) | set(fb)}
        total = sum(delta.values())
        allocator = sum(v for f, v in delta.items() if is_allocator(f))
        share = allocator / total * 100 if total else 0.0
        print(f"{key}: {pct:+.2f}% per run; {share:.0f}% of the change in the allocators")
        others = sorted(((v, f) for f, v in delta.items() if not is_allocator(f) and v),
                        key=lambda vf: -abs(vf[0]))[:3]
        for v, f in others:
            print(f"    {v:+d}  {f[:100]}")
    missing = sorted(set(before) ^ set(after))
    print(f"{shown} of {len(set(before) & set(after))} cases moved by {args.min_pct}% or more"
          + (f"; {len(missing)} cases in one file only" if missing else ""))


if __name__ == "__main__":
    sys.exit(main())
