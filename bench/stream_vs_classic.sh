#!/bin/bash
# hmpt-bench's triad against McCalpin's classic STREAM, same array size and
# threads, all arrays in the default pool; prints the ratio of the best triad
# bandwidths, both taken in one run, the two programs alternating.
#
# Usage: bench/stream_vs_classic.sh [STREAM.C]
#   STREAM.C   McCalpin's stream.c (not shipped with hmpt: it is another
#              project's code); default $CLASSIC_STREAM_SRC.
# Environment: ELEMENTS (default: hmpt-bench's size, 4 x the last-level
#   caches, in doubles), THREADS (default: all CPUs), ROUNDS (default 5).
# Exit status 77 when no stream.c is given.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=$top/build
src=${1:-${CLASSIC_STREAM_SRC:-}}
if [ -z "$src" ] || [ ! -f "$src" ]; then
	echo "stream_vs_classic: no classic STREAM source: give McCalpin's stream.c as" \
		"argument or in CLASSIC_STREAM_SRC (hmpt does not ship it); skipped" >&2
	exit 77
fi
threads=${THREADS:-$(nproc)}
rounds=${ROUNDS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# hmpt-bench's default array size, from its own JSON
"$B/hmpt-bench" -q --no-plots -p system -k triad -t 1 -n 2 -s 4K -o "$work/probe" stream 2>/dev/null || true
llc=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["machine"]["last_level_cache_bytes"])' "$work/probe/results.json")
elements=${ELEMENTS:-$(python3 -c "import sys; b=max(4*$llc, 64<<20); b=(b+(2<<20)-1)//(2<<20)*(2<<20); print(b//8)")}
bytes=$((elements * 8))
gcc -O2 -fopenmp -mcmodel=medium -DSTREAM_ARRAY_SIZE="$elements" -DNTIMES=10 \
	-o "$work/stream" "$src"
echo "arrays of $elements doubles ($((bytes >> 20)) MiB) each, $threads threads, 10 passes, $rounds rounds"
best_h=0 best_c=0
for r in $(seq "$rounds"); do
	OMP_NUM_THREADS=$threads "$work/stream" >"$work/c.out"
	c=$(awk '/^Triad:/ {print $2 / 1000}' "$work/c.out")
	grep -q 'Solution Validates' "$work/c.out" || { echo "classic STREAM did not validate" >&2; exit 1; }
	"$B/hmpt-bench" -q --no-plots -p system -k triad -t "$threads" -n 10 -s "$bytes" \
		-o "$work/h" stream
	h=$(python3 -c 'import json,sys
r=[x for x in json.load(open(sys.argv[1]))["results"] if x["what"]=="triad"]
assert all(x["verified"] for x in r); print(max(x["value"] for x in r))' "$work/h/results.json")
	printf "round %d: classic STREAM triad %.2f GB/s, hmpt-bench triad %.2f GB/s\n" "$r" "$c" "$h"
	best_c=$(python3 -c "print(max($best_c, $c))")
	best_h=$(python3 -c "print(max($best_h, $h))")
done
python3 -c "print('best triad: hmpt-bench %.2f GB/s, classic STREAM %.2f GB/s: ratio %.3f (target: within 5 %%)' % ($best_h, $best_c, $best_h / $best_c))"
