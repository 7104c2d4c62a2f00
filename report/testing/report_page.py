"""What the tests ask of a report page, through a real browser (browser.py).

    with Browser() as b:
        page = ReportPage(b, "report.html")     # loads it, waits for ready
        page.draw_all_charts()
        assert page.blank_charts() == []
        assert "icount_test_allocation_tax" in page.grown_functions()

Also a command for shell tests (tests/ab_test_tax_test.sh), and for the
docs/report.md's screenshot (a case opened by a click, the page drawn in one tall
viewport):
    python3 report/testing/report_page.py report.html --expect_grown=FUNCTION
    python3 report/testing/report_page.py ab.html --click='tr[data-key="K"]' \
        --screenshot=report/screenshot.png --height=1500 --from='#suite'
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser  # noqa: E402

# The flamegraph's colour for a call whose own instructions grew
# (report/assets/report.js, drawFlame).
_GROWN_RGBA_PREFIX = "rgba(192,57,43,"


class ReportPage:
    def __init__(self, browser, path, timeout=60):
        self.b = browser
        self.b.open(path, timeout=timeout)
        self.b.wait_for("document.body.dataset.ready === '1'", timeout=timeout)

    def data(self):
        return self.b.evaluate("window.icountReport.data")

    def draw_all_charts(self):
        """Scrolls every lazily drawn chart into view, one at a time and a
        frame apart (as a reader scrolling would), until none is left."""
        for _ in range(10):
            pending = self.b.evaluate("""(async () => {
                const boxes = [...document.querySelectorAll('.chart-box, .changed-case')]
                    .filter(b => b.icountDraw);
                for (const box of boxes) {
                  box.scrollIntoView();
                  await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
                }
                return boxes.length; })()""", timeout=300)
            if pending == 0:
                return
        raise AssertionError("charts were still waiting to be drawn after 10 passes")

    def chart_count(self):
        return self.b.evaluate("window.icountReport.charts.length")

    def blank_charts(self):
        """Charts whose canvas has no painted pixel, or no data, by title."""
        return self.b.evaluate("""(() => window.icountReport.charts.filter(chart => {
            const c = chart.canvas;
            if (!c.width || !c.height) return true;
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            let painted = 0;
            for (let i = 3; i < d.length; i += 4) if (d[i]) painted++;
            const points = chart.data.datasets.reduce((n, s) => n + s.data.length, 0);
            return painted < 100 || points === 0;
          }).map(chart => chart.canvas.closest('[data-key],[data-group],[id]')?.outerHTML.slice(0, 120) || '?'))()""")

    def grown_functions(self):
        """Functions drawn as grown (red) in the differential flamegraphs,
        with the largest growth per run seen for each."""
        return self.b.evaluate("""(() => {
            const grown = {};
            for (const chart of window.icountReport.charts) {
              if (!chart.icountFlame || !chart.icountFlame.differential) continue;
              const colors = chart.data.datasets[0].backgroundColor;
              chart.icountFlame.points.forEach((p, i) => {
                if (!String(colors[i]).startsWith('%s')) return;
                grown[p.name] = Math.max(grown[p.name] || 0, p.delta);
              });
            }
            return grown; })()""" % _GROWN_RGBA_PREFIX)

    def table(self):
        """The suite table as shown: one dict per visible row, column id -> text."""
        return self.b.evaluate("""[...document.querySelectorAll('#suite tbody tr')].map(tr => {
            const row = {key: tr.dataset.key};
            tr.querySelectorAll('td').forEach(td => row[td.dataset.col] = td.textContent);
            return row; })""")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html")
    parser.add_argument("--expect_grown", action="append", default=[],
                        help="a function (substring) the flamegraphs must show as grown")
    parser.add_argument("--click", help="a CSS selector to click first, e.g. a table row")
    parser.add_argument("--screenshot", help="write a PNG of the page here")
    parser.add_argument("--height", type=int, default=900, help="the viewport's height")
    parser.add_argument("--from", dest="top", help="a CSS selector: the screenshot starts at its top")
    args = parser.parse_args()
    with Browser(height=args.height) as b:
        page = ReportPage(b, args.html)
        if args.click:
            b.click(args.click)
        page.draw_all_charts()
        if args.screenshot:
            top = b.evaluate("document.querySelector(%s).getBoundingClientRect().top + window.scrollY" %
                             json.dumps(args.top)) if args.top else 0
            b.screenshot(args.screenshot, max_height=args.height, top=int(top))
        problems = []
        if b.console_errors():
            problems.append("console errors: %s" % b.console_errors())
        if b.requests():
            problems.append("requests: %s" % b.requests())
        if page.blank_charts():
            problems.append("blank charts: %s" % page.blank_charts())
        grown = page.grown_functions()
        for name in args.expect_grown:
            if not any(name in f for f in grown):
                problems.append("no flamegraph shows %s as grown (grown: %s)" % (name, json.dumps(grown)[:2000]))
        if problems:
            print("report_page: %s:\n  %s" % (args.html, "\n  ".join(problems)), file=sys.stderr)
            return 1
        print("report_page: %s: %d charts drawn, none blank; grown: %s" % (
            args.html, page.chart_count(), ", ".join(sorted(grown))[:500]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
