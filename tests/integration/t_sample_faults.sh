#!/bin/bash
# Page-fault sampling, end to end on this machine: four arrays first touched
# in known proportions (one by a second thread), a block freed and its range
# reused.  Each site's first-touch bytes must match what the program touched
# (within 2 %), its share of all first-touch bytes within 1 percentage point,
# and the thread that touched it must be named.
. "$(dirname "$0")/lib.sh"

out=$work/p
$TUNE profile -q -s faults --lib "$LIB" -o "$out" -- $PREFIX "$P/touch4" >/dev/null 2>"$work/err" ||
	{ cat "$work/err"; fail "touch4 under the shim failed"; }
tsv=$out/sites.tsv
src=$top/tests/progs/touch4.c
[ -s "$tsv" ] || fail "no sites.tsv"
grep -q '"mode": "faults"' "$out"/profile.[0-9]*.json || fail "the profile does not say it sampled page faults"
grep -q '"access_density": false' "$out"/profile.[0-9]*.json || fail "the profile does not say access density is unavailable"

total=0
while IFS= read -r m; do
	mib=$(sed -n 's/.*touch: [A-Z] \([0-9]*\).*/\1/p' <<<"$m")
	total=$((total + mib))
done < <(grep 'touch: ' "$src")
# shares are of every byte first touched, untracked ones too (thread stacks,
# glibc's arenas: 2 MiB pages of them where THP is "always")
untracked=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["sampling"]["untracked_bytes"] / 1048576)' "$out/profile.json") ||
	fail "no untracked_bytes in the profile"
total=$(awk -v t="$total" -v u="$untracked" 'BEGIN { print t + u }')

grep -n 'touch: ' "$src" | while IFS= read -r m; do
	line=${m%%:*}
	name=$(sed -n 's/.*touch: \([A-Z]\) .*/\1/p' <<<"$m")
	mib=$(sed -n 's/.*touch: [A-Z] \([0-9]*\).*/\1/p' <<<"$m")
	row=$(awk -F'\t' -v loc="touch4.c:$line" 'NR > 1 && $9 == loc' "$tsv")
	[ -n "$row" ] || fail "no site at touch4.c:$line ($name)"
	got=$(cut -f15 <<<"$row")
	share=$(cut -f13 <<<"$row")
	awk -v got="$got" -v want=$((mib << 20)) 'BEGIN { d = got - want; if (d < 0) d = -d; exit !(d <= want * 0.02) }' ||
		fail "$name: first-touch bytes $got, touched $((mib << 20))"
	awk -v s="$share" -v w="$mib" -v t="$total" 'BEGIN { d = s - w / t; if (d < 0) d = -d; exit !(d <= 0.01) }' ||
		fail "$name: share $share, expected $(awk -v w="$mib" -v t="$total" 'BEGIN { printf "%.4f", w / t }')"
	echo "ok $name: $got bytes first touched, share $share (expected $mib/$total MiB)"
done || exit 1

# B was touched by the second thread, A by the main thread (pid)
id_of() { awk -F'\t' -v loc="touch4.c:$1" 'NR > 1 && $9 == loc { print $1 }' "$tsv"; }
tid_of() { # the first thread named in the shim's own profile for site $1
	awk -v id="\"$1\"" '$0 ~ "\"id\": " id { on = 1 } on && /"threads": \[/ {
		sub(/.*"threads": \[\{"tid": /, ""); sub(/,.*/, ""); print; exit }' "$out"/profile.[0-9]*.json
}
line_of() { grep -n "touch: $1 " "$src" | cut -d: -f1; }
pid=$(sed -n 's/.*"pid": \([0-9]*\),.*/\1/p' "$out"/profile.[0-9]*.json | head -1)
ta=$(tid_of "$(id_of "$(line_of A)")")
tb=$(tid_of "$(id_of "$(line_of B)")")
[ "$ta" = "$pid" ] || fail "A: first touched by thread $ta, expected the main thread $pid"
[ -n "$tb" ] && [ "$tb" != "$pid" ] || fail "B: first touched by thread '$tb', expected the second thread"
grep -q '"threads": 2,' "$out"/profile.[0-9]*.json || fail "expected two sampled threads"
echo "ok threads: A by $ta (main), B by $tb"

# the table says what the figures mean
$TUNE show "$out" 2>&1 | grep -q 'first touch only, access density is not available' ||
	fail "hmpt-tune show does not say access density is unavailable"

# every sampled page has its node, those of blocks freed before the reader
# came round included (E, then all four at the end: freed pages are dropped
# at once while page-fault sampling runs, so the rings are read before a
# sampled block's pages go)
python3 - "$out"/profile.[0-9]*.json <<'PY' || fail "sampled pages without a node"
import json, sys
for s in json.load(open(sys.argv[1]))["sites"]:
    nodes = (s.get("samples") or {}).get("nodes") or {}
    assert not any(k in ("unknown", "other") for k in nodes), (s["id"], nodes)
PY

# a bad HMPT_SAMPLE: one line naming it, the program runs unchanged
HMPT_SAMPLE=sometimes LD_PRELOAD=$LIB $PREFIX "$P/touch4" 2>"$work/err2" || fail "exit status lost"
grep -c 'HMPT_SAMPLE=sometimes: expected auto, pebs, ibs, faults, timer or off' "$work/err2" | grep -qx 1 ||
	{ cat "$work/err2"; fail "no single clear message for a bad HMPT_SAMPLE"; }
# hardware asked for by name where there is none: said once, the timer or
# first touch instead
if [ ! -e /sys/bus/event_source/devices/cpu/events/mem-loads ]; then
	HMPT_SAMPLE=pebs HMPT_PROFILE=$work/pebs.json LD_PRELOAD=$LIB $PREFIX "$P/touch4" 2>"$work/err3" ||
		fail "exit status lost"
	# the timer where hmpt decodes (built with Zydis), else page faults
	if "$top/scripts/deps.sh" probe zydis >/dev/null 2>&1; then fb='a CPU-time timer' mode=timer; else fb='software page faults' mode=faults; fi
	grep -q "sampling: $fb" "$work/err3" || { cat "$work/err3"; fail "no word on the fallback"; }
	grep -q "\"mode\": \"$mode\"" "$work/pebs.json" || fail "fallback profile not in $mode mode"
fi
echo "ok"
