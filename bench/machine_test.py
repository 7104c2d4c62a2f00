#!/usr/bin/env python3
"""bench/machine.py: the CPU line benchmarks print."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import machine  # noqa: E402

# Two processors of a VM that names its CPU only by brand; the second's
# lines must not be read.
CPUINFO = """processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 23
model\t\t: 49
model name\t: AMD EPYC
stepping\t: 0
flags\t\t: fpu vme tsc msr lm nopl

processor\t: 1
cpu family\t: 99
model name\t: Other
flags\t\t: rdtscp
"""


class MachineTest(unittest.TestCase):
    def test_names_the_cpu_by_cpuid_and_says_whether_rdtscp_shows(self):
        self.assertEqual(machine.cpu_description(CPUINFO, cpus=2),
                         "AMD EPYC (family 23, model 49, stepping 0), 2 CPUs, rdtscp in CPUID: no")
        with_rdtscp = CPUINFO.replace("nopl\n", "nopl rdtscp\n", 1)
        self.assertTrue(machine.cpu_description(with_rdtscp, cpus=2).endswith("rdtscp in CPUID: yes"))

    def test_a_cpuinfo_without_model_or_cpuid_fields(self):
        # As on some ARM machines: no model name, no family.
        self.assertEqual(machine.cpu_description("processor\t: 0\nBogoMIPS\t: 50.00\n", cpus=4),
                         "unknown CPU, 4 CPUs, rdtscp in CPUID: no")

    def test_this_machine(self):
        description = machine.cpu_description()
        self.assertIn(f"{os.cpu_count()} CPUs", description)

    def test_a_pages_first_touch_is_timed(self):
        self.assertGreater(machine.page_touch_microseconds(pages=256), 0)
        line = machine.machine_description()
        self.assertTrue(line.startswith(machine.cpu_description() + ", first touch of a page: "),
                        line)
        self.assertRegex(line, r": \d+\.\d µs$")


if __name__ == "__main__":
    unittest.main()
