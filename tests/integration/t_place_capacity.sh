. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/place_common.sh"
# Capacity: a pool's budget is respected; what does not fit goes whole to
# the fallback pool, is counted per site, and hmpt says so once per pool.
grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null &&
	skip "transparent huge pages are disabled here"
M=8
learn_sites "$work/prof" arrays $M
A=$(site_id "$work/prof" alloc_a) B=$(site_id "$work/prof" alloc_b)
C=$(site_id "$work/prof" alloc_c) D=$(site_id "$work/prof" alloc_d)

# huge holds 20 MiB: A and B (8 MiB each) fit, C does not and goes to
# mid (10 MiB: it fits there), D does not fit huge nor mid: small
$TUNE plan make -p 'huge={"pages":"thp","capacity":"20M","fallback":"mid"}' \
	-p 'mid={"pages":"4k","capacity":"10M"}' -p 'small={"pages":"4k"}' -d small \
	-s "$A,$B,$C,$D=huge" -o "$work/plan.json" "$work/prof" 2>/dev/null || fail "plan make"
run_placed "$work/plan.json" "$work/run" arrays $M
cat "$work/run" "$work/run.err"
expect "$work/run" A flags hg
expect "$work/run" B flags hg
expect "$work/run" C flags nh
expect "$work/run" D flags nh
expect "$work/run" C thp_kb 0
[ "$(placement "$work/run.profile.json" "$C")" = "huge mid:1:$((M << 20)):fallback" ] ||
	fail "C: $(placement "$work/run.profile.json" "$C")"
[ "$(placement "$work/run.profile.json" "$D")" = "huge small:1:$((M << 20)):fallback" ] ||
	fail "D: $(placement "$work/run.profile.json" "$D")"
# one line per pool that refused, naming the site, the budget and where it went
[ "$(grep -c '^hmpt: pool huge cannot take 8.00 MiB' "$work/run.err")" = 1 ] || fail "huge: $(cat "$work/run.err")"
grep -q "^hmpt: pool huge cannot take 8.00 MiB for site $C (budget 20.0 MiB from capacity, 16.0 MiB in use): it and any like it go to mid; the profile counts them\$" "$work/run.err" ||
	fail "the message: $(cat "$work/run.err")"
[ "$(grep -c '^hmpt: pool mid cannot take' "$work/run.err")" = 1 ] || fail "mid: $(cat "$work/run.err")"
[ "$(wc -l <"$work/run.err")" = 2 ] || fail "more than one line per pool: $(cat "$work/run.err")"
python3 - "$work/run.profile.json" <<'PY' || fail "pool figures in the profile"
import json, sys
pools = {p["name"]: p for p in json.load(open(sys.argv[1]))["plan"]["pools"]}
h, m = pools["huge"], pools["mid"]
assert h["budget_bytes"] == 20 << 20 and h["budget_from"] == "capacity", h
assert h["allocations"] == 2 and h["refused"] == 2 and h["peak_bytes"] == 16 << 20, h
assert m["allocations"] == 1 and m["refused"] == 1, m
PY
# freed memory is credited back: the same program allocating again later
# would fit; HMPT_VERBOSE=1 shows the figures at exit
HMPT_VERBOSE=1 HMPT_PLAN=$work/plan.json LD_PRELOAD=$LIB "$P/placed" arrays $M >/dev/null 2>"$work/v.err" ||
	fail "verbose run"
grep -q '^hmpt: pool huge: 2 allocations, 16.0 MiB placed, peak 16.0 MiB; 2 refused (16.0 MiB) went to mid$' "$work/v.err" ||
	fail "exit summary: $(cat "$work/v.err")"
grep -q '^hmpt: pool huge: no node policy, thp pages, budget 20.0 MiB (capacity), falls back to mid$' "$work/v.err" ||
	fail "pool description: $(cat "$work/v.err")"
# a share: 0.001 % is not allowed, but 1% of this machine's memory is plenty
note "capacity fallback: C to mid, D to small; one line per pool"
