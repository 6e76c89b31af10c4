. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/place_common.sh"; . "$(dirname "$0")/rebuild_common.sh"
# hmpt-tune plan rebase: a plan made on build 1 of rebuild.c, moved onto
# build 2 (three lines inserted above every allocation and a function
# added: every offset and line moves) by its sites' symbolic frames; the
# arrays of one statement (u, v, r) kept apart by their positions.  Checked
# where it counts, in the page advice smaps reports (hg: the plan's thp
# pool, nh: its 4k pool).
need_thp
M=8
rebuild_build "$work/b1" 1
rebuild_build "$work/b2" 2

# id_where DIR COLUMN VALUE: the ids of DIR/sites.tsv's rows with VALUE in COLUMN
id_where() { awk -F'\t' -v c="$2" -v v="$3" 'NR > 1 && $c == v { print $1 }' "$1/sites.tsv"; }
# ids DIR: grid, u, v, r's ids (alloc_grid's site; the variables of alloc_space's statement)
ids() {
	local g u v r
	g=$(id_where "$1" 8 alloc_grid) u=$(id_where "$1" 18 u) v=$(id_where "$1" 18 v) r=$(id_where "$1" 18 r)
	for x in "$g" "$u" "$v" "$r"; do
		[ "$(wc -w <<<"$x")" = 1 ] || fail "not one site each for grid, u, v, r in $1: $(cat "$1/sites.tsv")"
	done
	echo "$g $u $v $r"
}
# run_build N PLAN OUT: build N under PLAN, its report lines in OUT
run_build() {
	HMPT_PLAN=$2 LD_PRELOAD=$LIB $PREFIX "$work/b$1/rebuild" $M >"$3" 2>"$3.err" ||
		fail "build $1 under $2 exited $?: $(cat "$3.err")"
}
line_of() { grep -n "$2" "$work/b$1/rebuild.c" | head -n 1 | cut -d: -f1; }

# 1. build 1: u, v, r are the 1st, 2nd and 3rd call of one statement
run_profile "$work/p1" "$work/b1/rebuild" $M >/dev/null || fail "profiling build 1"
read -r G1 U1 V1 R1 < <(ids "$work/p1")
s1=$(line_of 1 'u = malloc(n)')
[ "$(awk -F'\t' -v id="$U1" '$1 == id { print $9, $17 }' "$work/p1/sites.tsv")" = "rebuild.c:$s1 1/3" ] ||
	fail "u is not the 1st of 3 calls at rebuild.c:$s1: $(cat "$work/p1/sites.tsv")"
[ "$(awk -F'\t' -v id="$R1" '$1 == id { print $9, $17 }' "$work/p1/sites.tsv")" = "rebuild.c:$s1 3/3" ] ||
	fail "r is not the 3rd of 3 calls at rebuild.c:$s1"

# grid alone, and u and v, in the fast pool; r and the rest in the slow one
$TUNE plan make -p 'fast={"pages":"thp"}' -p 'slow={"pages":"4k"}' -d slow \
	-s "$G1=fast" -s "$U1,$V1=fast" -o "$work/plan.json" "$work/p1" 2>/dev/null || fail "plan make"
grep -q "\"alloc_space (rebuild.c:$s1, v: 2nd of 3)\"" "$work/plan.json" ||
	fail "the plan's symbols do not name v: $(cat "$work/plan.json")"
grep -q '"variable": "u"' "$work/plan.json" || fail "no symbolic variable u in the plan"

# 2. the plan does not follow a rebuild by itself: nothing is placed fast
run_build 1 "$work/plan.json" "$work/run1"
for x in grid u v; do expect "$work/run1" $x flags hg; done
expect "$work/run1" r flags nh
run_build 2 "$work/plan.json" "$work/stale"
for x in grid u v r; do expect "$work/stale" $x flags nh; done

# 3. rebased by profiling build 2: every site mapped, each to its own array
$TUNE plan rebase --lib "$LIB" --profile-dir "$work/p2" -o "$work/rebased.json" "$work/plan.json" \
	-- $PREFIX "$work/b2/rebuild" $M 2>"$work/rebase.err" ||
	fail "plan rebase exited $?: $(cat "$work/rebase.err")"
cat "$work/rebase.err"
read -r G2 U2 V2 R2 < <(ids "$work/p2")
for pair in "$G1 $G2" "$U1 $U2" "$V1 $V2"; do
	set -- $pair
	grep -E "^[^ ]+ +$1 +mapped( approximately)? +$2 " "$work/rebase.err" >/dev/null ||
		fail "site $1 is not reported mapped to $2"
done
g1=$(line_of 1 'return malloc') g2=$(line_of 2 'return malloc')
grep -q "rebuild.c: alloc_grid line $g1 -> $g2" "$work/rebase.err" || fail "the report does not say how grid moved"
grep -q "3 of 3 sites mapped (0 exactly, 3 approximately), 0 not found" "$work/rebase.err" ||
	fail "no summary"
got=$(python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))
print(" ".join(s["id"] for g in p["groups"] for s in g["sites"]), p["modules"]["rebuild"]["path"], p["provenance"]["rebased_from"])' \
	"$work/rebased.json") || fail "the rebased plan: $(cat "$work/rebased.json")"
[ "$got" = "$G2 $U2 $V2 $work/b2/rebuild $work/plan.json" ] ||
	fail "rebased plan: sites, module, provenance $got; want $G2 $U2 $V2 $work/b2/rebuild $work/plan.json"
$TUNE plan check -q "$work/rebased.json" || fail "plan check of the rebased plan"

# 4. build 2 under the rebased plan: grid, u and v fast, r not
run_build 2 "$work/rebased.json" "$work/run2"
cat "$work/run2"
for x in grid u v; do
	expect "$work/run2" $x flags hg
	expect_ge "$work/run2" $x thp_kb 1 # THP is best effort: some at least
done
expect "$work/run2" r flags nh

# 5. the PROFILE form: the same plan from the profile build 2 left
$TUNE plan rebase -o "$work/rebased2.json" "$work/plan.json" "$work/p2" 2>"$work/rebase2.err" ||
	fail "plan rebase PLAN PROFILE exited $?: $(cat "$work/rebase2.err")"
diff <(grep '"id"' "$work/rebased.json") <(grep '"id"' "$work/rebased2.json") ||
	fail "the PROFILE form gives other sites"

# 6. a site that cannot be found (its function renamed in the plan): exit 3,
# the rest written, its group (grid alone) dropped
python3 - "$work/plan.json" "$work/edited.json" <<'PY'
import json, sys
import planjson
p = planjson.load(sys.argv[1])
p["groups"][0]["sites"][0]["symbolic"][0]["function"] = "alloc_gone"
json.dump(p, open(sys.argv[2], "w"), indent=2)
PY
$TUNE plan rebase -o "$work/rebased3.json" "$work/edited.json" "$work/p2" 2>"$work/rebase3.err"
rc=$?
cat "$work/rebase3.err"
[ $rc = 3 ] || fail "plan rebase with a lost site exited $rc, want 3"
grep -E "^group1 +$G1 +not found +- +alloc_gone \(rebuild.c:$g1\)" "$work/rebase3.err" >/dev/null ||
	fail "the lost site is not reported not found"
grep -q "group group1: none of its sites was found: dropped" "$work/rebase3.err" || fail "no word of the dropped group"
grep -q "2 of 3 sites mapped (0 exactly, 2 approximately), 1 not found" "$work/rebase3.err" || fail "no summary"
[ "$(grep -c '"id"' "$work/rebased3.json")" = 2 ] && ! grep -q "$G2" "$work/rebased3.json" ||
	fail "the plan with a lost site: $(cat "$work/rebased3.json")"

# 7. a plan of format version 1 has no symbolic frames: one error
cat >"$work/v1.json" <<JSON
{"format": "hmpt-plan", "format_version": 1, "pools": {"fast": {"pages": "thp"}},
 "groups": [{"pool": "fast", "sites": [{"frames": ["rebuild!0x12a9"], "match": "prefix"}]}]}
JSON
$TUNE plan rebase -o "$work/v1-rebased.json" "$work/v1.json" "$work/p2" 2>"$work/v1.err"
rc=$?
[ $rc = 1 ] || fail "a version-1 plan: exit $rc, want 1"
[ "$(wc -l <"$work/v1.err")" = 1 ] && grep -q "v1.json: a plan of format version 1 has no symbolic frames: it cannot be rebased; profile the program again" "$work/v1.err" ||
	fail "a version-1 plan: $(cat "$work/v1.err")"
[ ! -e "$work/v1-rebased.json" ] || fail "a version-1 plan was rebased"
note "rebased: grid $G1 -> $G2, u $U1 -> $U2, v $V1 -> $V2 (alloc_grid line $g1 -> $g2); r stays slow"
