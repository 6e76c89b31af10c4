. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/sites_common.sh"; . "$(dirname "$0")/place_common.sh"
# Frames in no module (JIT and interpreter code in anonymous memory, at other
# addresses in every run) are recorded as "??!0xADDRESS" but are no part of a
# site's id (docs/plan-format.md, "Site identity"). jit_stub mallocs from two
# call sites through a stub it copies to an anonymous executable page at a
# random address: the profile shows the stub's frame, the two sites keep
# their ids over two runs and differ, and a plan made from one run places
# the next run's array (smaps says so), as a whole stack and as a prefix.
# Through 40, 60 and 100 stub frames the ids are the same.
[ "$(uname -m)" = x86_64 ] || skip "jit_stub's stub is x86-64 machine code; this machine is $(uname -m)"
"$P/jit_stub" >"$work/bare" 2>&1
rc=$?
[ $rc = 77 ] && skip "$(tail -n 1 "$work/bare")"
[ $rc = 0 ] || fail "jit_stub without hmpt exited $rc: $(cat "$work/bare")"

src=$top/tests/progs/jit_stub.c
sites_test jit_stub "$src" "$P/jit_stub"

# the stub's frame: its return address, in each run's own stub
stub1=$(sed -n 's/^stub=//p' "$work/out1") stub2=$(sed -n 's/^stub=//p' "$work/out2")
[ -n "$stub1" ] && [ "$stub1" != "$stub2" ] || fail "the stub is at $stub1 in both runs: nothing shows that its address is no part of the ids"
for r in 1 2; do
	stub=$(sed -n 's/^stub=//p' "$work/out$r")
	want=$(printf '??!0x%x' $((stub + 6))) # after its 6-byte push, mov and call
	rows=$(awk -F'\t' -v w="$want" 'NR > 1 { split($10, f, " "); if (f[1] == w) n++ } END { print n + 0 }' "$work/r$r/sites.tsv")
	[ "$rows" = 2 ] || fail "run $r: $rows sites begin with the stub's frame $want: $(cut -f1,9,10 "$work/r$r/sites.tsv")"
done
[ "$(awk -F'\t' 'NR > 1 { print $1 }' "$work/r1/sites.tsv" | sort -u | wc -l)" = 2 ] ||
	fail "the two call sites do not have two ids: $(cut -f1,9 "$work/r1/sites.tsv")"
note "stub at $stub1, then at $stub2: its frame recorded, the ids the same"

# 40, 60, 100 frames of stub code (a JIT's deep stacks): the window counts
# only frames that name a site, so both ids stay those of a run where the
# stub leaves no frame (it jumps to malloc), and at most 64 frames are kept
ids_with() { # FRAMES: "ID_A ID_B" of a run through that many stub frames
	run_profile "$work/k$1" "$P/jit_stub" "$1" >"$work/k$1.out" || fail "jit_stub $1 exited $?"
	echo "$(site_id "$work/k$1" alloc_a) $(site_id "$work/k$1" alloc_b)"
	awk -F'\t' 'NR > 1 && split($10, f, " ") > 64 { exit 1 }' "$work/k$1/sites.tsv" ||
		fail "$1 stub frames: a site keeps more than 64 frames"
}
ids0=$(ids_with 0)
[ "$ids0" = "$(site_id "$work/r1" alloc_a) $(site_id "$work/r1" alloc_b)" ] ||
	fail "one stub frame changes the ids: $ids0 without it"
for k in 40 60 100; do
	got=$(ids_with $k)
	[ "$got" = "$ids0" ] || fail "through $k stub frames the ids are ${got:-none}, without $ids0"
done
note "the ids through 0, 1, 40, 60 and 100 stub frames: $ids0"

# a plan from run 1 places run 3's array A (another stub address again)
need_thp
A=$(site_id "$work/r1" alloc_a) B=$(site_id "$work/r1" alloc_b)
$TUNE plan make -p 'huge={"pages":"thp"}' -p 'small={"pages":"4k"}' -d small -s "$A=huge" \
	-o "$work/plan.json" "$work/r1" 2>"$work/plan.err" || fail "plan make: $(cat "$work/plan.err")"
grep -q '"??!0x' "$work/plan.json" || fail "the plan does not record the stub's frame"
$TUNE plan check -q "$work/plan.json" || fail "plan check"
run_jit() { # PLAN OUT
	HMPT_PLAN=$1 HMPT_PROFILE=$2.profile.json LD_PRELOAD=$LIB $PREFIX "$P/jit_stub" >"$2" 2>"$2.err" ||
		fail "jit_stub under $1 exited $?: $(cat "$2.err")"
	[ ! -s "$2.err" ] || fail "the shim was not quiet under $1: $(cat "$2.err")"
}
run_jit "$work/plan.json" "$work/run3"
cat "$work/run3"
expect "$work/run3" A flags hg
expect_ge "$work/run3" A thp_kb 4096 # THP is best effort: at least half
expect "$work/run3" B flags nh
expect "$work/run3" B thp_kb 0
[ "$(placement "$work/run3.profile.json" "$A")" = "huge huge:1:8388608:planned" ] ||
	fail "profile placement of A: $(placement "$work/run3.profile.json" "$A")"
[ "$(placement "$work/run3.profile.json" "$B")" = "small small:1:8388608:planned" ] ||
	fail "profile placement of B: $(placement "$work/run3.profile.json" "$B")"

# a prefix of one frame would be the stub's alone, which names nothing:
# plan make takes it to the first frame in a module (alloc_a's)
$TUNE plan make -p 'huge={"pages":"thp"}' -d system -m prefix:1 -s "$A=huge" \
	-o "$work/plan4.json" "$work/r1" 2>"$work/plan4.err" || fail "plan make 4: $(cat "$work/plan4.err")"
python3 - "$work/plan4.json" <<'PY' || fail "plan 4's site: $(cat "$work/plan4.json")"
import planjson, sys
s = planjson.load(sys.argv[1])["groups"][0]["sites"][0]
assert s["match"] == "prefix" and len(s["frames"]) == 2, s
assert s["frames"][0].startswith("??!0x") and s["frames"][1].startswith("jit_stub!0x"), s
PY
run_jit "$work/plan4.json" "$work/run4"
expect "$work/run4" A flags hg
expect "$work/run4" B flags -
note "a plan from another run places A in huge pages: $(field "$work/run3" A thp_kb) kB (whole stack), $(field "$work/run4" A thp_kb) kB (prefix)"
