#!/usr/bin/env bash
# //tools:report: pages from results files, a baseline, a history store and
# an ab_test --json file; every kind of bad input refused with one clear
# line and no file written. (The pages themselves are checked in a browser
# by //tests:report_browser_test.)
set -u
report="$PWD/$1"
fake_inputs="$PWD/$2"
tmp="${TEST_TMPDIR:-/tmp}"
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$3"  # expect_first_line

"$fake_inputs" --cases=8 --output_dir="$tmp" || fail "fake_report_inputs"
page_data() {  # the JSON the page renders
  sed -n 's|^<script id="icount-data" type="application/json">\(.*\)</script>$|\1|p' "$1"
}

"$report" --input="$tmp/current.json" --baseline="$tmp/baseline.json" --history="$tmp/history.db" \
  --output="$tmp/cmp.html" 2> "$tmp/cmp.err" || fail "report: $(cat "$tmp/cmp.err")"
[ "$(cat "$tmp/cmp.err")" = "icount: HTML report written to $tmp/cmp.html" ] || fail "$(cat "$tmp/cmp.err")"
page_data "$tmp/cmp.html" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["kind"] == "comparison" and len(d["cases"]) == 8, (d["kind"], len(d["cases"]))
assert d["title"].endswith("current.json against " + sys.argv[1] + "/baseline.json"), d["title"]
assert len(d["history_runs"]) == 8
assert all("delta" in c for c in d["cases"] if c["key"] not in d["unmatched"]["only_current"])
' "$tmp" || fail "comparison page data"
size=$(stat -c %s "$tmp/cmp.html")
[ "$size" -lt 400000 ] || fail "an 8-case page should be small (Chart.js is 200 KB): $size bytes"

# An ab_test --json file compares its own sides, B against A, in its paired rounds.
/usr/bin/python3 - "$tmp" <<'PY' || fail "making ab.json"
import json, sys
d = sys.argv[1]
a, b = (json.load(open(f"{d}/{n}.json")) for n in ("baseline", "current"))
json.dump({"A": a, "B": b, "libtorch": {"A": {"version": "1.13.1", "source": "t"},
           "B": {"version": "1.13.1", "source": "t"}}, "comparisons": []}, open(f"{d}/ab.json", "w"))
PY
"$report" --input="$tmp/ab.json" --output="$tmp/ab.html" --title="tax A/B" 2> /dev/null || fail "ab.json"
page_data "$tmp/ab.html" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["title"] == "tax A/B" and d["summary"]["baseline"]["name"] == "A", d["summary"]["baseline"]["name"]
t = [c["delta"] for c in d["cases"] if "time_verdict" in c.get("delta", {})]
assert t and all(x["time_verdict"] == "slower" and x["time_rounds"] == 3 for x in t), t[:2]
' || fail "ab page data"

expect_first_line "$report" "report: --input is required: a results file or ab_test --json file"
expect_first_line "$report" "report: --history_runs=0: must be at least 1" --input="$tmp/current.json" --output="$tmp/x.html" --history_runs=0
expect_first_line "$report" "report: --output is required: the HTML file to write" --input="$tmp/current.json"
expect_first_line "$report" "report: --output=$tmp: is a directory; name the file to write" \
  --input="$tmp/current.json" --output="$tmp"
expect_first_line "$report" "report: --output=/nonexistent/r.html: cannot write into /nonexistent/ (No such file or directory); create the directory or choose another" \
  --input="$tmp/current.json" --output=/nonexistent/r.html
expect_first_line "$report" "report: $tmp/nothing.json: cannot open: No such file or directory" \
  --input="$tmp/nothing.json" --output="$tmp/x.html"
echo '{"A": 1}' > "$tmp/bad.json"
expect_first_line "$report" "report: --baseline: $tmp/ab.json is an ab_test --json file, which compares its own sides (B against A); drop --baseline or pass one side's results file as --input" \
  --input="$tmp/ab.json" --baseline="$tmp/current.json" --output="$tmp/x.html"
/usr/bin/python3 - "$tmp" <<'PY' || fail "making a --sides file"
import json, sys
results = json.load(open(sys.argv[1] + "/current.json"))
sides = [{"name": n, "libtorch": {"version": n}, "results": results} for n in ("a", "b", "c")]
json.dump({"sides": sides}, open(sys.argv[1] + "/sides.json", "w"))
PY
expect_first_line "$report" "report: --input: $tmp/sides.json holds 3 sides (an ab_test --sides file); a report shows one run or two: record the sides with \`history import\` and report each against --history, or compare two with ab_test" \
  --input="$tmp/sides.json" --output="$tmp/x.html"
expect_first_line "$report" "report: $tmp/none.json: cannot open: No such file or directory" \
  --input="$tmp/current.json" --baseline="$tmp/none.json" --output="$tmp/x.html"
expect_first_line "$report" "report: unexpected argument \"extra\": this program takes only flags (--name=value; see --help)" \
  --input="$tmp/current.json" --output="$tmp/x.html" extra
"$report" --input="$tmp/current.json" --history="$tmp/no.db" --output="$tmp/x.html" 2> "$tmp/bad.err" \
  && fail "a missing store must fail"
grep -q "no.db" "$tmp/bad.err" || fail "missing store: $(cat "$tmp/bad.err")"
"$report" --input="$tmp/bad.json" --output="$tmp/x.html" 2> "$tmp/bad.err" && fail "bad.json must fail"
grep -q "^report: $tmp/bad.json: " "$tmp/bad.err" || fail "bad input: $(cat "$tmp/bad.err")"
[ ! -e "$tmp/x.html" ] || fail "no page may be written on bad input"
echo PASS
