#!/bin/sh
# tests/browser/run.sh BIN CHECK OUT [SHOT]: the browser test of report.html
# (issue 25), run by `make browser-test` (and .ci/run), not by `make test`.
#
# Makes a run of a bundled scenario and its report, then opens report.html
# in headless chromium at the printable width of an A4 page (210 mm less
# the print style's 12 mm margins: 186 mm = 703 CSS px; Letter's is wider),
# and lets tests/browser/check_page.c judge (a) from a full-height
# screenshot that every chart of charts.json has ink where the page put it
# and (b) from the DOM that nothing is wider than the page. The chart boxes
# and widths come from tests/browser/probe.js, injected into a copy of the
# page. Chromium is driven only by its command line (--dump-dom,
# --screenshot): no extra client or package is needed.
#
# Then the checker must fail on two pages broken on purpose (one chart
# hidden; one element wider than the page), or the test fails: a checker
# that passes everything proves nothing. SHOT (optional) receives an
# excerpt of the screenshot (the first charts), for the README.
set -e
bin=$1 check=$2 out=$3 shot=$4
width=703
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "browser-test: chromium not found" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"
t0=$(date +%s)

"$bin" run scenarios/iceland-geothermal.cfg --db "$out/run.db" >/dev/null 2>&1
"$bin" report --db "$out/run.db" --out "$out/report" >/dev/null 2>&1

# chrome URL PAGE W H ARGS...: one headless chromium call on a fresh
# profile (root needs --no-sandbox; device scale 1 makes CSS px = pixels).
chrome() {
    page=$1 w=$2 h=$3
    shift 3
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --force-device-scale-factor=1 --user-data-dir="$out/profile" \
        --window-size="$w,$h" "$@" "file://$(cd "$(dirname "$page")" && pwd)/$(basename "$page")" \
        2>>"$out/chromium.log"
}

# probe NAME HTML [TALL]: injects the probe, dumps the DOM, screenshots the
# whole page (TALL=no: only the first 1000 px), runs the checker against the
# charts.json of the report folder $rep; its verdict is in $out/NAME.txt and
# its status returned.
rep=$out/report
probe() {
    name=$1 html=$2 tall=${3:-yes}
    awk -v js=tests/browser/probe.js '/<\/body>/ {
        print "<script>"; while ((getline l < js) > 0) print l; print "</script>"
    } { print }' "$html" > "$rep/probe-$name.html"
    chrome "$rep/probe-$name.html" $width 1000 --dump-dom > "$out/$name.dom.html"
    h=$(sed -n 's/.*"page_height":\([0-9]*\).*/\1/p' "$out/$name.dom.html")
    [ -n "$h" ] || { echo "browser-test: $name: the probe did not run" >&2; return 2; }
    [ "$tall" = yes ] || h=1000
    chrome "$rep/probe-$name.html" $width "$h" --screenshot="$out/$name.png" >/dev/null
    "$check" "$out/$name.dom.html" "$out/$name.png" "$rep/charts.json" \
        > "$out/$name.txt"
}

echo "browser-test: report.html at $width px"
st=0
probe page "$out/report/report.html" || st=$?
cat "$out/page.txt"
[ $st -eq 0 ] || { echo "browser-test: FAILED (status $st)"; exit 1; }

# Broken on purpose: the first chart hidden (its SVG draws nothing) ...
sed 's|</head>|<style>#chart-power svg *{visibility:hidden}</style></head>|' \
    "$out/report/report.html" > "$out/report/blank.html"
st=0
probe blank "$out/report/blank.html" || st=$?
if [ $st -ne 1 ] || ! grep -q '^FAIL chart-power: blank' "$out/blank.txt"; then
    echo "browser-test: the checker missed a blank chart (status $st):"
    cat "$out/blank.txt"
    exit 1
fi
echo "browser-test: a blank chart is caught: $(grep '^FAIL chart-power' "$out/blank.txt")"
# ... and an element wider than the page.
sed 's|<body>|<body><div style="width:900px;height:4px;background:#000"></div>|' \
    "$out/report/report.html" > "$out/report/wide.html"
st=0
probe wide "$out/report/wide.html" no || st=$?
if [ $st -ne 1 ] || ! grep -q '^FAIL overflows the page width: div' "$out/wide.txt"; then
    echo "browser-test: the checker missed an overflow (status $st):"
    cat "$out/wide.txt"
    exit 1
fi
echo "browser-test: an overflow is caught: $(grep -m1 '^FAIL overflows' "$out/wide.txt")"

# report --runs (issue 25 item 3): the page of a comparison, with its tables
# (a column per run) and the compare chart, must render and fit the same way.
"$bin" run scenarios/norway-hydro.cfg --db "$out/run.db" >/dev/null 2>&1
"$bin" report --db "$out/run.db" --runs iceland-geothermal,norway-hydro \
    --out "$out/compare" >/dev/null 2>&1
rep=$out/compare
st=0
probe compare "$out/compare/report.html" || st=$?
cat "$out/compare.txt"
[ $st -eq 0 ] || { echo "browser-test: report --runs FAILED (status $st)"; exit 1; }
grep -q '^ok   chart-compare' "$out/compare.txt" ||
    { echo "browser-test: report --runs: no compare chart checked"; exit 1; }
rep=$out/report

if [ -n "$shot" ]; then
    "$check" --excerpt "$out/page.dom.html" "$out/page.png" "$shot"
    echo "browser-test: excerpt in $shot"
fi
echo "browser-test: passed in $(( $(date +%s) - t0 )) s"
