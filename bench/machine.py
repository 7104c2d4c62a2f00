#!/usr/bin/env python3
"""The CPU a benchmark ran on, for the first line of its output:

    $ bench/machine.py
    AMD EPYC (family 26, model 2, stepping 1), 2 CPUs, rdtscp in CPUID: no, first touch of a page: 14.2 µs

A VM often names its CPU only "AMD EPYC" or "Intel Xeon Processor", for
CPUs generations apart that run this suite 2-4x apart; CPUID's family,
model and stepping tell them apart, and whether CPUID shows RDTSCP tells
the machines icount's RDTSCP fix is for (LibTorch's libhwy under valgrind).
What a page's first touch costs tells VMs of one CPU apart whose
hypervisors keep page tables differently. Scripts in bench/ import
machine_description(); shell scripts run this file.
"""
import mmap
import os
import time


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


def page_touch_microseconds(pages=16384):
    """What the first write to a page of fresh memory costs, in µs: the page
    fault and the zeroing of the page, timed over `pages` pages (64 MB).
    Compilers, valgrind and the processes a worker forks fault in hundreds
    of thousands of pages, so where a fault is slow (tens of µs in a guest
    whose hypervisor keeps its page tables in software) they run far slower
    than the CPU's name says."""
    memory = mmap.mmap(-1, pages * mmap.PAGESIZE)
    start = time.perf_counter()
    for offset in range(0, pages * mmap.PAGESIZE, mmap.PAGESIZE):
        memory[offset] = 1
    elapsed = time.perf_counter() - start
    memory.close()
    return elapsed / pages * 1e6


def machine_description():
    """cpu_description() and what a page's first touch costs here, the best
    of three tries: the line benchmarks print first."""
    touch = min(page_touch_microseconds() for _ in range(3))
    return f"{cpu_description()}, first touch of a page: {touch:.1f} µs"


if __name__ == "__main__":
    print(machine_description())
