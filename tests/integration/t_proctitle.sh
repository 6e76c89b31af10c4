. "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/place_common.sh"
# A program that sets its process title (redis, nginx, postgres) zeroes and
# rewrites the area that held argv and the environment, HMPT_* included:
# hmpt read its settings at start and keeps its profile, plan and command
# line regardless.

# the site's id, from a run that leaves its title alone
run_profile "$work/prof" "$P/proctitle" plain 0 >/dev/null || fail "profiling proctitle plain"
A=$(site_id "$work/prof" alloc_block)

# site_bytes PROFILE ID: the bytes the profile has for the site
site_bytes() {
	python3 -c 'import json, sys
print(sum(s["bytes"] for s in json.load(open(sys.argv[1]))["sites"] if s["id"] == sys.argv[2]))' "$1" "$2"
}
cmdline() { python3 -c 'import json, sys; print(*json.load(open(sys.argv[1]))["process"]["cmdline"])' "$1"; }

# 1. the profile at the path HMPT_PROFILE gave, with the block's site and
# the command line as it was run; the exit status kept; nothing said
HMPT_PROFILE=$work/p1.json LD_PRELOAD=$LIB $PREFIX "$P/proctitle" title 3 >"$work/run1" 2>"$work/run1.err"
rc=$?
[ $rc = 3 ] || fail "proctitle title 3 exited with $rc: $(cat "$work/run1.err")"
[ ! -s "$work/run1.err" ] || fail "the shim was not quiet: $(cat "$work/run1.err")"
[ -f "$work/p1.json" ] || fail "no profile at $work/p1.json"
[ "$(site_bytes "$work/p1.json" "$A")" = $((8 << 20)) ] ||
	fail "profile has $(site_bytes "$work/p1.json" "$A") bytes for site $A, want 8 MiB"
[ "$(cmdline "$work/p1.json")" = "$P/proctitle title 3" ] ||
	fail "profile's cmdline is '$(cmdline "$work/p1.json")'"

# 2. through hmpt-tune profile
run_profile "$work/prof2" "$P/proctitle" title 0 >/dev/null || fail "hmpt-tune profile proctitle title"
[ "$(site_id "$work/prof2" alloc_block)" = "$A" ] || fail "hmpt-tune profile lost the site"

# 3. a plan (read at the first tracked request, after the title was set):
# the block placed as planned, both ways, and nothing said.  Only this part
# needs 2 MiB pages granted: 1 and 2 hold on any machine
need_thp
for want in huge:hg small:nh; do
	pool=${want%:*} flags=${want#*:}
	other=small; [ "$pool" = small ] && other=huge
	huge_small_plan "$work/plan-$pool.json" "$other" "$A=$pool"
	out=$work/run-$pool
	HMPT_PLAN=$work/plan-$pool.json HMPT_PROFILE=$out.profile.json LD_PRELOAD=$LIB $PREFIX \
		"$P/proctitle" title 5 >"$out" 2>"$out.err"
	rc=$?
	[ $rc = 5 ] || fail "proctitle under plan $pool exited with $rc: $(cat "$out.err")"
	[ ! -s "$out.err" ] || fail "the shim was not quiet with plan $pool: $(cat "$out.err")"
	expect "$out" A flags "$flags"
	[ "$(placement "$out.profile.json" "$A")" = "$pool $pool:1:$((8 << 20)):planned" ] ||
		fail "profile placement of the block: $(placement "$out.profile.json" "$A")"
done
note "settings kept across the title: profile, cmdline, plan (thp and 4k)"
