. "$(dirname "$0")/lib.sh"
# freed pages kept for reuse never leak into calloc; realloc moves keep data
HMPT_PROFILE=$work/r.json LD_PRELOAD=$LIB "$P/reuse" >"$work/out" || fail "reuse exited with $?"
grep -q 'reuse: ok' "$work/out" || fail "reuse did not finish"
[ "$(json_total "$work/r.json" tracked_allocations)" = 200 ] || fail "expected 200 tracked allocations"
[ "$(json_total "$work/r.json" live_tracked_bytes)" = 0 ] || fail "tracked bytes leaked"
