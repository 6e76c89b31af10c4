. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/sites_common.sh"
# The arrays of one statement (NPB MG's `allocate(u(n), v(n), r(n))`, built
# -O2): three sites at one line, told apart by position (the order of their
# calls) and named by the variable the source line gives each call, in
# sites.tsv, hmpt-tune show and the plans' symbolic frames.
src=$top/tests/progs/alloc_stmt.f90
sites_test alloc_stmt "$src" "$P/alloc_stmt"
line=$(grep -n 'allocate(u(n)' "$src" | cut -d: -f1)
tsv=$work/r1/sites.tsv
got=$(awk -F'\t' -v loc="alloc_stmt.f90:$line" 'NR > 1 && $9 == loc { print $17, $18 }' "$tsv" | sort)
[ "$got" = "$(printf '1/3 u\n2/3 v\n3/3 r')" ] ||
	fail "positions and variables at alloc_stmt.f90:$line: $(echo $got) (want 1/3 u 2/3 v 3/3 r): $(cat "$tsv")"
$TUNE show "$work/r1" >"$work/show" || fail "hmpt-tune show"
for want in "u: 1st of 3" "v: 2nd of 3" "r: 3rd of 3"; do
	grep -q "(alloc_stmt.f90:$line, $want)" "$work/show" || fail "show lacks '$want': $(cat "$work/show")"
done
$TUNE plan make -p 'f={"pages":"thp"}' -s all=f -o "$work/plan.json" "$work/r1" 2>/dev/null ||
	fail "plan make"
python3 - "$work/plan.json" "$line" <<'PY' || fail "the plan's symbolic frames (above)"
import planjson, sys
plan, line = planjson.load(sys.argv[1]), int(sys.argv[2])
seen = {}
for s in plan["groups"][0]["sites"]:
    e = s["symbolic"][0]
    assert e["file"] == "alloc_stmt.f90" and e["line"] == line, e
    assert e["positions"] == 3, e
    seen[e["position"]] = (e["variable"], e.get("discriminator", 0))
    assert s["symbols"][0].endswith("(alloc_stmt.f90:%d, %s: %s of 3)" % (
        line, e["variable"], {1: "1st", 2: "2nd", 3: "3rd"}[e["position"]])), s["symbols"][0]
print("positions, variables, discriminators:", sorted(seen.items()))
assert [seen[p][0] for p in (1, 2, 3)] == ["u", "v", "r"], seen
# gfortran -O2 gives the three calls one line and column: the discriminator tells them apart
assert len({seen[p][1] for p in (1, 2, 3)}) == 3, seen
PY
note "alloc_stmt.f90:$line: u, v, r are the 1st, 2nd and 3rd of 3 calls"
