#!/bin/bash
# Page-fault profiling of a program that frees and allocates large blocks
# in a loop (tests/progs/bigloop.c: one site, 200 blocks of 4 MiB, each
# written whole, 4 live at a time), on the kernel's own counts:
# - freed pages are kept for reuse while profiling, as without it: the
#   program's minor faults (getrusage) exceed those of an unprofiled run
#   under hmpt by no more than the pages of the blocks observed (the first
#   8 of the site, then 1 in 256: 9), where keeping nothing faulted every
#   block's pages again (200 x 1024);
# - the site's first-touch bytes, estimated from the observed blocks
#   (scaled by 200 / 9), are exact for blocks of constant touch:
#   200 x 4 MiB, and marked estimated;
# - a site allocated no more than 8 times is observed whole: exact, not
#   estimated.
. "$(dirname "$0")/lib.sh"

pages=1024 # of a 4 MiB block
HMPT_SAMPLE=off LD_PRELOAD=$LIB $PREFIX "$P/bigloop" >"$work/off" || fail "bigloop under the shim failed"
off=$(sed -n 's/^minflt //p' "$work/off")
out=$work/p
$TUNE profile -q -s faults --lib "$LIB" -o "$out" -- $PREFIX "$P/bigloop" >"$work/on" 2>"$work/err" ||
	{ cat "$work/err"; fail "bigloop profiled failed"; }
on=$(sed -n 's/^minflt //p' "$work/on")
[ -n "$off" ] && [ -n "$on" ] || fail "no minor-fault counts"
first=8 every=256 # shim/sample.h; the profile must say the same
python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["sampling"]
sys.exit(not (s["observe_first"] == int(sys.argv[2]) and s["observe_every"] == int(sys.argv[3])))' \
	"$out/profile.json" "$first" "$every" ||
	fail "the profile does not say observe_first $first, observe_every $every"
observed=$((first + (200 - first + every - 1) / every))
bound=$((off + observed * pages + pages))
[ "$on" -le "$bound" ] ||
	fail "profiled: $on minor faults, unprofiled $off: more than the $observed observed blocks' $((observed * pages)) pages (+$pages)"
echo "ok minor faults: profiled $on, unprofiled $off (bound $bound; all 200 blocks refaulted would be $((200 * pages)) more)"

site_json() { # PROFILE: the one site's samples, as "n bytes observed of estimated"
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = [s for s in d["sites"] if "first_touch_bytes" in s.get("samples", {})]
assert len(s) == 1, [x["id"] for x in s]
ss = s[0]["samples"]
print(ss["first_touch_bytes"], ss["fault_bytes"], ss["bytes_observed_allocs"], ss["bytes_of_allocs"],
      str(ss["bytes_estimated"]).lower())
PY
}
read -r bytes fb obs of est < <(site_json "$out/profile.json") || fail "no site in the profile"
[ "$obs" = "$observed" ] && [ "$of" = 200 ] && [ "$est" = true ] ||
	fail "observed $obs of $of allocations (estimated: $est), expected $observed of 200, estimated"
[ "$bytes" = $((200 * 4 << 20)) ] || fail "first-touch bytes $bytes (from $fb observed), expected $((200 * 4 << 20))"
echo "ok estimated: $bytes bytes first touched = 200 x 4 MiB, from $fb bytes of $obs observed blocks"

$TUNE profile -q -s faults --lib "$LIB" -o "$work/q" -- $PREFIX "$P/bigloop" 6 4 2 >/dev/null 2>"$work/err" ||
	{ cat "$work/err"; fail "bigloop 6 profiled failed"; }
read -r bytes fb obs of est < <(site_json "$work/q/profile.json") || fail "no site in the profile"
[ "$obs" = 6 ] && [ "$of" = 6 ] && [ "$est" = false ] && [ "$bytes" = $((6 * 4 << 20)) ] && [ "$fb" = "$bytes" ] ||
	fail "6 allocations: $bytes bytes ($fb by faults), observed $obs of $of, estimated $est"
echo "ok exact: 6 allocations observed whole, $bytes bytes, not estimated"
