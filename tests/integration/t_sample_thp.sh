#!/bin/bash
# Page-fault sampling where the kernel maps huge pages: first-touch bytes are
# the bytes touched, whatever the page size.  `placed arrays 8` touches all
# of four 8 MiB arrays; A (malloc) and B (calloc: read before it is written,
# so its pages fault twice) go to a `thp` pool, C and D to 4 KiB pages.  The
# page sizes are read back from smaps (placed reports them), not assumed.
. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/place_common.sh"
need_thp
M=8
learn_arrays "$work/prof" $M
huge_small_plan "$work/plan.json" small "$A,$B=huge"

HMPT_PLAN=$work/plan.json $TUNE profile -q -s faults --lib "$LIB" -o "$work/p" -- \
	$PREFIX "$P/placed" arrays $M >"$work/run" 2>"$work/err" || { cat "$work/err"; fail "placed under the shim failed"; }
cat "$work/run"
[ "$(field "$work/run" A thp_kb)" -gt 0 ] ||
	skip "the kernel gave A no huge page (fragmented memory?): nothing to count at 2 MiB"
expect "$work/run" C thp_kb 0

# first_touch_bytes and sample count of a site, from the process profile
touched() {
	python3 - "$work"/p/profile.[0-9]*.json "$1" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
s = [s for s in p["sites"] if s["id"] == sys.argv[2]][0]["samples"]
print(s.get("first_touch_bytes", 0), s.get("n", 0))
PY
}
for x in A B C D; do
	id=${!x}
	read -r bytes n < <(touched "$id")
	[ "$bytes" = $((M << 20)) ] || fail "$x: $bytes bytes first touched in $n faults, touched $((M << 20))"
	echo "ok $x: $bytes bytes first touched in $n faults"
done
read -r _ na < <(touched "$A")
[ "$na" -lt $((M * 256)) ] || fail "A took $na faults: no huge page was mapped, the case is not tested"
note "A: $na faults for $M MiB (huge pages), C: $(touched "$C" | cut -d' ' -f2) (4 KiB pages)"
