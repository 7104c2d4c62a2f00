#!/usr/bin/python3
"""Regenerates the Compare goldens from the reference implementation.

The goldens are what torch.utils.benchmark.Compare (python3-torch 1.13)
prints for the measurements in mixed.json and units.json, so compare_test can
check that icount::compare::Compare is byte-identical to it. Run it from the
repository root with Debian's python, the one that can import torch:

  /usr/bin/python3 compare/testdata/make_goldens.py

Each golden <case>.txt holds str(Compare(...)) for the case's input and
options; Compare.print() writes the same text plus a newline.
units_summary.txt holds the repr of each measurement in units.json without
its first line (the Python object), which is what `compare --summary` prints.

fallbacks.json holds what the reference cannot render: a table mixing an
unset env with named ones (it compares None with str), a measurement without
a description (it takes len(None)) and one without times (it takes the log
of the median -1). Its goldens are the reference's output after the stand-ins
icount documents for those cases (see compare.h): an unset env reads
"Unspecified env", a missing description is an empty header, and a
measurement without times is left out.

fuzz_against_reference.py checks many random inputs the same way.
delta_a.json and delta_b.json feed the --baseline cases of
tools/compare_test.sh, whose delta tables are icount's own format.
"""
import json
import os

from torch.utils.benchmark.utils import common
from torch.utils.benchmark.utils.compare import Compare

HERE = os.path.dirname(os.path.abspath(__file__))

# golden name -> (input file, Compare methods to call in order).
CASES = {
    "mixed_plain": ("mixed.json", []),
    "mixed_trim": ("mixed.json", ["trim_significant_figures"]),
    "mixed_columnwise": ("mixed.json", ["colorize"]),
    "mixed_rowwise": ("mixed.json", ["colorize_rowwise"]),
    "mixed_warnings": ("mixed.json", ["highlight_warnings"]),
    "mixed_all": ("mixed.json",
                  ["trim_significant_figures", "colorize_rowwise", "highlight_warnings"]),
    "mixed_trim_columnwise_warnings": ("mixed.json",
                                       ["trim_significant_figures", "colorize",
                                        "highlight_warnings"]),
    "units_plain": ("units.json", []),
    "units_trim_warnings": ("units.json", ["trim_significant_figures", "highlight_warnings"]),
    "units_columnwise": ("units.json", ["colorize"]),
    "units_rowwise_warnings": ("units.json", ["colorize_rowwise", "highlight_warnings"]),
    "fallbacks_columnwise": ("fallbacks.json", ["colorize"]),
}


def stand_in(entry):
    """icount's rendering of inputs the reference fails on, as reference input."""
    if not entry["raw_times"]:
        return None
    entry = dict(entry)
    entry.setdefault("env", "Unspecified env")
    entry.setdefault("description", "")
    return entry


def load(path, stand_ins=False):
    """Reads an icount results file into reference Measurements."""
    with open(path, encoding="utf-8") as f:
        entries = json.load(f)["measurements"]
    if stand_ins:
        entries = [e for e in map(stand_in, entries) if e is not None]
    measurements = []
    for e in entries:
        spec = common.TaskSpec(
            stmt=e.get("stmt", ""),
            setup=e.get("setup", ""),
            global_setup=e.get("global_setup", ""),
            label=e.get("label"),
            sub_label=e.get("sub_label"),
            description=e.get("description"),
            env=e.get("env"),
            num_threads=e.get("num_threads", 1),
        )
        measurements.append(
            common.Measurement(int(e["number_per_run"]), e["raw_times"], spec))
    return measurements


def render(measurements, calls):
    compare = Compare(measurements)
    for call in calls:
        if call == "colorize_rowwise":
            compare.colorize(rowwise=True)
        else:
            getattr(compare, call)()
    return str(compare)


def summaries(measurements):
    """What `compare --summary` prints: each repr without its first line."""
    return "\n\n".join(repr(m).split("\n", 1)[1] for m in measurements) + "\n"


def main():
    for name, (input_file, calls) in CASES.items():
        measurements = load(os.path.join(HERE, input_file),
                            stand_ins=input_file == "fallbacks.json")
        text = render(measurements, calls)
        with open(os.path.join(HERE, name + ".txt"), "w", encoding="utf-8") as f:
            f.write(text)
    with open(os.path.join(HERE, "units_summary.txt"), "w", encoding="utf-8") as f:
        f.write(summaries(load(os.path.join(HERE, "units.json"))))


if __name__ == "__main__":
    main()
