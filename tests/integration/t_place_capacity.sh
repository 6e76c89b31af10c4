. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/place_common.sh"
# Capacity: a pool's budget is respected; what does not fit goes whole to
# the fallback pool, is counted per site, and hmpt says so once per pool.
need_thp
M=8
learn_arrays "$work/prof" $M

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
# a share: "1%" of the pool's nodes' memory, without nodes of every node's
# (their MemTotal in sysfs; /proc/meminfo without NUMA), to the byte; D,
# 1 MiB larger than that budget, goes whole to small while A fits.  (A share
# of a node of its own: tests/vm/placement.sh; a bad share: tests/plans/bad.)
if ls /sys/devices/system/node/node*/meminfo >/dev/null 2>&1; then
	kb=$(cat /sys/devices/system/node/node*/meminfo | awk '$3 == "MemTotal:" { s += $4 } END { print s }')
else
	kb=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
fi
budget=$((kb * 1024 / 100))
dmib=$((budget / (1 << 20) + 1))
$TUNE plan make -p 'share={"pages":"4k","capacity":"1%","fallback":"small"}' -p 'small={"pages":"4k"}' \
	-d system -s "$A,$D=share" -o "$work/plan2.json" "$work/prof" 2>/dev/null || fail "plan make 2"
run_placed "$work/plan2.json" "$work/run2" arrays $M $dmib
cat "$work/run2.err"
[ "$(placement "$work/run2.profile.json" "$A")" = "share share:1:$((M << 20)):planned" ] ||
	fail "A: $(placement "$work/run2.profile.json" "$A")"
[ "$(placement "$work/run2.profile.json" "$D")" = "share small:1:$((dmib << 20)):fallback" ] ||
	fail "D ($dmib MiB): $(placement "$work/run2.profile.json" "$D")"
grep -q "^hmpt: pool share cannot take .* for site $D (budget .* from capacity, 8.00 MiB in use): it and any like it go to small" \
	"$work/run2.err" || fail "the message: $(cat "$work/run2.err")"
python3 - "$work/run2.profile.json" $budget <<'PY' || fail "the share's budget"
import json, sys
s = {p["name"]: p for p in json.load(open(sys.argv[1]))["plan"]["pools"]}["share"]
assert s["budget_bytes"] == int(sys.argv[2]) and s["budget_from"] == "capacity", (s, sys.argv[2])
print("ok share: budget %d bytes" % s["budget_bytes"])
PY
note "capacity fallback: C to mid, D to small; one line per pool; 1% of $kb kB is $budget bytes, D ($dmib MiB) to small"
