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
    python3 report/testing/report_page.py same.html --expect_uncoloured
    python3 report/testing/report_page.py ab.html --click='tr[data-key="K"]' \
        --screenshot=report/screenshot.png --height=1250 --from='#suite'
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser  # noqa: E402

# The flamegraph's colours for a call whose own instructions grew, and
# shrank (report/assets/flamegraph.js, drawFlame).
_GROWN_RGBA_PREFIX = "rgba(192,57,43,"
_SHRUNK_RGBA_PREFIX = "rgba(46,111,183,"


class ReportPage:
    def __init__(self, browser, path, timeout=None):
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

    def open_every_case(self):
        """Opens each case of the table in turn (a click on its row), so
        that every case's flamegraph is drawn, changed or not; returns how
        many cases have a differential one."""
        return self.b.evaluate("""(() => {
            const rows = [...document.querySelectorAll('#suite tbody tr[data-key]')];
            for (const row of rows) row.click();
            return window.icountReport.charts.filter(c => c.icountFlame && c.icountFlame.differential).length; })()""")

    def coloured_frames(self):
        """Every frame drawn red or blue in a differential flamegraph: its
        case, colour ("grew" or "shrank"), change per run and call path
        (function keys from the root down to the frame)."""
        return self.b.evaluate("""(() => {
            const frames = [];
            for (const chart of window.icountReport.charts) {
              const flame = chart.icountFlame;
              if (!flame || !flame.differential) continue;
              const colors = chart.data.datasets[0].backgroundColor;
              const names = [];
              flame.points.forEach(p => names[p.node] = p.name);
              flame.points.forEach((p, i) => {
                const colour = String(colors[i]).startsWith('%s') ? 'grew'
                  : String(colors[i]).startsWith('%s') ? 'shrank' : null;
                if (!colour) return;
                const path = [];
                for (let n = p.node; n >= 0; n = flame.parent[n]) path.unshift(names[n]);
                frames.push({case: flame.key, colour: colour, delta: p.delta, path: path});
              });
            }
            return frames; })()""" % (_GROWN_RGBA_PREFIX, _SHRUNK_RGBA_PREFIX))

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
    parser.add_argument("--expect_uncoloured", action="store_true",
                        help="no differential flamegraph may colour a frame (the same code twice)")
    parser.add_argument("--coloured_only_under", metavar="FUNCTION",
                        help="every coloured frame must be FUNCTION (substring) or called below it")
    parser.add_argument("--open_every_case", action="store_true",
                        help="open each case's detail, so that unchanged cases' flamegraphs are checked too")
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
        problems = []
        if page.blank_charts():
            problems.append("blank charts: %s" % page.blank_charts())
        if args.screenshot:
            top = b.evaluate("document.querySelector(%s).getBoundingClientRect().top + window.scrollY" %
                             json.dumps(args.top)) if args.top else 0
            b.screenshot(args.screenshot, max_height=args.height, top=int(top))
        # After the blank check: each case opened replaces the last one's
        # detail (its charts keep their data, not their pixels).
        if args.open_every_case and page.open_every_case() == 0:
            problems.append("no case has a differential flamegraph")
        if b.console_errors():
            problems.append("console errors: %s" % b.console_errors())
        if b.requests():
            problems.append("requests: %s" % b.requests())
        grown = page.grown_functions()
        for name in args.expect_grown:
            if not any(name in f for f in grown):
                problems.append("no flamegraph shows %s as grown (grown: %s)" % (name, json.dumps(grown)[:2000]))
        coloured = page.coloured_frames()
        if args.expect_uncoloured and coloured:
            problems.append("%d frames coloured, none expected: %s" % (
                len(coloured), json.dumps(coloured[:5])[:2000]))
        if args.coloured_only_under:
            stray = [f for f in coloured if not any(args.coloured_only_under in name for name in f["path"])]
            if stray:
                problems.append("%d coloured frames not under %s: %s" % (
                    len(stray), args.coloured_only_under, json.dumps(stray[:5])[:2000]))
        if problems:
            print("report_page: %s:\n  %s" % (args.html, "\n  ".join(problems)), file=sys.stderr)
            return 1
        print("report_page: %s: %d charts drawn, none blank; %d frames coloured; grown: %s" % (
            args.html, page.chart_count(), len(coloured), ", ".join(sorted(grown))[:500]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
