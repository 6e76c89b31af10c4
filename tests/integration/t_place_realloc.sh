. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/place_common.sh"
# realloc across pools keeps the data: a block made at site a (planned huge)
# grows at site grow_b (planned small), at grow_c (huge), shrinks at grow_b.
need_thp
M=8
learn_sites "$work/prof" realloc $M
A=$(site_id "$work/prof" alloc_a) GB=$(site_id "$work/prof" grow_b) GC=$(site_id "$work/prof" grow_c)
$TUNE plan make -p 'huge={"pages":"thp"}' -p 'small={"pages":"4k"}' -d system \
	-s "$A,$GC=huge" -s "$GB=small" -o "$work/plan.json" "$work/prof" 2>/dev/null || fail "plan make"
run_placed "$work/plan.json" "$work/run" realloc $M
cat "$work/run"
grep -q '^realloc contents intact$' "$work/run" || fail "contents lost"
expect "$work/run" R0 flags hg
expect "$work/run" R1 flags nh
expect "$work/run" R1 thp_kb 0
expect "$work/run" R2 flags hg
expect_ge "$work/run" R2 thp_kb $((M * 1024))
expect "$work/run" R3 flags nh
# the same under a plan that keeps all in one pool: grows in place or moves pages
$TUNE plan make -p 'huge={"pages":"thp"}' -d huge -s "$A=huge" -o "$work/plan2.json" "$work/prof" \
	2>/dev/null || fail "plan make 2"
run_placed "$work/plan2.json" "$work/run2" realloc $M
grep -q '^realloc contents intact$' "$work/run2" || fail "contents lost (one pool)"
for r in R0 R1 R2 R3; do expect "$work/run2" $r flags hg; done
# and with capacity too small for the growth: the block moves whole to the fallback
$TUNE plan make -p 'huge={"pages":"thp","capacity":"12M","fallback":"small"}' -p 'small={"pages":"4k"}' \
	-d huge -s "$A=huge" -o "$work/plan3.json" "$work/prof" 2>/dev/null || fail "plan make 3"
run_placed "$work/plan3.json" "$work/run3" realloc $M
grep -q '^realloc contents intact$' "$work/run3" || fail "contents lost (capacity)"
expect "$work/run3" R0 flags hg
expect "$work/run3" R1 flags hg  # 12 MiB: fits
expect "$work/run3" R2 flags nh  # 16 MiB: does not, moved to small
expect "$work/run3" R3 flags hg  # 8 MiB: back in huge
note "realloc across pools: contents intact, pages follow the plan"
