. "$(dirname "$0")/lib.sh"
# No state survives a free: glibc unmaps a large block when it is freed, so
# nothing the program did to it (protection, protection keys, advice, guard
# regions, locks, pages moved or unmapped) reaches the next block; hmpt keeps
# the freed granules for reuse and must give the next block a mapping as
# fresh.  Each mode of afterfree sets one such state on a tracked block of
# 8 MiB, frees it, allocates the size again (calloc, malloc), writes it,
# forks (the child prints what it reads) and reallocs it: exit status and
# output, the child's view included, are the same under glibc and hmpt.
modes="mprotect pkey dontfork wipeonfork guard dontdump mergeable hugepage nohugepage free mlock
mremap munmap none"
ran=0 differ="" unseen=""
for m in $modes; do
	"$P/afterfree" "$m" >"$work/$m.glibc" 2>&1
	rc_glibc=$?
	if [ "$rc_glibc" = 77 ]; then # the kernel refuses the state itself
		note "$m: skipped, $(tail -n 1 "$work/$m.glibc")"
		continue
	fi
	HMPT_MIN_SIZE=1M HMPT_VERBOSE=2 LD_PRELOAD=$LIB "$P/afterfree" "$m" >"$work/$m.hmpt" 2>"$work/$m.err"
	rc_hmpt=$?
	ran=$((ran + 1))
	grep -q '^hmpt: track 8.00 MiB' "$work/$m.err" || fail "$m: the block was not tracked: $(cat "$work/$m.err")"
	if [ "$rc_hmpt" != "$rc_glibc" ] || ! cmp -s "$work/$m.glibc" "$work/$m.hmpt"; then
		note "$m: exit $rc_hmpt under hmpt, $rc_glibc without; output (< glibc, > hmpt):"
		diff "$work/$m.glibc" "$work/$m.hmpt"
		differ="$differ $m"
		continue
	fi
	# hmpt's own mappings and advice mark nothing; the program's calls do
	if [ "$m" = none ]; then
		! grep -q 'on tracked memory' "$work/$m.err" || fail "none: hmpt marked its own calls: $(cat "$work/$m.err")"
	elif ! grep -q 'on tracked memory' "$work/$m.err"; then
		unseen="$unseen $m"
	fi
	note "$m: exit $rc_hmpt, $(grep -c . "$work/$m.hmpt") lines, the same as glibc's"
done
[ -z "$differ" ] || fail "not as under glibc:$differ"
[ -z "$unseen" ] || fail "the program's call was not seen:$unseen"
[ "$ran" -ge 11 ] || fail "only $ran modes ran"

# Under a plan whose pool advises huge pages, the pool's own madvise on
# every block marks nothing (a malloc/free loop), and a block the program
# advised otherwise is freed into one with the plan's advice again.
cat >"$work/plan.json" <<'EOF'
{"format": "hmpt-plan", "format_version": 2, "modules": {},
 "pools": {"thp": {"pages": "thp"}}, "default_pool": "thp", "groups": []}
EOF
for m in none nohugepage hugepage; do
	HMPT_MIN_SIZE=1M HMPT_VERBOSE=2 HMPT_PLAN=$work/plan.json LD_PRELOAD=$LIB "$P/afterfree" "$m" \
		>"$work/$m.plan" 2>"$work/$m.plan.err" || fail "$m under the plan: exit $?: $(cat "$work/$m.plan.err")"
	grep -v -e ': set$' -e ': done$' "$work/$m.plan" >"$work/$m.plan.body"
done
grep -q 'default pool thp' "$work/none.plan.err" || fail "the plan was not read: $(cat "$work/none.plan.err")"
! grep -q 'on tracked memory' "$work/none.plan.err" ||
	fail "the pool's advice marked the blocks: $(cat "$work/none.plan.err")"
for m in nohugepage hugepage; do
	cmp -s "$work/none.plan.body" "$work/$m.plan.body" ||
		fail "$m under the plan (< nothing set, > $m): $(diff "$work/none.plan.body" "$work/$m.plan.body")"
done
note "under a plan: the pool's advice marks nothing, the program's is not inherited"
