#!/usr/bin/env python3
"""bench/valgrind_census.py: what a start runs, and the per-test table."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import valgrind_census  # noqa: E402
from valgrind_census import Process  # noqa: E402

CALLGRIND = ["/usr/bin/valgrind.bin", "--tool=callgrind", "--instr-atstart=no"]


class KindOfTest(unittest.TestCase):
    def test_workers_by_language_and_other_programs_by_name(self):
        self.assertEqual(valgrind_census.kind_of(
            CALLGRIND + ["/tmp/run/worker", "--scratch=/tmp/s", "--python=true"]), "worker, Python")
        self.assertEqual(valgrind_census.kind_of(
            CALLGRIND + ["/tmp/run/worker", "--canary", "--python=false"]), "worker, C++")
        self.assertEqual(valgrind_census.kind_of(
            CALLGRIND + ["/x/timer/callgrind_runner", "/tmp/task"]), "callgrind_runner")
        self.assertEqual(valgrind_census.kind_of(["/usr/bin/valgrind.bin", "--tool=none"]), "?")


class SummarizeTest(unittest.TestCase):
    def test_forked_processes_count_for_their_start(self):
        processes = {
            # A worker and two case processes it forked; one case forked again.
            10: Process(1, "//a:test", "worker, C++", 12.0),
            11: Process(10, "(no test)", "worker, C++", 0.5),
            12: Process(10, "//a:test", "worker, C++", 0.25),
            13: Process(12, "//a:test", "worker, C++", 0.25),
            # Another test's two starts.
            20: Process(2, "//b:test", "worker, Python", 26.0),
            21: Process(2, "//b:test", "callgrind_runner", 7.0),
        }
        by_test = valgrind_census.summarize(processes)
        self.assertEqual(sorted(by_test), ["//a:test", "//b:test"])
        self.assertEqual(dict(by_test["//a:test"]["starts"]), {"worker, C++": 1})
        self.assertEqual(by_test["//a:test"]["processes"], 4)
        self.assertEqual(by_test["//a:test"]["cpu_s"], 13.0)
        self.assertEqual(dict(by_test["//b:test"]["starts"]),
                         {"worker, Python": 1, "callgrind_runner": 1})
        self.assertEqual(valgrind_census.table(by_test).splitlines()[2:], [
            "| //b:test | 2 | 1 worker, Python, 1 callgrind_runner | 2 | 33 |",
            "| //a:test | 1 | 1 worker, C++ | 4 | 13 |",
            "| all | 3 | 1 worker, Python, 1 callgrind_runner, 1 worker, C++ | 6 | 46 |",
        ])


if __name__ == "__main__":
    unittest.main()
