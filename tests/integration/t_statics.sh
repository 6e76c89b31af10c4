. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/place_common.sh"
# Static data: large arrays in .bss/.data (static_stream, C) and COMMON
# blocks (static_common, Fortran) are found before main, listed by name and
# size, and placed when a plan names them: page advice checked in
# /proc/self/smaps, pages shared by two objects by the documented rule, the
# kernels' results checked; and the tuner ranks and places them.  (Nodes:
# tests/vm/statics.sh in the guest.)
need_thp
S=$P/static_stream F=$P/static_common
N=$(((2 * 1024 * 1024 + 300) * 8)) # bytes of a, b and c

# row NAME: "bytes location" of the site named NAME in DIR/sites.tsv
row() { awk -F'\t' -v n="$2" 'NR > 1 && $8 == n { print $2 " " $9 }' "$1/sites.tsv"; }

# 1. the profile lists each object by name, size and section
run_profile "$work/sp" "$S" run 1 >"$work/sp.out" || fail "static_stream under the profiler"
for x in "a $N static, .bss" "b $N static, .bss" "c $N static, .bss" \
	"table 67108864 static, .bss" "init 2097152 static, .data" \
	"ptrs $(((128 * 1024 + 7) * 8)) static, .data"; do
	set -- $x
	[ "$(row "$work/sp" "$1")" = "${x#* }" ] || fail "site $1: '$(row "$work/sp" "$1")', want '${x#* }'"
done
[ "$(awk 'NR > 1' "$work/sp/sites.tsv" | wc -l)" = 6 ] || fail "sites: $(cat "$work/sp/sites.tsv")"
# the frame is the object's own module!offset, its address in the file
off=$(nm "$S" | awk '$3 == "table" { sub(/^0+/, "", $1); print $1 }')
got=$(python3 -c 'import json, sys
for s in json.load(open(sys.argv[1]))["sites"]:
    if s.get("symbol") == "table": print(s["kind"], " ".join(s["frames"]))' "$work/sp/profile.json")
[ "$got" = "static static_stream!0x$off" ] || fail "table: '$got', want 'static static_stream!0x$off'"
$TUNE show "$work/sp" | grep -q ' table (static, \.bss)$' || fail "hmpt-tune show: $($TUNE show "$work/sp")"
$TUNE show "$work/sp" | grep -q 'static data 115.0 MiB in 6 objects' || fail "show's header"
grep -q 'bad=0 init_sum=262144' "$work/sp.out" || fail "results: $(cat "$work/sp.out")"

# Fortran COMMON blocks, by their linker names; /small/ is below 1 MiB
run_profile "$work/fp" "$F" >"$work/fp.out" || fail "static_common under the profiler"
[ "$(row "$work/fp" grid_)" = "16000000 static, .bss" ] || fail "grid_: $(row "$work/fp" grid_)"
[ "$(row "$work/fp" work_)" = "12000000 static, .bss" ] || fail "work_: $(row "$work/fp" work_)"
[ -z "$(row "$work/fp" small_)" ] || fail "small_ is listed"
grep -q 'bad=0' "$work/fp.out" || fail "Fortran results: $(cat "$work/fp.out")"

# a stripped executable: its large sections
strip -o "$work/stripped" "$S"
run_profile "$work/tp" "$work/stripped" run 1 >/dev/null || fail "stripped under the profiler"
bss=$((0x$(readelf -SW "$S" | awk '$2 == ".bss" { print $6 }')))
[ "$(row "$work/tp" .bss)" = "$bss static, .bss" ] || fail "stripped .bss: $(row "$work/tp" .bss), want $bss"
note "profile: a, b, c ($N bytes), table, init, ptrs; grid_ and work_; stripped: .bss ($bss)"

# 2. a plan: a, init and ptrs in thp, b in 4k; c and table not named
A=$(site_id "$work/sp" a) Bs=$(site_id "$work/sp" b) I=$(site_id "$work/sp" init)
T=$(site_id "$work/sp" ptrs)
$TUNE plan make -p 'huge={"pages":"thp"}' -p 'small={"pages":"4k"}' -d small \
	-s "$A,$I,$T=huge" -s "$Bs=small" -o "$work/plan.json" "$work/sp" 2>/dev/null || fail "plan make"
HMPT_PLAN=$work/plan.json HMPT_PROFILE=$work/run1.json LD_PRELOAD=$LIB "$S" report >"$work/run1" \
	2>"$work/run1.err" || fail "static_stream under the plan: $(cat "$work/run1.err")"
cat "$work/run1"
grep -q 'bad=0 init_sum=262144' "$work/run1" || fail "results under the plan"
expect "$work/run1" a flags hg
expect_ge "$work/run1" a thp_kb 8192 # THP is best effort: at least half
expect "$work/run1" b flags nh
expect "$work/run1" b thp_kb 0
for x in c table; do expect "$work/run1" $x flags -; expect "$work/run1" $x thp_kb 0; done
for x in init ptrs; do expect "$work/run1" $x flags hg; done
# initialised data is a file mapping: said once, for the first of the two
[ "$(grep -c 'is initialised data, mapped from the file' "$work/run1.err")" = 1 ] ||
	fail "the .data message: $(cat "$work/run1.err")"
[ "$(wc -l <"$work/run1.err")" = 1 ] || fail "the shim said more: $(cat "$work/run1.err")"
[ "$(placement "$work/run1.json" "$A")" = "huge huge:1:$N:planned" ] ||
	fail "profile placement of a: $(placement "$work/run1.json" "$A")"
[ "$(placement "$work/run1.json" "$(site_id "$work/sp" c)")" = "system system:1:$N:planned" ] ||
	fail "profile placement of c: $(placement "$work/run1.json" "$(site_id "$work/sp" c)")"

# 3. a page two objects share goes with the one holding more of it
flag_of() { case $1 in a | init | ptrs) echo hg ;; b) echo nh ;; *) echo - ;; esac; }
edges=0
while read -r _ pair holder _ _ flags; do
	h=${holder#holder=} f=${flags#flags=}
	[ "$f" = "$(flag_of "$h")" ] || fail "edge $pair: the page has $f, its holder $h has $(flag_of "$h")"
	edges=$((edges + 1))
done < <(grep '^edge ' "$work/run1")
[ "$edges" -ge 3 ] || fail "only $edges shared pages to check"
note "plan: a hg ($(field "$work/run1" a thp_kb) kB in THP), b nh, c and table untouched; $edges shared pages follow their holder"

# 4. no plan naming static data: nothing changes, not even with a default pool
$TUNE plan make -p 'huge={"pages":"thp"}' -d huge -o "$work/plan0.json" "$work/sp" 2>/dev/null ||
	fail "plan make 0"
HMPT_PLAN=$work/plan0.json LD_PRELOAD=$LIB "$S" report >"$work/run0" 2>"$work/run0.err" || fail "plan 0"
"$S" report >"$work/bare" || fail "without hmpt"
for x in a b c table init ptrs; do
	expect "$work/run0" $x flags -
	[ "$(grep "^$x " "$work/run0")" = "$(grep "^$x " "$work/bare")" ] ||
		fail "$x differs from the run without hmpt: $(grep "^$x " "$work/run0")"
done
[ ! -s "$work/run0.err" ] || fail "the shim said: $(cat "$work/run0.err")"
# HMPT_STATIC=0: static data is not even listed
HMPT_STATIC=0 run_profile "$work/off" "$S" run 1 >/dev/null || fail "HMPT_STATIC=0"
[ ! -s "$work/off/sites.tsv" ] || [ "$(awk 'NR > 1' "$work/off/sites.tsv" | wc -l)" = 0 ] ||
	fail "HMPT_STATIC=0 lists sites: $(cat "$work/off/sites.tsv")"

# 5. pools that make their own memory cannot take static data: one line, on
# to the fallback (here thp)
$TUNE plan make -p 'tlb={"pages":"hugetlb","fallback":"huge"}' -p 'huge={"pages":"thp"}' \
	-s "$A=tlb" -o "$work/plan5.json" "$work/sp" 2>/dev/null || fail "plan make 5"
HMPT_PLAN=$work/plan5.json LD_PRELOAD=$LIB "$S" report >"$work/run5" 2>"$work/run5.err" || fail "plan 5"
expect "$work/run5" a flags hg
[ "$(grep -c 'static a (16.0 MiB in .bss of static_stream): pool tlb gives hugetlbfs pages, which static data cannot have (static data is mapped before main): it and any like it go to pool huge' "$work/run5.err")" = 1 ] ||
	fail "hugetlb message: $(cat "$work/run5.err")"

# 6. Fortran: /grid/ in thp, /work/ not named
$TUNE plan make -p 'huge={"pages":"thp"}' -s "$(site_id "$work/fp" grid_)=huge" \
	-o "$work/planf.json" "$work/fp" 2>/dev/null || fail "plan make f"
HMPT_PLAN=$work/planf.json LD_PRELOAD=$LIB "$F" report >"$work/runf" 2>"$work/runf.err" ||
	fail "static_common under the plan: $(cat "$work/runf.err")"
cat "$work/runf"
grep -q 'bad=0' "$work/runf" || fail "Fortran results under the plan"
expect "$work/runf" grid flags hg
expect_ge "$work/runf" grid thp_kb 6144
expect "$work/runf" work flags -
expect "$work/runf" work thp_kb 0
[ ! -s "$work/runf.err" ] || fail "the shim said: $(cat "$work/runf.err")"
note "Fortran: /grid/ hg ($(field "$work/runf" grid thp_kb) kB in THP), /work/ untouched"

# 7. the tuner ranks, groups and places static sites like any other: each
# configuration's plan names every static site, the fast ones in fast and the
# rest in slow, and applied, puts them in those pools.  Which site ranks first
# is the machine's answer (the table gains ~1.2x here and a run scatters by
# ~7 %; CI once ranked a 16 MiB array first): it is said, not asserted, beyond
# being one of the two candidates measured alone (--candidates 2: the table,
# and of a and c, 16 MiB each, the one first allocated, as ties rank).
# Exhaustive search, so that G1 alone has a measured plan.
$TUNE -q -o "$work/tune" -p thp,4k -g 2 -r 5 --candidates 2 --search exhaustive -m 'gather_s=' -- \
	"$S" gather 5 >"$work/tune.out" \
	2>&1 || fail "hmpt-tune on static_stream: $(tail -5 "$work/tune.out")"
python3 - "$work/tune" <<'PY' || fail "tuner results (the assertion above)"
import json, os, sys
import planjson
d = sys.argv[1]
r = json.load(open(os.path.join(d, "results.json")))
first = [s for s in r["sites"] if s["group"] == "G1"]
ranking = [(c["label"], round(c["speedup"], 3), [x["value"] for x in c["runs"]])
           for c in r["configs"] if c["phase"] == "ranking"]
alone = [label[len("alone: "):] for label, _, _ in ranking if label.startswith("alone: ")]
assert len(alone) == 2 and "table (static, .bss)" in alone, ranking
assert len(first) == 1 and first[0]["location"] in alone, (first, ranking)
assert len(r["sites"]) == 6 and all("(static, ." in s["location"] for s in r["sites"]), r["sites"]
g1 = [c for c in r["configs"] if c["label"] == "G1"][0]
plan = planjson.load(os.path.join(d, "plans", g1["key"] + ".json"))
pools = {" ".join(s["symbols"]): g["pool"] for g in plan["groups"] for s in g["sites"]}
name = first[0]["location"]
assert pools[name] == "fast" and len(pools) == 6, pools
assert sorted(p for n, p in pools.items() if n != name) == ["slow"] * 5, pools
slow = json.load(open(os.path.join(d, "plan-slow.json")))
assert sum(len(g["sites"]) for g in slow["groups"] if g["pool"] == "slow") == 6, slow
print("G1 =", name, "alone %.3fx" % g1["speedup"], "; ranking:", ranking)
PY
read -r g1 g1name < <(python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
name = [s["location"] for s in r["sites"] if s["group"] == "G1"][0].split()[0]
print([c for c in r["configs"] if c["label"] == "G1"][0]["key"], name)' "$work/tune/results.json")
HMPT_PLAN=$work/tune/plans/$g1.json LD_PRELOAD=$LIB "$S" report >"$work/rung1" 2>&1 || fail "G1's plan"
expect "$work/rung1" "$g1name" flags hg
for x in a b c table; do
	[ "$x" = "$g1name" ] || expect "$work/rung1" $x flags nh
done
note "tuner: $g1name (static) is G1 here, its plan gives it thp and the other static arrays 4k"
