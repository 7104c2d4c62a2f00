#!/usr/bin/env python3
"""bench/figures_page.py: rows by machine, and bench/ci_time.sh's output."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import figures_page  # noqa: E402

MODEL_1 = "AMD EPYC (family 25, model 1, stepping 1), 2 CPUs, rdtscp in CPUID: yes"
MODEL_17 = "AMD EPYC (family 25, model 17, stepping 1), 2 CPUs, rdtscp in CPUID: yes"
FAMILY_26 = "AMD EPYC (family 26, model 2, stepping 1), 2 CPUs, rdtscp in CPUID: no"
XEON_207 = ("Intel(R) Xeon(R) Processor (family 6, model 207, stepping 2), 2 CPUs, "
            "rdtscp in CPUID: yes, first touch of a page: 2.4 µs")


def ci_time_md(machine_text, cold, warm):
    return (f"Machine: {machine_text}; commit abc1234; command `bench/ci_time.sh`.\n\n"
            "| run of `./bazelw test //...` | wall time | test targets | busy CPUs (mean) |\n"
            "|---|---|---|---|\n"
            f"| cold (new clone, new output base, empty disk cache) | {cold} | 118 | 1.74 |\n"
            f"| nothing changed (cached results) | {warm} | 118 | 1.83 |\n")


class RowIdTest(unittest.TestCase):
    def test_the_slower_epyc_gets_its_own_row_where_there_is_one(self):
        self.assertEqual(figures_page.row_id("fast_loop", MODEL_1), "fast_loop_model1")
        self.assertEqual(figures_page.row_id("ci_cold", MODEL_1), "ci_cold_model1")
        self.assertEqual(figures_page.row_id("timer_compile", MODEL_1), "timer_compile_model1")
        self.assertEqual(figures_page.row_id("main", MODEL_1), "main")
        self.assertEqual(figures_page.row_id("fast_loop", MODEL_17), "fast_loop")
        # Model 17's CPUID line contains "model 1" too, but not "model 1,".
        self.assertEqual(figures_page.row_id("ci_cold", MODEL_17), "ci_cold")
        self.assertEqual(figures_page.row_id("ci_cold", FAMILY_26), "ci_cold_family26")
        self.assertEqual(figures_page.row_id("ci_warm", FAMILY_26), "ci_warm_family26")
        self.assertEqual(figures_page.row_id("fast_loop", FAMILY_26), "fast_loop")
        self.assertEqual(figures_page.row_id("ci_cold", XEON_207), "ci_cold_xeon207")
        self.assertEqual(figures_page.row_id("ci_warm", XEON_207), "ci_warm_xeon207")
        self.assertEqual(figures_page.row_id("main", XEON_207), "main")


class CiTimeTest(unittest.TestCase):
    def run_page(self, page, *args):
        return subprocess.run([sys.executable, os.path.join(HERE, "figures_page.py"),
                               f"--page={page}", *args], capture_output=True, text=True)

    def test_each_machine_writes_its_own_rows_and_keeps_the_others(self):
        with tempfile.TemporaryDirectory() as tmp:
            page = os.path.join(tmp, "figures.md")
            for machine_text, cold in ((MODEL_17, "24 min 1 s"), (MODEL_1, "33 min 18 s")):
                with open(os.path.join(tmp, "ci_time.md"), "w") as f:
                    f.write(ci_time_md(machine_text, cold, "0 min 23 s"))
                ran = self.run_page(page, "ci_time", os.path.join(tmp, "ci_time.md"))
                self.assertEqual(ran.returncode, 0, ran.stderr)
            rows = figures_page.read_rows(page)
            self.assertEqual(sorted(rows), ["ci_cold", "ci_cold_model1", "ci_warm", "ci_warm_model1"])
            self.assertIn("**24 min 1 s** (118 test targets, all passed; 1.74 CPUs busy", rows["ci_cold"])
            self.assertIn("model 17", rows["ci_cold"])
            self.assertIn("**33 min 18 s**", rows["ci_cold_model1"])
            self.assertIn("model 1,", rows["ci_cold_model1"])

    def test_a_row_the_script_does_not_know_is_an_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            page = os.path.join(tmp, "figures.md")
            with open(page, "w") as f:
                f.write('| <a id="made_up"></a>a figure | 1 | `true` | abc1234 | a CPU |\n')
            with open(os.path.join(tmp, "ci_time.md"), "w") as f:
                f.write(ci_time_md(MODEL_1, "33 min 18 s", "0 min 23 s"))
            ran = self.run_page(page, "ci_time", os.path.join(tmp, "ci_time.md"))
            self.assertNotEqual(ran.returncode, 0)
            self.assertIn("has rows this script does not know: ['made_up']", ran.stderr)


class CheckedInPageTest(unittest.TestCase):
    """docs/figures.md as checked in is what the script writes from its own
    rows: every row known, in the script's order, under its header."""

    def test_the_page_is_the_scripts_own(self):
        page = os.environ["FIGURES_PAGE"]
        with open(page, encoding="utf-8") as f:
            checked_in = f.read()
        with tempfile.TemporaryDirectory() as tmp:
            rewritten = os.path.join(tmp, "figures.md")
            figures_page.write_page(rewritten, figures_page.read_rows(page))
            with open(rewritten, encoding="utf-8") as f:
                self.assertEqual(f.read(), checked_in)


if __name__ == "__main__":
    unittest.main()
