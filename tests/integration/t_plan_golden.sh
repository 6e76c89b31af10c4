. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/place_common.sh"
# Saved plans outlive hmpt's versions: job scripts keep them.  Three checks,
# against tests/plans/golden/ (plans written by earlier hmpt versions):
# 1. each golden site's literal id is still the id of its frames (the plan
#    loader checks every id against its frames: a changed hash or identity
#    rule fails here, by name);
# 2. the running shim names alloc_c's sites (and jit_stub's, with a frame in
#    no module) with the ids that an independent implementation of the
#    documented rule computes from their frames (FNV-1a 64 over the
#    module's base name, then over each identity frame's name hash and
#    offset; frames in runtime libraries and in no module, "??", left out;
#    docs/plan-format.md, common/siteid.h);
# 3. where this compiler laid alloc_c out as the golden plans' compiler did,
#    the plans still place its arrays as they say (read back from the
#    profile that run writes).
G=$top/tests/plans/golden
for v in v1 v2 v4; do
	$TUNE plan check "$G/alloc_c-$v.json" >"$work/check-$v" 2>&1 ||
		fail "alloc_c-$v.json no longer loads: $(cat "$work/check-$v")"
done
grep -q '"id": "708bdf35a3c58dce"' "$G/alloc_c-v1.json" && grep -q '"id": "e2368e6d3bbbee2a"' "$G/alloc_c-v2.json" &&
	grep -q '"id": "e2368e6d3bbbee2a"' "$G/alloc_c-v4.json" ||
	fail "the golden plans were edited (their literal ids are gone)"
note "golden plans load: version 1 (ids over every frame), version 2 and version 4 (a frames table)"

run_profile "$work/prof" "$P/alloc_c" >/dev/null || fail "profiling alloc_c"
tsvs=$work/prof/sites.tsv
# and jit_stub's, whose stacks hold a frame in no module (x86-64 only)
if [ "$(uname -m)" = x86_64 ] && "$P/jit_stub" >/dev/null 2>&1; then
	run_profile "$work/jit" "$P/jit_stub" >/dev/null || fail "profiling jit_stub"
	tsvs="$tsvs $work/jit/sites.tsv"
fi
python3 - $tsvs <<'PY' || fail "site ids differ from the documented rule"
import struct, sys
M = (1 << 64) - 1
SEED = 0xcbf29ce484222325
# the system runtime libraries whose frames are no part of a site's identity
RUNTIME = ("libc.so", "ld-linux", "ld64.so", "libpthread.so", "libdl.so", "librt.so", "libm.so",
           "libstdc++.so", "libc++.so", "libc++abi.so", "libgcc_s.so", "libatomic.so",
           "libquadmath.so", "libgfortran.so", "libFortranRuntime", "libflang", "libifcore",
           "libifport", "libimf.so", "libintlc.so", "libsvml.so", "libirng.so", "libnvf.so",
           "libnvc.so", "libnvcpumath", "libpgmath", "libfi.so", "libcsup.so", "libgomp.so",
           "libomp.so", "libiomp5.so", "libnvomp.so", "libcraymp")
def fnv(h, data):
    for c in data:
        h = ((h ^ c) * 0x100000001b3) & M
    return h
def site_id(frames):
    fr = [(f.rsplit("!", 1)[0], int(f.rsplit("!", 1)[1], 16)) for f in frames]
    # "??": a frame in no module (JIT code), at another address in every run
    own = [x for x in fr if x[0] != "??" and not x[0].startswith(RUNTIME)] or \
          [x for x in fr if x[0].startswith(RUNTIME)]
    h = SEED
    for name, off in own:
        h = fnv(h, struct.pack("<QQ", fnv(SEED, name.encode()), off))
    return "%016x" % h
# the rule itself, on literal frames (the golden plans' site)
assert site_id(["alloc_c!0x13ac", "libc.so.6!0x2724a", "libc.so.6!0x27305", "alloc_c!0x1141"]) == "e2368e6d3bbbee2a"
assert site_id(["??!0x7f0012345006", "alloc_c!0x13ac", "libc.so.6!0x2724a", "??!0x7f00aa",
                "alloc_c!0x1141"]) == "e2368e6d3bbbee2a"
for tsv in sys.argv[1:]:
    rows = [l.rstrip("\n").split("\t") for l in open(tsv)][1:]
    assert rows, "no sites in " + tsv
    for r in rows:
        if r[0] != site_id(r[9].split()):
            sys.exit("site %s at %s: frames %s give %s" % (r[0], r[8], r[9], site_id(r[9].split())))
    print("%s: %d sites: every id is its frames' documented hash" % (tsv.split("/")[-2], len(rows)))
PY

# 3: the golden site is alloc_c.c:53 (16 MiB), at these identity frames
# (alloc_c's own: libc's frames, which another libc build moves, are no
# part of a site's identity, in either version's matching)
want="alloc_c!0x13ac alloc_c!0x1141"
got=$(awk -F'\t' 'NR > 1 && $9 == "alloc_c.c:53" { print $10 }' "$work/prof/sites.tsv" | tr ' ' '\n' | grep '^alloc_c!' | tr '\n' ' ')
got=${got% }
if [ "$got" != "$want" ]; then
	# parts 1 and 2 passed; part 3 cannot be checked here: say so, as a skip
	skip "part 3 not checked: alloc_c.c:53 is at $got here, not at the golden plans' $want (another compiler lays it out otherwise); parts 1 and 2 (ids) passed"
fi
for v in v1 v2 v4; do
	HMPT_PLAN=$G/alloc_c-$v.json HMPT_PROFILE=$work/run-$v.json LD_PRELOAD=$LIB "$P/alloc_c" >/dev/null 2>"$work/run-$v.err" ||
		fail "alloc_c under alloc_c-$v.json exited $?: $(cat "$work/run-$v.err")"
	[ ! -s "$work/run-$v.err" ] || fail "the shim said, under alloc_c-$v.json: $(cat "$work/run-$v.err")"
	got=$(placement "$work/run-$v.json" e2368e6d3bbbee2a)
	[ "$got" = "fast fast:1:16777216:planned" ] || fail "alloc_c-$v.json: alloc_c.c:53 placed '$got', want all of it in fast"
done
# version 1 named a second site (alloc_c.c:46) in fast too
got=$(placement "$work/run-v1.json" "$(awk -F'\t' 'NR > 1 && $9 == "alloc_c.c:46" { print $1 }' "$work/prof/sites.tsv")")
[ "$got" = "fast fast:1:8388608:planned" ] || fail "alloc_c-v1.json: alloc_c.c:46 placed '$got', want fast"
note "golden plans place today's alloc_c: alloc_c.c:53 (and :46 under v1) in their fast pool"
