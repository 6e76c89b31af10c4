. "$(dirname "$0")/lib.sh"
# The benchmark's stress mix (bench/stress_mix.c: 64 live blocks per thread,
# malloc/calloc/realloc across the 1 MiB threshold/posix_memalign/
# aligned_alloc/free, 1 op in 16 of 1-8 MiB, every byte checked before a
# block is freed or moved), short, 2 threads: under a profiling run (the
# profile read back by the ASan/UBSan build of hmpt-tune), under plans with
# 4 KiB and THP pools, and with page-fault sampling.  No corruption, no
# failed allocation, nothing tracked left live.
#
# Not under ASan itself: ASan's interceptors replace the malloc family of
# the program they instrument, so a preloaded allocator is never reached;
# the shim's own logic runs under ASan in the unit tests (test_arena).
MIX=$B/bench/stress_mix
[ -x "$MIX" ] || fail "no $MIX (make bench-build)"
ASAN_TUNE=$B/asan/hmpt-tune
[ -x "$ASAN_TUNE" ] || fail "no ASan build of hmpt-tune"
check_out() { # NAME FILE
	grep -q ' corrupt 0 failed 0 ' "$2" || fail "$1: $(cat "$2")"
	note "$1: $(cat "$2")"
}

LD_PRELOAD=$LIB "$MIX" 2 1500 >"$work/n.out" 2>"$work/n.err" ||
	fail "nothing asked: exit $?: $(cat "$work/n.out" "$work/n.err")"
check_out "nothing asked" "$work/n.out"
[ ! -s "$work/n.err" ] || fail "nothing asked, yet it said: $(cat "$work/n.err")"

run_profile "$work/p" "$MIX" 2 1500 >"$work/p.out" || fail "profiling run exited with $?: $(cat "$work/p.out")"
check_out "profiled" "$work/p.out"
prof=$work/p/profile.json
[ "$(json_total "$prof" live_tracked_bytes)" = 0 ] || fail "tracked bytes leaked"
n=$(json_total "$prof" tracked_allocations)
[ "$n" -gt 50 ] || fail "only $n tracked allocations"
$ASAN_TUNE show "$work/p" >"$work/show" || fail "the ASan hmpt-tune cannot show the profile"

for pages in 4k thp; do
	printf '{"format":"hmpt-plan","format_version":2,"pools":{"p":{"pages":"%s"}},"default_pool":"p","groups":[]}\n' \
		$pages >"$work/$pages.json"
	HMPT_PLAN=$work/$pages.json LD_PRELOAD=$LIB "$MIX" 2 1500 >"$work/$pages.out" 2>"$work/$pages.err" ||
		fail "all $pages: exit $?: $(cat "$work/$pages.out" "$work/$pages.err")"
	check_out "all $pages" "$work/$pages.out"
	[ ! -s "$work/$pages.err" ] || fail "all $pages said: $(cat "$work/$pages.err")"
done

$TUNE profile -q -s faults --lib "$LIB" -o "$work/f" -- "$MIX" 2 1500 >"$work/f.out" ||
	fail "sampled run exited with $?: $(cat "$work/f.out")"
check_out "page-fault sampling" "$work/f.out"
