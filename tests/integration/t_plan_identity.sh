. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/place_common.sh"
# Site identity leaves out the system runtime libraries' frames
# (docs/plan-format.md, "Site identity"): a plan whose libc frames moved, as
# any C library update moves them, still places its arrays (smaps says so),
# with its ids unchanged; so does one whose OpenMP runtime frames moved; and
# a version-1 plan (every frame hashed) still loads and places.
need_thp
M=8
learn_sites "$work/prof" arrays $M
A=$(site_id "$work/prof" alloc_a) C=$(site_id "$work/prof" alloc_c)
huge_small_plan "$work/plan.json" small "$A,$C=huge"

# shift PLAN OUT VERSION: every runtime-library frame moved by 0x40, ids
# kept; VERSION 1 also drops what version 2 added and the ids (version 1
# hashed every frame)
shift_plan() {
	python3 - "$@" <<'PY'
import json, re, sys
import planjson
plan = planjson.load(sys.argv[1])
runtime = re.compile(r"^(libc\.so|ld-linux|libgomp\.so|libpthread\.so)")
moved = 0
for g in plan["groups"]:
    for s in g["sites"]:
        for i, f in enumerate(s["frames"]):
            mod, off = f.rsplit("!0x", 1)
            if runtime.match(mod):
                s["frames"][i] = "%s!0x%x" % (mod, int(off, 16) + 0x40)
                moved += 1
        if sys.argv[3] == "1":
            for k in ("id", "symbolic"):
                s.pop(k, None)
if sys.argv[3] == "1":
    plan["format_version"] = 1
    plan.pop("modules", None)
json.dump(plan, open(sys.argv[2], "w"), indent=1)
print(moved)
PY
}
moved=$(shift_plan "$work/plan.json" "$work/shifted.json" 2) || fail "shift"
[ "$moved" -ge 2 ] || fail "the plan has $moved libc frames to move; expected the start-up frames"
note "moved $moved libc frames by 0x40"
# the ids still check against the frames: libc is no part of them
$TUNE plan check -q "$work/shifted.json" || fail "the shifted plan does not check"

for p in plan shifted; do
	run_placed "$work/$p.json" "$work/run-$p" arrays $M
	for x in A C; do expect "$work/run-$p" $x flags hg; done
	for x in B D; do expect "$work/run-$p" $x flags nh; done
	[ "$(placement "$work/run-$p.profile.json" "$A")" = "huge huge:1:$((M << 20)):planned" ] ||
		fail "$p: profile placement of A: $(placement "$work/run-$p.profile.json" "$A")"
	echo "ok $p: A and C in huge pages (flags hg), B and D not (nh)"
done

# a version-1 plan: loads, and matches on the identity frames
shift_plan "$work/plan.json" "$work/v1.json" 1 >/dev/null || fail "v1"
$TUNE plan check -q "$work/v1.json" || fail "the version-1 plan does not check"
run_placed "$work/v1.json" "$work/run-v1" arrays $M
for x in A C; do expect "$work/run-v1" $x flags hg; done
for x in B D; do expect "$work/run-v1" $x flags nh; done
echo "ok version 1 (libc frames moved too): A and C in huge pages"

# OpenMP: the runtime's fork and thread-start frames sit between the
# program's; moved, every site still matches its group
export OMP_NUM_THREADS=2
run_profile "$work/omp" "$P/alloc_omp" >/dev/null || fail "profiling alloc_omp"
$TUNE plan make -p 'huge={"pages":"thp"}' -d system -s all=huge -o "$work/omp.json" \
	"$work/omp" 2>/dev/null || fail "plan make (alloc_omp)"
moved=$(shift_plan "$work/omp.json" "$work/omp-shifted.json" 2) || fail "shift omp"
grep -q 'libgomp' "$work/omp.json" || fail "no libgomp frame in the OpenMP plan"
HMPT_PLAN=$work/omp-shifted.json HMPT_PROFILE=$work/omp-run.json LD_PRELOAD=$LIB \
	"$P/alloc_omp" >/dev/null 2>"$work/omp.err" || fail "alloc_omp under the plan: $(cat "$work/omp.err")"
python3 - "$work/omp-run.json" <<'PY' || fail "OpenMP sites not all placed"
import json, sys
p = json.load(open(sys.argv[1]))
sites = [s for s in p["sites"] if s["bytes"] >= 1 << 20]
bad = [s["id"] for s in sites if (s.get("placement") or {}).get("group") is None]
print("OpenMP: %d sites, %d matched their group" % (len(sites), len(sites) - len(bad)))
sys.exit(1 if bad or len(sites) < 2 else 0)
PY
echo "ok OpenMP: $moved runtime frames moved, every site matched"
