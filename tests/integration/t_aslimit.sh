. "$(dirname "$0")/lib.sh"
# Under an address-space limit (ulimit -v) the arena reserves nothing at
# start, then what tracked blocks need (at most an eighth of the limit at a
# time), and gives back the free end of its range: a
# program that reserves most of its limit at start runs as it does without
# hmpt (same exit status), blocks beyond the first share are still tracked,
# and when the arena cannot grow they go to the normal allocator, intact.
limit=2097152 # KiB: 2 GiB
# run_pair NAME ARGS...: aslimit with and without the shim under the limit;
# sets rc_glibc rc_hmpt, output in $work/NAME.{glibc,hmpt,err}
run_pair() {
	local name=$1; shift
	( ulimit -v $limit && exec "$P/aslimit" "$@" ) >"$work/$name.glibc" 2>&1
	rc_glibc=$?
	( ulimit -v $limit && HMPT_VERBOSE=1 HMPT_PROFILE=$work/$name.json LD_PRELOAD=$LIB \
		exec "$P/aslimit" "$@" ) >"$work/$name.hmpt" 2>"$work/$name.err"
	rc_hmpt=$?
	note "$name: exit $rc_glibc without hmpt, $rc_hmpt with: $(tail -n 1 "$work/$name.hmpt")"
}

# 1. a program that takes 60 % (then 85 %, 93 %) of its limit at start;
# 96 % was the most that fit without hmpt on Debian 12, and fit with it too
for pct in 60 85 93; do
	run_pair reserve$pct --reserve $pct 4 16
	[ "$rc_hmpt" = "$rc_glibc" ] ||
		fail "--reserve $pct: exit $rc_hmpt under hmpt, $rc_glibc without: $(cat "$work/reserve$pct.hmpt" "$work/reserve$pct.err")"
done
grep -q 'arena 2.00 GiB (RLIMIT_AS: reserved as blocks need it)' "$work/reserve60.err" ||
	fail "the arena's set-up under ulimit -v: $(cat "$work/reserve60.err")"

# 2. 640 MiB of blocks, reserved in several steps: all tracked, quietly
run_pair grow 40 16
[ "$rc_hmpt" = 0 ] || fail "grow exited $rc_hmpt: $(cat "$work/grow.hmpt" "$work/grow.err")"
[ "$(json_total "$work/grow.json" tracked_allocations)" = 40 ] ||
	fail "expected 40 tracked blocks as the arena grows, got $(json_total "$work/grow.json" tracked_allocations)"
! grep -q 'could not track' "$work/grow.err" || fail "a block went untracked: $(cat "$work/grow.err")"

# 2b. the same blocks freed, then 85 % of the limit reserved (a file mapped
# after the buffers are gone): the arena gave its address space back
run_pair giveback --then-reserve 85 40 16
[ "$rc_hmpt" = 0 ] && [ "$rc_glibc" = 0 ] ||
	fail "reserving after freeing: exit $rc_hmpt under hmpt, $rc_glibc without: $(cat "$work/giveback.hmpt" "$work/giveback.err")"

# 3. until the limit refuses: as many blocks as without hmpt (give or take
# the one a failed growth sends to the normal allocator, which then finds
# the same room), the same exit status
run_pair fill --until-null 200 16
got_g=$(sed -n 's/^aslimit: ok //p' "$work/fill.glibc")
got_h=$(sed -n 's/^aslimit: ok //p' "$work/fill.hmpt")
[ "$rc_hmpt" = "$rc_glibc" ] && [ -n "$got_h" ] && [ -n "$got_g" ] && [ "$got_h" -ge $((got_g - 2)) ] ||
	fail "until the limit: $got_h blocks (exit $rc_hmpt) under hmpt, $got_g (exit $rc_glibc) without"

# 4. the arena cannot grow (a page where it would grow): the rest goes to
# the normal allocator, said once, data intact
run_pair blocked --block-next 40 16
[ "$rc_hmpt" = 0 ] || fail "blocked exited $rc_hmpt: $(cat "$work/blocked.hmpt" "$work/blocked.err")"
tracked=$(json_total "$work/blocked.json" tracked_allocations)
untracked=$(json_total "$work/blocked.json" untracked_large)
[ "$tracked" -ge 1 ] && [ "$untracked" -ge 1 ] && [ $((tracked + untracked)) = 40 ] ||
	fail "expected the blocks in the first reservation tracked and the rest not: $tracked tracked, $untracked untracked"
note "blocked: $tracked blocks tracked, $untracked went to the normal allocator"
[ "$(grep -c 'could not track an allocation of 16.0 MiB' "$work/blocked.err")" = 1 ] ||
	fail "expected one message: $(cat "$work/blocked.err")"

# 5. java, which reserves its heap and class space at start, if installed
if command -v java >/dev/null 2>&1; then
	for kib in 4000000 2500000; do
		# in $work: a JVM that cannot start may write hs_err_pid*.log
		( cd "$work" && ulimit -v $kib && exec java -Xmx1g -version ) >/dev/null 2>&1
		a=$?
		( cd "$work" && ulimit -v $kib && LD_PRELOAD=$LIB exec java -Xmx1g -version ) >"$work/java.out" 2>&1
		b=$?
		note "java -Xmx1g -version under ulimit -v $kib: exit $a without hmpt, $b with"
		[ "$a" = "$b" ] || fail "java under ulimit -v $kib: exit $b under hmpt, $a without: $(tail -n 3 "$work/java.out")"
	done
else
	note "java is not installed: its check is left out"
fi
echo "ok"
