. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/place_common.sh"
# Split placement (a group's "share", plan format 3): the first share of a
# block's bytes, in whole 2 MiB granules rounded to the nearest, in the
# group's pool, the rest in "rest"; read back from /proc/self/smaps (page
# advice and THP per part), kept by realloc (split again for the new size),
# and counted per pool in the profile.  Node pools: tests/vm/placement.sh.
need_thp
M=16
learn_sites "$work/prof" split $M 8 16
A=$(site_id "$work/prof" alloc_a) GA=$(site_id "$work/prof" grow_a)

# split_plan OUT SHARE: A and grow_a in one group of pool huge, SHARE of
# each block there and the rest in small; the other sites in system
split_plan() {
	$TUNE plan make -p 'huge={"pages":"thp"}' -p 'small={"pages":"4k"}' -d system \
		-s "$A,$GA=huge" -o "$1.v2" "$work/prof" 2>/dev/null || fail "plan make"
	python3 - "$1.v2" "$1" "$2" <<'PY' || fail "split plan"
import json, sys
import planjson
p = planjson.load(sys.argv[1])  # format 4 as format 2: a share in format 3
p["format_version"] = 3
for g in p["groups"]:
    if g["pool"] == "huge":
        g["share"] = float(sys.argv[3])
        g["rest"] = "small"
json.dump(p, open(sys.argv[2], "w"), indent=1)
PY
}

# 1. half of 16 MiB (8 granules: 4) in THP, the rest 4 KiB; after realloc
# to 32 MiB, half again (8 of 16 granules)
split_plan "$work/plan.json" 0.5
$TUNE plan check -q "$work/plan.json" || fail "plan check"
$TUNE plan check "$work/plan.json" | grep -q '50 % of each block in huge' ||
	fail "plan check does not show the share: $($TUNE plan check "$work/plan.json")"
run_placed "$work/plan.json" "$work/run1" split $M 8 16
cat "$work/run1"
grep -q '^realloc contents intact$' "$work/run1" || fail "contents lost in realloc"
expect "$work/run1" A.head flags hg
expect_ge "$work/run1" A.head thp_kb $((8 * 1024 / 2)) # THP is best effort: at least half
expect "$work/run1" A.tail flags nh
expect "$work/run1" A.tail thp_kb 0
expect "$work/run1" G.head flags hg
expect_ge "$work/run1" G.head thp_kb $((16 * 1024 / 2))
expect "$work/run1" G.tail flags nh
expect "$work/run1" G.tail thp_kb 0
[ ! -s "$work/run1.err" ] || fail "the shim was not quiet: $(cat "$work/run1.err")"
# the profile counts the bytes of each part in its pool (A's 16 MiB block)
got=$(placement "$work/run1.profile.json" "$A")
[ "$got" = "huge huge:1:$((8 << 20)):planned small:1:$((8 << 20)):planned" ] ||
	fail "profile placement of A: $got"

# 2. a share that rounds: 0.3 of 8 granules is 2.4, so 2 (4 MiB); of 16, 4.8,
# so 5 (10 MiB)
split_plan "$work/plan2.json" 0.3
run_placed "$work/plan2.json" "$work/run2" split $M 4 10
cat "$work/run2"
expect "$work/run2" A.head flags hg
expect "$work/run2" A.tail flags nh
expect "$work/run2" G.head flags hg
expect "$work/run2" G.tail flags nh
grep -q '^realloc contents intact$' "$work/run2" || fail "contents lost in realloc (0.3)"

# 3. a share below half a granule of a small block: all of it in the rest
# (0.05 of 8 granules is 0.4, so none)
split_plan "$work/plan3.json" 0.05
run_placed "$work/plan3.json" "$work/run3" split $M 8 16
expect "$work/run3" A.head flags nh
expect "$work/run3" A.tail flags nh

# 4. a share needs format_version 3, and is a number above 0 and at most 1
split_plan "$work/plan4.json" 0.5
sed 's/"format_version": 3/"format_version": 2/' "$work/plan4.json" >"$work/plan4b.json"
out=$($TUNE plan check -q "$work/plan4b.json" 2>&1) && fail "a share in a version-2 plan was taken"
echo "$out" | grep -q 'share: needs "format_version": 3' || fail "wrong error: $out"
for bad in 0 1.5 -0.5 1e-1 '"50%"'; do
	sed "s/\"share\": 0.5/\"share\": $bad/" "$work/plan4.json" >"$work/plan4c.json"
	out=$($TUNE plan check -q "$work/plan4c.json" 2>&1) && fail "share $bad was taken"
	echo "$out" | grep -q 'share: expected a share of the bytes above 0 and at most 1' ||
		fail "share $bad: wrong error: $out"
	[ "$(echo "$out" | wc -l)" = 1 ] || fail "share $bad: more than one line: $out"
done
note "a 16 MiB block split 8+8 MiB between THP and 4 KiB pages, kept split by realloc (16+16 MiB)"
