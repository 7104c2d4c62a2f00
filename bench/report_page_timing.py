"""How fast a report page is in headless Chromium: time until it is drawn,
the filter's response to a keystroke and a sort of the whole table, each
measured inside the page (performance.now) around the page's own handlers.

    python3 bench/report_page_timing.py report.html
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "report", "testing"))
from browser import Browser  # noqa: E402
from report_page import ReportPage  # noqa: E402

with Browser(width=1400, height=1000) as b:
    start = time.monotonic()
    page = ReportPage(b, sys.argv[1], timeout=300)
    drawn = time.monotonic() - start
    rows = len(page.table())
    filter_ms = b.evaluate("""(() => { const f = document.getElementById('filter');
        const t = performance.now(); f.value = 'op 1'; f.dispatchEvent(new Event('input'));
        return performance.now() - t; })()""")
    shown = b.evaluate("document.getElementById('shown').textContent")
    b.evaluate("document.getElementById('filter').value = ''; document.getElementById('filter').dispatchEvent(new Event('input'))")
    sort_ms = b.evaluate("""(() => { const t = performance.now();
        (document.querySelector('#suite th[data-col=counts]') || document.querySelector('#suite th[data-col=time]')).click();
        return performance.now() - t; })()""")
    errors = b.console_errors()
    print("drawn in %.1f s (%d table rows, %d charts); filter keystroke %.0f ms (%s); sort %.0f ms%s" % (
        drawn, rows, page.chart_count(), filter_ms, shown, sort_ms,
        "; CONSOLE ERRORS: %s" % errors if errors else ""))
