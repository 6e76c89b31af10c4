. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/place_common.sh"
. "$(dirname "$0")/rebuild_common.sh"; . "$(dirname "$0")/tune_common.sh"
# A plan that no longer fits its program is said, never silent: a module
# built otherwise than the plan's (build id) is named with the way out (plan
# rebase), and at exit the plan's groups that matched no allocation are
# named, once per process tree (fork children included); the program's output
# and exit status stay as they were; the profile counts what each group
# matched; hmpt-tune compare refuses to time a plan that placed nothing or
# failed to load.  (MPI: once per job, in t_mpi.)
need_thp
rebuild_build "$work/b1" 1
rebuild_build "$work/b2" 2
run_profile "$work/prof" "$work/b1/rebuild" >/dev/null || fail "profiling build 1"

# grid, and u: the first of the three calls of alloc_space's one statement
read -r G U V R < <(python3 - "$work/prof/profile.json" <<'PY'
import json, sys
sites = json.load(open(sys.argv[1]))["sites"]
off = lambda s: int(s["frames"][0].split("!0x")[1], 16)
grid = [s for s in sites if s["bytes"] == 16 << 20]
space = sorted((s for s in sites if s["bytes"] == 8 << 20), key=off)
assert len(grid) == 1 and len(space) == 3, [(s["id"], s["bytes"]) for s in sites]
print(grid[0]["id"], *(s["id"] for s in space))
PY
)
plan=$work/plan.json
$TUNE plan make -p 'fast={"pages":"thp"}' -p 'slow={"pages":"4k"}' -d slow -s "$G,$U=fast" \
	-o "$plan" "$work/prof" 2>/dev/null || fail "plan make"
bid() { readelf -n "$1" | awk '/Build ID:/ { print $3 }'; }
id1=$(bid "$work/b1/rebuild") id2=$(bid "$work/b2/rebuild")
[ -n "$id1" ] && [ -n "$id2" ] && [ "$id1" != "$id2" ] || fail "build ids '$id1' and '$id2'"
note "plan: grid $G and u $U in fast (thp), the rest slow (4k); build ids ${id1:0:8} and ${id2:0:8}"

# groups PROFILE: "name:sites:sites_matched:allocations:bytes ..." and the mismatches
groups() {
	python3 - "$1" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["plan"]
print(" ".join("%s:%d:%d:%d:%d" % (g["name"], g["sites"], g["sites_matched"], g["allocations"],
                                   g["bytes"]) for g in p["groups"]),
      " ".join("%s:%s:%s" % (m["module"], m["plan_build_id"], m["build_id"])
               for m in p["build_mismatches"]) or "-")
PY
}
exitline="matched no allocation: was the program rebuilt or its libraries updated?"

# 1. build 2 under build 1's plan: both lines, the program as it was
HMPT_PLAN=$plan HMPT_PROFILE=$work/run2.json LD_PRELOAD=$LIB "$work/b2/rebuild" >"$work/run2" \
	2>"$work/run2.err"
rc=$?
[ $rc = 0 ] || fail "build 2 under the plan exited $rc: $(cat "$work/run2.err")"
"$work/b2/rebuild" >"$work/bare2" || fail "build 2 alone"
[ "$(cut -d' ' -f1,2 "$work/run2")" = "$(cut -d' ' -f1,2 "$work/bare2")" ] ||
	fail "build 2's output changed: $(cat "$work/run2")"
for x in grid u v r; do expect "$work/run2" $x flags nh; done # the default pool, slow
cat "$work/run2.err"
grep -qxF "hmpt: $plan was made for rebuild with build id ${id1:0:8}..., this one has ${id2:0:8}...: its sites may not match; 'hmpt-tune plan rebase $plan -- CMD' moves the plan onto this build" \
	"$work/run2.err" || fail "no build-id line: $(cat "$work/run2.err")"
grep -qxF "hmpt: $plan placed nothing: group group1 (2 sites) $exitline" "$work/run2.err" ||
	fail "no exit line: $(cat "$work/run2.err")"
[ "$(wc -l <"$work/run2.err")" = 2 ] || fail "the shim said more: $(cat "$work/run2.err")"
[ "$(groups "$work/run2.json")" = "group1:2:0:0:0 rebuild:$id1:$id2" ] ||
	fail "build 2's profile: $(groups "$work/run2.json")"
note "build 2: the build-id line, the exit line, output and status intact; profile: $(groups "$work/run2.json")"

# 2. build 1 under its own plan: silent, and placed
HMPT_PLAN=$plan HMPT_PROFILE=$work/run1.json LD_PRELOAD=$LIB "$work/b1/rebuild" >"$work/run1" \
	2>"$work/run1.err" || fail "build 1 under the plan: $(cat "$work/run1.err")"
[ ! -s "$work/run1.err" ] || fail "the shim spoke under a plan that fits: $(cat "$work/run1.err")"
expect "$work/run1" grid flags hg
expect "$work/run1" u flags hg
expect "$work/run1" v flags nh
expect "$work/run1" r flags nh
[ "$(groups "$work/run1.json")" = "group1:2:2:2:$((24 << 20)) -" ] ||
	fail "build 1's profile: $(groups "$work/run1.json")"
note "build 1: silent; grid and u hg, v and r nh; profile: $(groups "$work/run1.json")"

# 2b. build 1 renamed (the same build): the plan names it by its old name,
# so nothing can match; said at start (same build id, another name) and at
# exit (none of the plan's modules loaded); build 2 renamed: the exit line
cp "$work/b1/rebuild" "$work/b1/rebuild2" && cp "$work/b2/rebuild" "$work/b2/rebuild3" ||
	fail "copying the builds"
unloaded="placed nothing: its sites name rebuild, which this program did not load: was it renamed, or is this another program?"
HMPT_PLAN=$plan LD_PRELOAD=$LIB "$work/b1/rebuild2" >"$work/runr" 2>"$work/runr.err"
rc=$?
[ $rc = 0 ] || fail "rebuild2 under the plan exited $rc: $(cat "$work/runr.err")"
"$work/b1/rebuild" >"$work/bare1" || fail "build 1 alone"
[ "$(cut -d' ' -f1,2 "$work/runr")" = "$(cut -d' ' -f1,2 "$work/bare1")" ] ||
	fail "rebuild2's output changed: $(cat "$work/runr")"
cat "$work/runr.err"
[ "$(cat "$work/runr.err")" = "hmpt: $plan names rebuild, loaded here as rebuild2 (the same build): its sites name rebuild; rename it back, or make the plan again
hmpt: $plan $unloaded" ] || fail "rebuild2: $(cat "$work/runr.err")"
HMPT_PLAN=$plan LD_PRELOAD=$LIB "$work/b2/rebuild3" >"$work/runr3" 2>"$work/runr3.err"
rc=$?
[ $rc = 0 ] || fail "rebuild3 under the plan exited $rc: $(cat "$work/runr3.err")"
[ "$(cat "$work/runr3.err")" = "hmpt: $plan $unloaded" ] || fail "rebuild3: $(cat "$work/runr3.err")"
note "renamed: the same build named with the way out, and the exit line; another build renamed: the exit line"

# a plan from a profile of another stack depth compares stacks that deep
# (it once kept the default depth when read after start-up: matched nothing)
$TUNE profile -q --lib "$LIB" --depth 2 -o "$work/prof2" -- "$work/b1/rebuild" >/dev/null ||
	fail "profiling build 1 at depth 2"
$TUNE plan make -p 'fast={"pages":"thp"}' -s "$(site_id "$work/prof2" alloc_grid)=fast" \
	-o "$work/depth2.json" "$work/prof2" 2>/dev/null || fail "plan make (depth 2)"
grep -q '"stack_depth": 2' "$work/depth2.json" || fail "no stack_depth 2 in the plan"
HMPT_PLAN=$work/depth2.json LD_PRELOAD=$LIB "$work/b1/rebuild" >"$work/rund" 2>"$work/rund.err" ||
	fail "build 1 under the depth-2 plan"
[ ! -s "$work/rund.err" ] || fail "depth 2: the shim spoke: $(cat "$work/rund.err")"
expect "$work/rund" grid flags hg

# 3. build 1, a plan with sites that never allocate (an edited offset): the
# exit line names the whole group and the part of the other, no build-id line
python3 - "$plan" "$work/prof/profile.json" "$V" "$R" >"$work/edited.json" <<'PY'
import json, sys
import planjson
p = planjson.load(sys.argv[1])
sites = {s["id"]: s for s in json.load(open(sys.argv[2]))["sites"]}
def edited(s, delta):  # the frames of a build that never was: no id to check
    m, off = s["frames"][0].split("!0x")
    return {"frames": ["%s!0x%x" % (m, int(off, 16) + delta)] + s["frames"][1:]}
grid = p["groups"][0]["sites"][0]
part = [{"frames": sites[i]["frames"]} for i in sys.argv[3:5]] + [edited(grid, 0x10000)]
p["groups"] += [{"name": "part", "pool": "slow", "sites": part},
                {"name": "gone", "pool": "fast", "sites": [edited(grid, 0x20000)]}]
print(json.dumps(p, indent=1))
PY
[ $? = 0 ] || fail "editing the plan"
HMPT_PLAN=$work/edited.json HMPT_PROFILE=$work/run3.json LD_PRELOAD=$LIB "$work/b1/rebuild" \
	>"$work/run3" 2>"$work/run3.err" || fail "build 1 under the edited plan: $(cat "$work/run3.err")"
cat "$work/run3.err"
[ "$(cat "$work/run3.err")" = "hmpt: $work/edited.json: 1 of 3 sites of group part and group gone (1 site) $exitline" ] ||
	fail "the edited plan's exit line: $(cat "$work/run3.err")"
expect "$work/run3" grid flags hg
[ "$(groups "$work/run3.json")" = "group1:2:2:2:$((24 << 20)) part:3:2:2:$((16 << 20)) gone:1:0:0:0 -" ] ||
	fail "the edited plan's profile: $(groups "$work/run3.json")"
note "edited offsets: $(groups "$work/run3.json")"

# 4. the _exit path says it too, and the status stays the program's
printf '{"format":"hmpt-plan","format_version":2,"pools":{"p":{"pages":"4k"}},"groups":[{"name":"old","pool":"p","sites":[{"frames":["exits!0x1"]}]}]}' >"$work/exits.json"
HMPT_PLAN=$work/exits.json LD_PRELOAD=$LIB "$P/exits" _exit 7 >/dev/null 2>"$work/run4.err"
rc=$?
[ $rc = 7 ] || fail "exits _exit 7 under a stale plan exited $rc"
[ "$(cat "$work/run4.err")" = "hmpt: $work/exits.json placed nothing: group old (1 site) $exitline" ] ||
	fail "_exit: $(cat "$work/run4.err")"
# a wrapper that never reads the plan says nothing
HMPT_PLAN=$work/exits.json LD_PRELOAD=$LIB sh -c 'exit 3' 2>"$work/run5.err"
[ $? = 3 ] && [ ! -s "$work/run5.err" ] || fail "a wrapper spoke: $(cat "$work/run5.err")"
note "_exit 7: status 7 and the exit line; sh -c: silent"

# a library loaded later (dlopen) is checked when a site in it is first decided
lid=$(bid "$P/libhmpt_testlib.so")
[ -n "$lid" ] || fail "libhmpt_testlib.so has no build id"
printf '{"format":"hmpt-plan","format_version":2,"modules":{"libhmpt_testlib.so":{"build_id":"0123456789abcdef0123456789abcdef01234567"}},"pools":{"p":{"pages":"4k"}},"groups":[]}' >"$work/lib.json"
HMPT_PLAN=$work/lib.json LD_PRELOAD=$LIB "$P/dlopen_main" "$P/libhmpt_testlib.so" >/dev/null \
	2>"$work/runl.err" || fail "dlopen_main under the plan: $(cat "$work/runl.err")"
[ "$(cat "$work/runl.err")" = "hmpt: $work/lib.json was made for libhmpt_testlib.so with build id 01234567..., this one has ${lid:0:8}...: its sites may not match; 'hmpt-tune plan rebase $work/lib.json -- CMD' moves the plan onto this build" ] ||
	fail "dlopen: $(cat "$work/runl.err")"
note "dlopen: the library's build-id line"

# 5. fork children: what they match counts, and the line is said once
run_profile "$work/fp" "$P/forker" >/dev/null || fail "profiling forker"
kids=$(awk -F'\t' 'NR > 1 && ($2 == 3145728 || $2 == 5242880) { printf "%s%s", s, $1; s = "," }' "$work/fp/sites.tsv")
[ "$(tr , '\n' <<<"$kids" | wc -l)" = 2 ] || fail "forker's children's sites: $(cat "$work/fp/sites.tsv")"
$TUNE plan make -p 'fast={"pages":"thp"}' -s "$kids=fast" -o "$work/fork.json" "$work/fp" 2>/dev/null ||
	fail "plan make (forker)"
python3 - "$work/fork.json" <<'PY' || fail "editing the forker plan"
import json, sys
import planjson
p = planjson.load(sys.argv[1])
p["groups"].append({"name": "gone", "pool": "fast", "sites": [{"frames": ["forker!0x1"]}]})
json.dump(p, open(sys.argv[1], "w"))
PY
HMPT_PLAN=$work/fork.json LD_PRELOAD=$LIB "$P/forker" >"$work/run6" 2>"$work/run6.err" ||
	fail "forker under the plan: $(cat "$work/run6.err")"
grep -q 'forker: ok' "$work/run6" || fail "forker did not finish"
[ "$(cat "$work/run6.err")" = "hmpt: $work/fork.json: group gone (1 site) $exitline" ] ||
	fail "forker: want one line naming gone only: $(cat "$work/run6.err")"
note "forker: the children's sites count; one line, for gone"

# 6. hmpt-tune compare: a plan that placed nothing, or failed to load, is not timed
$TUNE compare --lib "$LIB" -r 2 "$plan" "$plan" -- "$work/b2/rebuild" >"$work/c1" 2>&1
rc=$?
[ $rc = 3 ] || fail "compare under a stale plan exited $rc: $(cat "$work/c1")"
grep -qF "$plan: placed nothing in $work/b2/rebuild: no site of it matched an allocation" "$work/c1" ||
	fail "compare said: $(cat "$work/c1")"
$TUNE compare --lib "$LIB" -r 2 "$plan" "$work/missing.json" -- "$work/b1/rebuild" >"$work/c2" 2>&1
rc=$?
[ $rc = 3 ] && grep -qF "$work/missing.json: failed to load: " "$work/c2" ||
	fail "compare with a missing plan exited $rc: $(cat "$work/c2")"
printf '{"format":"hmpt-plan","format_version":2,"pools":{"far":{"nodes":"63"}},"default_pool":"far","groups":[]}' >"$work/far.json"
$TUNE compare --lib "$LIB" -r 2 "$plan" "$work/far.json" -- "$work/b1/rebuild" >"$work/c3" 2>&1
rc=$?
[ $rc = 3 ] && grep -qF "$work/far.json: failed to load in $work/b1/rebuild: the shim could not use it" "$work/c3" ||
	fail "compare with a plan the shim refuses exited $rc: $(cat "$work/c3")"
$TUNE compare --lib "$LIB" -r 2 "$plan" "$plan" -- "$work/b1/rebuild" >"$work/c4" 2>&1 ||
	fail "compare of a plan that fits exited $?: $(cat "$work/c4")"
note "compare: placed nothing, missing, refused by the shim: status 3; a plan that fits: 0"
