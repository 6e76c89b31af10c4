#!/bin/bash
# docs/report.png, the README's picture of report.html: the report of
# `make demo` (build/demo/report.html; made first when it is not there),
# loaded in headless Chromium by tests/integration/browser.py, its first
# 1200x900 pixels with a palette of 256 colours (about 100 KiB).  It stops,
# writing nothing, when the page logs an error or fails a check of
# tests/integration/report_checks.json.
#
# Usage: bench/screenshot.sh [REPORT.html [OUT.png]]
#   defaults: build/demo/report.html (`make demo`), docs/report.png
# Environment: VIEWPORT (default 1200x900)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
report=${1:-$top/build/demo/report.html}
out=${2:-$top/docs/report.png}
# Chromium: installed on Debian and Ubuntu, named elsewhere
HMPT_DEPS_KEYS=chromium "$top/scripts/install-deps.sh"
if [ ! -f "$report" ]; then
	[ $# -ge 1 ] && { echo "screenshot: $report: no such file" >&2; exit 1; }
	make -C "$top" demo
fi
tmp=$(mktemp "${TMPDIR:-/tmp}/hmpt-screenshot.XXXXXX.png")
trap 'rm -f "$tmp"' EXIT
python3 "$top/tests/integration/browser.py" --checks "$top/tests/integration/report_checks.json" \
	--viewport "${VIEWPORT:-1200x900}" --palette --screenshot "$tmp" "$report" || {
	echo "screenshot: $report did not pass in the browser (above); $out left as it was" >&2
	exit 1
}
install -m 644 "$tmp" "$out"
echo "screenshot: $out, $(stat -c %s "$out") bytes"
