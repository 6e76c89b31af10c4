# Helpers for the placement tests (sourced after lib.sh).

# profile `placed` once to learn the ids of its call sites (they are the
# same in every run: module!offset frames)
learn_sites() { # DIR ARGS...
	local dir=$1; shift
	run_profile "$dir" "$P/placed" "$@" >/dev/null || fail "profiling placed failed"
}

# learn_arrays DIR ARGS...: learn_sites for `placed arrays ARGS`, and A, B,
# C and D set to the ids of its four arrays' sites (B is lib.sh's build
# directory too: call it once everything that needs that is set)
learn_arrays() {
	local dir=$1; shift
	learn_sites "$dir" arrays "$@"
	A=$(site_id "$dir" alloc_a) B=$(site_id "$dir" alloc_b)
	C=$(site_id "$dir" alloc_c) D=$(site_id "$dir" alloc_d)
}

# site_id DIR FUNCTION: the ids of the sites located in FUNCTION, comma-separated
# (a function that allocates from two lines, or is called from two, has two)
site_id() {
	local id
	id=$(awk -F'\t' -v fn="$2" 'NR > 1 && $8 == fn { printf "%s%s", sep, $1; sep = "," }' "$1/sites.tsv")
	[ -n "$id" ] || fail "no site in $2 in $1/sites.tsv"
	echo "$id"
}

# huge_small_plan PLAN DEFAULT ASSIGN: a plan of `placed`'s profile in
# $work/prof with two pools, huge (THP) and small (4 KiB pages): DEFAULT takes
# every site that ASSIGN ("ID,ID=POOL") does not name
huge_small_plan() {
	$TUNE plan make -p 'huge={"pages":"thp"}' -p 'small={"pages":"4k"}' -d "$2" \
		-s "$3" -o "$1" "$work/prof" 2>/dev/null || fail "plan make $1"
}

# one_pool_plan PLAN PROFILE_DIR NAME=POOL_JSON SITES: a plan of one pool,
# named in SITES ("ID,ID=NAME"), every other site in "system"; quiet
one_pool_plan() {
	$TUNE plan make -p "$3" -d system -s "$4" -o "$1" "$2" 2>/dev/null || fail "plan make $1"
}

# field OUT NAME KEY: the value of KEY= on the line of array NAME
field() {
	awk -v n="$2" -v k="$3" '$1 == n { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }' "$1"
}

expect() { # OUT NAME KEY VALUE
	local got; got=$(field "$1" "$2" "$3")
	[ "$got" = "$4" ] || fail "array $2: $3=$got, want $4 ($(grep "^$2 " "$1"))"
}

expect_ge() { # OUT NAME KEY MIN
	local got; got=$(field "$1" "$2" "$3")
	[ -n "$got" ] && [ "$got" -ge "$4" ] || fail "array $2: $3=$got, want at least $4 ($(grep "^$2 " "$1"))"
}

# run_placed PLAN OUT ARGS...: the program under the plan, quiet; stderr in OUT.err
run_placed() {
	local plan=$1 out=$2; shift 2
	HMPT_PLAN=$plan HMPT_PROFILE=$out.profile.json LD_PRELOAD=$LIB $PREFIX "$P/placed" "$@" \
		>"$out" 2>"$out.err" || fail "placed $* under $plan exited $?: $(cat "$out.err")"
}

# placement PROFILE SITE_ID: "pool:allocations:bytes:fallback ..." for the site
placement() {
	python3 - "$1" "$2" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
for s in p["sites"]:
    if s["id"] == sys.argv[2]:
        pl = s.get("placement")
        if not pl:
            print("none"); break
        print(pl["pool"], " ".join("%s:%d:%d:%s" % (x["pool"], x["allocations"], x["bytes"],
              "fallback" if x["fallback"] else "planned") for x in pl["pools"]))
        break
else:
    print("absent")
PY
}
