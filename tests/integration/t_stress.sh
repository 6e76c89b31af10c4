. "$(dirname "$0")/lib.sh"
# 4 threads x 250000 operations = a million, every entry point, half of the
# large blocks tracked (HMPT_MIN_SIZE=64K), contents checked by the program
HMPT_MIN_SIZE=64K run_profile "$work/s" "$P/stress" 4 250000 || fail "stress exited with $?"
prof=$work/s/profile.json
live=$(json_total "$prof" live_tracked_bytes)
n=$(json_total "$prof" tracked_allocations)
[ "$live" = 0 ] || fail "tracked bytes leaked: live_tracked_bytes=$live"
[ "$n" -gt 10000 ] || fail "only $n tracked allocations"
note "tracked allocations: $n, live at exit: $live"
