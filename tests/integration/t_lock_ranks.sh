. "$(dirname "$0")/lib.sh"
# The lock order (common/lockrank.h) on the shim's real paths.  The UBSan
# build of the shim checks every take (-DHMPT_LOCK_RANKS) and aborts with
# one line naming both locks on an inversion (test_lockrank shows that it
# does); the release build has no check at all (its takes are the plain
# pthread calls, inlined).  Under the checking shim, the tests whose paths
# nest most: fork, whose prepare takes every lock in rank order (t_fork,
# and t_place_file's file pools copied for the child), page-fault sampling
# (t_sample_faults: the sample lock over the arena's), a job's shared
# accounts (t_job_segment, t_mpi: its lock under the pools lock), blocks
# split between pools and reused (t_place_split, t_reuse), and threads at
# every entry point under a profile with sampling (stress, here: t_stress
# itself counts the UBSan runtime's own libstdc++ pool as a leak).
# hmpt-test: timeout=600
UB=$B/ubsan/libhmpt.so
[ -f "$UB" ] || fail "no $UB (make check builds it)"
nm "$UB" | grep -qw hmpt_lock_take || fail "$UB does not check the lock order"
! nm "$LIB" | grep -q 'hmpt_lock_' || fail "$LIB has lock-order code: $(nm "$LIB" | grep hmpt_lock_)"

for t in t_fork t_place_file t_sample_faults t_job_segment t_mpi t_place_split t_reuse; do
	HMPT_TEST_LIB=$UB bash "$top/tests/integration/$t.sh" >"$work/$t.out" 2>&1
	rc=$?
	grep -h 'lock order' "$work/$t.out" >&2
	case $rc in
	0) note "$t under the checking shim: passed" ;;
	77) note "$t under the checking shim: $(tail -n 1 "$work/$t.out")" ;;
	*) fail "$t under the checking shim: exit $rc: $(tail -n 5 "$work/$t.out")" ;;
	esac
done

HMPT_MIN_SIZE=64K $TUNE profile -q -s faults --lib "$UB" -o "$work/s" -- $PREFIX "$P/stress" 4 60000 \
	>"$work/s.out" 2>&1 || fail "stress under the checking shim: exit $?: $(tail -n 5 "$work/s.out")"
grep -q 'stress: 4 threads x 60000 operations: ok' "$work/s.out" || fail "stress: $(cat "$work/s.out")"
! grep -q 'lock order' "$work/s.out" || fail "stress: $(grep 'lock order' "$work/s.out")"
[ "$(json_total "$work/s/profile.json" tracked_allocations)" -gt 1000 ] || fail "stress: too few tracked"
