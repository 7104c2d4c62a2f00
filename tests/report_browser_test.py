"""//tools:report's pages in a real browser (Debian's headless Chromium).

Made-up suites (//report:fake_report_inputs: 24 cases, the current run with
an allocation tax under malloc and 10% slower, one case failing, one new)
are turned into pages by //tools:report; each page must load without a
console error or a network request, draw every chart, show the numbers of
the results file, sort and filter its table, and draw the tax as grown in
the differential flamegraphs.
"""

import json
import os
import re
import statistics
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "report", "testing"))
from browser import Browser, event_deadline  # noqa: E402
from report_page import ReportPage  # noqa: E402

FAKE_INPUTS, REPORT = sys.argv[1], sys.argv[2]
del sys.argv[1:3]
TMP = os.environ.get("TEST_TMPDIR", "/tmp")
OUTPUTS = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR", TMP)


def run(*argv):
    result = subprocess.run(argv, capture_output=True, text=True)
    if result.returncode != 0:
        raise AssertionError("%s failed (%d): %s" % (argv, result.returncode, result.stderr))
    return result


def time_seconds(text):
    value, unit = text.split()
    return float(value) * {"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[unit]


class ReportBrowserTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = os.path.join(TMP, "inputs")
        os.makedirs(cls.dir, exist_ok=True)
        run(FAKE_INPUTS, "--cases=24", "--output_dir=" + cls.dir)
        path = lambda name: os.path.join(cls.dir, name)  # noqa: E731
        run(REPORT, "--input=" + path("current.json"), "--baseline=" + path("baseline.json"),
            "--history=" + path("history.db"), "--output=" + path("comparison.html"))
        run(REPORT, "--input=" + path("current.json"), "--history=" + path("history.db"),
            "--output=" + path("run.html"))
        run(REPORT, "--input=" + path("wall_only.json"), "--output=" + path("wall_only.html"))
        with open(path("current.json")) as f:
            cls.current = json.load(f)
        with open(path("baseline.json")) as f:
            cls.baseline = json.load(f)
        cls.browser = Browser(width=1400, height=1000)

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()

    def page(self, name):
        page = ReportPage(self.browser, os.path.join(self.dir, name))
        self.addCleanup(lambda: self.assertEqual(self.browser.console_errors(), []))
        self.addCleanup(lambda: self.assertEqual(self.browser.requests(), []))
        return page

    def test_comparison_draws_every_chart_and_the_tax_as_grown(self):
        page = self.page("comparison.html")
        page.draw_all_charts()
        # 5 groups, 2 delta charts, for each of the 23 changed cases a
        # flamegraph and its three history charts (instructions, heap
        # allocations, wall time), and the 23 cases' series in the table
        # (the new case has no history).
        self.assertEqual(page.chart_count(), 5 + 2 + 23 * 4 + 23)
        self.assertEqual(page.blank_charts(), [])
        grown = page.grown_functions()
        self.assertEqual(list(grown), ["???:icount_test_allocation_tax [/tmp/libslow_malloc.so]"])
        self.assertEqual(list(grown.values()), [300 * 100])  # per case: 300 a run, 100 runs
        self.browser.screenshot(os.path.join(OUTPUTS, "comparison.png"))

    def test_the_table_fits_1400_pixels_and_every_case_is_labelled(self):
        page = self.page("comparison.html")
        wrap = "document.querySelector('#suite').closest('.table-wrap')"
        # No sideways scrolling: the change columns are in view.
        self.assertLessEqual(page.b.evaluate(wrap + ".scrollWidth"), page.b.evaluate(wrap + ".clientWidth"))
        page.draw_all_charts()
        # Each group chart names every one of its cases on its axis.
        unlabelled = page.b.evaluate("""window.icountReport.charts
            .filter(ch => ch.canvas.closest('.group-chart'))
            .filter(ch => ch.scales.y.ticks.length !== ch.data.labels.length)
            .map(ch => ch.canvas.closest('.group-chart').dataset.group)""")
        self.assertEqual(unlabelled, [])

    def test_table_shows_the_results_files_numbers(self):
        page = self.page("comparison.html")
        rows = {row["key"]: row for row in page.table()}
        counts = {c["metadata"]["case"]: c for c in self.current["instruction_counts"]}
        before = {c["metadata"]["case"]: c for c in self.baseline["instruction_counts"]}
        times = {}
        for m in self.current["measurements"]:
            per_run = [t / int(m["number_per_run"]) for t in m["raw_times"]]
            times.setdefault(m["metadata"]["case"], []).extend(per_run)
        self.assertEqual(sorted(rows), sorted(counts))
        for key, c in counts.items():
            row = rows[key]
            self.assertAlmostEqual(float(row["counts"].replace(",", "")), c["counts_per_run"], delta=0.051)
            self.assertEqual(row["repeats"], "3 identical")
            median = statistics.median(times[key])
            self.assertAlmostEqual(time_seconds(row["time"]), median, delta=median * 0.05)
            self.assertEqual(row["allocations"], "%g" % c["allocations_per_run"])
            if key in before:
                old = before[key]["counts_per_run"]
                self.assertEqual(row["counts_delta"], "%+.2f%%" % ((c["counts_per_run"] - old) / old * 100))
                self.assertEqual(row["allocations_delta"], "%+g" % (c["allocations_per_run"] - before[key]["allocations_per_run"]))
                self.assertRegex(row["time_delta"], r"^\+10\.0% \[\+\d+\.\d, \+\d+\.\d\] \*$")  # "+10.0% [+9.3, +10.8] *"
            else:
                self.assertEqual(row["counts_delta"], "")
        failures = page.b.evaluate("document.getElementById('failures').textContent")
        self.assertIn("statement failed: RuntimeError: made up", failures)
        unmatched = page.b.evaluate("document.getElementById('unmatched').textContent")
        self.assertIn("1 case(s) only in this run: Indexing/op 6|Eager|Forward|Python|1", unmatched)

    def test_sorting_and_filtering(self):
        page = self.page("comparison.html")
        b = page.b
        b.click('#suite th[data-col="counts"]')
        values = [float(r["counts"].replace(",", "")) for r in page.table()]
        self.assertEqual(values, sorted(values, reverse=True))
        self.assertEqual(b.evaluate("document.querySelector('#suite th[data-col=counts]').getAttribute('aria-sort')"),
                         "descending")
        b.click('#suite th[data-col="counts"]')
        values = [float(r["counts"].replace(",", "")) for r in page.table()]
        self.assertEqual(values, sorted(values))
        b.click('#suite th[data-col="variant"]')
        variants = [r["variant"] for r in page.table()]
        self.assertEqual(variants, sorted(variants))

        b.type_text("#filter", "Indexing")
        shown = page.table()
        self.assertEqual({r["group"] for r in shown}, {"Indexing"})
        expected = sum(1 for c in self.current["instruction_counts"] if c["label"] == "Indexing")
        self.assertEqual(len(shown), expected)
        self.assertEqual(b.evaluate("document.getElementById('shown').textContent"),
                         "%d of 24 cases shown" % expected)
        b.evaluate("document.getElementById('filter').value = ''")
        b.type_text("#filter", "/ op [34] \\[/")
        self.assertEqual({r["case"] for r in page.table()}, {"op 3", "op 4"})
        b.evaluate("""(() => { const s = document.getElementById('filter-language');
            s.value = 'C++'; s.dispatchEvent(new Event('change')); })()""")
        self.assertEqual({r["variant"].split()[0] for r in page.table()}, {"C++"})

    def test_a_case_opens_its_flamegraph_and_zooms(self):
        page = self.page("run.html")
        b = page.b
        b.click('#suite tbody tr[data-key="Pointwise/op 0|Eager|Forward|C++|1"]')
        b.wait_for("document.querySelector('#detail canvas') !== null")
        self.assertEqual(b.evaluate("document.querySelector('#detail').dataset.key"),
                         "Pointwise/op 0|Eager|Forward|C++|1")
        flame = "Chart.getChart(document.querySelector('#detail .flame canvas'))"
        self.assertFalse(b.evaluate(flame + ".icountFlame.differential"))
        names = b.evaluate(flame + ".icountFlame.points.map(p => p.name)")
        self.assertIn("???:malloc [/usr/lib/x86_64-linux-gnu/libc.so.6]", names)
        # Frames are labelled without argument lists; a function without a
        # symbol by its object and offset.
        labels = b.evaluate(flame + ".icountFlame.points.map(p => p.label)")
        self.assertIn("at::add(...)", labels)
        self.assertIn("(unknown in libtorch_cpu.so)", labels)
        total = b.evaluate(flame + ".scales.x.max")
        rect = b.evaluate("""(() => { const ch = %s; const bar = ch.getDatasetMeta(0).data[3];
            ch.canvas.scrollIntoView();
            const r = ch.canvas.getBoundingClientRect(); return [r.left + (bar.x + bar.base) / 2, r.top + bar.y]; })()""" % flame)
        b.click_at(rect[0], rect[1])
        # Chart.js handles pointer events on the next animation frame, which a
        # loaded machine delays: wait for the zoom rather than read at once.
        zoomed = b.wait_for("(() => { const x = %s.scales.x; return x.max - x.min < %r && [x.min, x.max]; })()"
                            % (flame, total), timeout=event_deadline())
        self.assertLess(zoomed[1] - zoomed[0], total)
        # History: both series, the count step at the first taxed build.
        titles = b.evaluate("[...document.querySelectorAll('#detail h3')].map(h => h.textContent)")
        self.assertIn("History: instructions per run \u2014 1 change point(s): build 6 +", " ".join(titles))
        self.assertEqual(page.blank_charts(), [])

    def test_missing_parts_are_said(self):
        page = self.page("wall_only.html")
        page.draw_all_charts()
        notices = page.b.evaluate("[...document.querySelectorAll('.missing')].map(n => n.textContent)")
        self.assertTrue(any("instruction counts: these results have wall time only" in n for n in notices), notices)
        self.assertTrue(any("history: no store was given" in n for n in notices), notices)
        self.assertEqual(page.blank_charts(), [])
        self.assertEqual(page.b.evaluate("document.querySelectorAll('.flame').length"), 0)

    def test_a_large_suite_stays_usable(self):
        big = os.path.join(TMP, "big")
        os.makedirs(big, exist_ok=True)
        run(FAKE_INPUTS, "--cases=5000", "--output_dir=" + big)
        html = os.path.join(big, "comparison.html")
        run(REPORT, "--input=" + os.path.join(big, "current.json"),
            "--baseline=" + os.path.join(big, "baseline.json"), "--output=" + html)
        # 8.5 MB: each case's trees, times and its functions' changes.
        self.assertLess(os.path.getsize(html), 9 << 20)
        page = ReportPage(self.browser, html, timeout=event_deadline())
        self.assertEqual(len(page.table()), 5000)
        page.b.type_text("#filter", "/op 12[0-9]{2}\\b/")  # benchmarks 1200-1249, 4 variants each
        self.assertEqual(len(page.table()), 200)
        self.assertEqual(self.browser.console_errors(), [])


if __name__ == "__main__":
    unittest.main()
