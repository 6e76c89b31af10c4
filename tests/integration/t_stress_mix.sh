. "$(dirname "$0")/lib.sh"
# The benchmark's stress mix (bench/stress_mix.c: 64 live blocks per thread,
# malloc/calloc/realloc across the 1 MiB threshold/posix_memalign/
# aligned_alloc/free, 1 op in 16 of 1-8 MiB, every byte checked before a
# block is freed or moved), short, 2 threads: under a profiling run (the
# profile read back by the ASan/UBSan build of hmpt-tune), under plans with
# 4 KiB and THP pools, and with page-fault sampling.  No corruption, no
# failed allocation, nothing tracked left live.
#
# Then all of it again with the shim built under UBSan (build/ubsan/
# libhmpt.so: any undefined behaviour on its paths stops the program).  Not
# under ASan: ASan's interceptors replace the malloc family of the program
# they instrument, so a preloaded allocator is never reached; the shim's own
# logic runs under ASan in the unit tests (test_arena, test_placer...).
MIX=$B/bench/stress_mix
UBSAN_LIB=$B/ubsan/libhmpt.so
[ -f "$UBSAN_LIB" ] || fail "no $UBSAN_LIB (make check builds it)"
[ -x "$MIX" ] || fail "no $MIX (make bench-build)"
ASAN_TUNE=$B/asan/hmpt-tune
[ -x "$ASAN_TUNE" ] || fail "no ASan build of hmpt-tune"
check_out() { # NAME FILE
	grep -q ' corrupt 0 failed 0 ' "$2" || fail "$1: $(cat "$2")"
	note "$1: $(cat "$2")"
}

mix_runs() { # LIB NAME
	LD_PRELOAD=$1 "$MIX" 2 1500 >"$work/$2.n.out" 2>"$work/$2.n.err" ||
		fail "nothing asked: exit $?: $(cat "$work/$2.n.out" "$work/$2.n.err")"
	check_out "$2: nothing asked" "$work/$2.n.out"
	[ ! -s "$work/$2.n.err" ] || fail "nothing asked, yet it said: $(cat "$work/$2.n.err")"

	$TUNE profile -q --lib "$1" -o "$work/$2.p" -- "$MIX" 2 1500 >"$work/$2.p.out" ||
		fail "profiling run exited with $?: $(cat "$work/$2.p.out")"
	check_out "$2: profiled" "$work/$2.p.out"
	prof=$work/$2.p/profile.json
	[ "$(json_total "$prof" live_tracked_bytes)" = 0 ] || fail "tracked bytes leaked"
	n=$(json_total "$prof" tracked_allocations)
	[ "$n" -gt 50 ] || fail "only $n tracked allocations"
	$ASAN_TUNE show "$work/$2.p" >"$work/$2.show" || fail "the ASan hmpt-tune cannot show the profile"

	for pages in 4k thp; do
		printf '{"format":"hmpt-plan","format_version":2,"pools":{"p":{"pages":"%s"}},"default_pool":"p","groups":[]}\n' \
			$pages >"$work/$2.$pages.json"
		HMPT_PLAN=$work/$2.$pages.json LD_PRELOAD=$1 "$MIX" 2 1500 >"$work/$2.$pages.out" 2>"$work/$2.$pages.err" ||
			fail "all $pages: exit $?: $(cat "$work/$2.$pages.out" "$work/$2.$pages.err")"
		check_out "$2: all $pages" "$work/$2.$pages.out"
		[ ! -s "$work/$2.$pages.err" ] || fail "all $pages said: $(cat "$work/$2.$pages.err")"
	done

	$TUNE profile -q -s faults --lib "$1" -o "$work/$2.f" -- "$MIX" 2 1500 >"$work/$2.f.out" ||
		fail "sampled run exited with $?: $(cat "$work/$2.f.out")"
	check_out "$2: page-fault sampling" "$work/$2.f.out"
}
mix_runs "$LIB" shim
mix_runs "$UBSAN_LIB" ubsan
