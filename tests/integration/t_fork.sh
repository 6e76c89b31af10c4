. "$(dirname "$0")/lib.sh"
# fork without exec (children _exit(5) and exit(6)), fork+exec of alloc_pthread
run_profile "$work/f" "$P/forker" "$P/alloc_pthread" >"$work/out" || fail "forker exited with $?"
grep -q 'forker: ok' "$work/out" || fail "forker did not finish"
n=$(ls "$work/f"/profile.*.json | grep -vc 'profile.json$')
[ "$n" = 4 ] || fail "expected 4 per-process profiles (parent, 2 children, exec'ed program), got $n"
grep -l '"forked": true' "$work/f"/profile.[0-9]*.json | wc -l | grep -qx 2 ||
	fail "expected 2 profiles of fork children"
# each child's profile counts only its own allocations
for f in $(grep -l '"forked": true' "$work/f"/profile.[0-9]*.json); do
	b=$(json_total "$f" tracked_bytes)
	case $b in 3145728 | 5242880) ;; *) fail "$f: child tracked $b bytes, expected 3 MiB or 5 MiB" ;; esac
done
grep -q 'alloc_pthread' "$work/f/profile.json" || fail "the exec'ed program's profile was not merged"
# without %p in the pattern, fork children append their pid
HMPT_PROFILE=$work/nopid.json LD_PRELOAD=$LIB "$P/forker" >/dev/null || fail "forker failed"
[ -f "$work/nopid.json" ] || fail "no parent profile at the plain name"
[ "$(ls "$work"/nopid.json.* | wc -l)" = 2 ] || fail "children did not write nopid.json.<pid>"
