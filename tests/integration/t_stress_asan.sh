. "$(dirname "$0")/lib.sh"
# the tuner side under ASan/UBSan: profile, merge and report the stress run
TUNE=$B/asan/hmpt-tune
[ -x "$TUNE" ] || fail "no ASan build of hmpt-tune"
HMPT_MIN_SIZE=64K run_profile "$work/s" "$P/stress" 4 60000 || fail "stress exited with $?"
[ "$(json_total "$work/s/profile.json" live_tracked_bytes)" = 0 ] || fail "tracked bytes leaked"
$TUNE show -v "$work/s" >"$work/show" || fail "show failed"
$TUNE show --format tsv "$work/s" | cmp - "$work/s/sites.tsv" || fail "show --format tsv differs from sites.tsv"
