#!/usr/bin/env python3
"""The CPU a benchmark ran on, for the first line of its output:

    $ bench/machine.py
    AMD EPYC (family 26, model 2, stepping 1), 2 CPUs, rdtscp in CPUID: yes

A VM often names its CPU only "AMD EPYC" or "Intel Xeon Processor", for
CPUs generations apart that run this suite 2-4x apart; CPUID's family,
model and stepping tell them apart, and whether CPUID shows RDTSCP tells
the machines icount's RDTSCP fix is for (LibTorch's libhwy under valgrind).
Scripts in bench/ import cpu_description(); shell scripts run this file.
"""
import os


def cpu_description(cpuinfo_text=None, cpus=None):
    """The first processor of /proc/cpuinfo (or of `cpuinfo_text`) by name,
    family, model and stepping; the number of CPUs; whether its flags
    include rdtscp."""
    if cpuinfo_text is None:
        with open("/proc/cpuinfo") as f:
            cpuinfo_text = f.read()
    fields = {}
    for line in cpuinfo_text.split("\n\n")[0].splitlines():
        name, _, value = line.partition(":")
        fields.setdefault(name.strip(), value.strip())
    flags = fields.get("flags", "").split()
    name = fields.get("model name", "unknown CPU")
    cpuid = ", ".join(f"{key if key != 'cpu family' else 'family'} {fields[key]}"
                      for key in ("cpu family", "model", "stepping") if key in fields)
    cpus = os.cpu_count() if cpus is None else cpus
    return (f"{name}{f' ({cpuid})' if cpuid else ''}, {cpus} CPUs, "
            f"rdtscp in CPUID: {'yes' if 'rdtscp' in flags else 'no'}")


if __name__ == "__main__":
    print(cpu_description())
