. "$(dirname "$0")/lib.sh"
# When the arena is full, blocks go to the normal allocator: the program runs
# as before, hmpt says so once, and the profile counts what it could not track.
HMPT_ARENA_SIZE=1G HMPT_PROFILE=$work/f.json LD_PRELOAD=$LIB "$P/many" 700 >"$work/out" 2>"$work/err" ||
	fail "many exited with $?"
grep -q 'many: ok' "$work/out" || fail "many did not finish"
[ "$(grep -c '^hmpt:' "$work/err")" = 1 ] || fail "expected one message: $(cat "$work/err")"
grep -q 'could not track an allocation of 1.00 MiB' "$work/err" || fail "message: $(cat "$work/err")"
[ "$(json_total "$work/f.json" tracked_allocations)" = 512 ] || fail "expected 512 tracked (1 GiB of 2 MiB granules)"
[ "$(json_total "$work/f.json" untracked_large)" = 188 ] || fail "expected 188 untracked"
[ "$(json_total "$work/f.json" live_tracked_bytes)" = 0 ] || fail "tracked bytes leaked"
# address-space limits: t_aslimit.sh
