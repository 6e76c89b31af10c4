. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/place_common.sh"
# Placement by page policy, checked from /proc/self/smaps: the planned
# sites get transparent huge pages, the others 4 KiB pages; every page
# present (move_pages counts them).  Node policies: tests/vm/placement.sh.
need_thp
M=8
learn_arrays "$work/prof" $M

huge_small_plan "$work/plan.json" small "$A,$C=huge"
$TUNE plan check -q "$work/plan.json" || fail "plan check"

# 1. the plan: A and C huge, B and D small; nothing said
run_placed "$work/plan.json" "$work/run1" arrays $M
cat "$work/run1"
for x in A C; do
	expect "$work/run1" $x flags hg
	expect_ge "$work/run1" $x thp_kb $((M * 1024 / 2)) # THP is best effort: at least half
	expect "$work/run1" $x nodes "0:$((M * 256))"
done
for x in B D; do
	expect "$work/run1" $x flags nh
	expect "$work/run1" $x thp_kb 0
	expect "$work/run1" $x nodes "0:$((M * 256))"
done
[ ! -s "$work/run1.err" ] || fail "the shim was not quiet: $(cat "$work/run1.err")"
[ "$(placement "$work/run1.profile.json" "$A")" = "huge huge:1:$((M << 20)):planned" ] ||
	fail "profile placement of A: $(placement "$work/run1.profile.json" "$A")"
[ "$(placement "$work/run1.profile.json" "$B")" = "small small:1:$((M << 20)):planned" ] ||
	fail "profile placement of B: $(placement "$work/run1.profile.json" "$B")"

# 2. the opposite plan: the advice follows the plan, not the call order
huge_small_plan "$work/plan2.json" huge "$A,$C=small"
run_placed "$work/plan2.json" "$work/run2" arrays $M
for x in A C; do expect "$work/run2" $x flags nh; expect "$work/run2" $x thp_kb 0; done
for x in B D; do expect "$work/run2" $x flags hg; expect_ge "$work/run2" $x thp_kb $((M * 512)); done

# 3. without a plan nothing changes: no advice at all
HMPT_PROFILE=$work/none.json LD_PRELOAD=$LIB "$P/placed" arrays $M >"$work/run3" 2>&1 || fail "no plan"
for x in A B C D; do expect "$work/run3" $x flags -; done

# (a node pool's bind is checked in the QEMU guest, tests/vm/placement.sh:
# here node 0 is the only node and a bind to it cannot fail)

# 4. a prefix match of one frame places every allocation made there
$TUNE plan make -p 'huge={"pages":"thp"}' -d system -m prefix:1 -s "$D=huge" \
	-o "$work/plan4.json" "$work/prof" 2>/dev/null || fail "plan make 4"
grep -q '"match": "prefix"' "$work/plan4.json" || fail "no prefix match written"
run_placed "$work/plan4.json" "$work/run4" arrays $M
expect "$work/run4" D flags hg
expect "$work/run4" A flags -
note "THP for planned sites only: $(field "$work/run1" A thp_kb) kB in A, 0 in B"
