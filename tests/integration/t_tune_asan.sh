. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tune_common.sh"
# The tuner under ASan/UBSan (leaks included): a whole tuning with a
# configuration that crashes, its plots and results; the same command again
# reads the finished journal (6 ranking runs, 10 of the combinations: 3 x 2
# and all-slow 2 x 2) and prints
# the same summary; then compare.
TUNE=$B/asan/hmpt-tune
[ -x "$TUNE" ] || fail "no ASan build of hmpt-tune"
need_thp
out=$work/t
cmd=("$TUNE" -o "$out" --lib "$LIB" --pools thp,4k -m 'Time in seconds' --reps 2 -- "$P/crashy")
"${cmd[@]}" >"$work/s1" 2>"$work/e1" || fail "hmpt-tune exited $?: $(cat "$work/e1")"
"${cmd[@]}" >"$work/s2" 2>"$work/e2" || fail "the second hmpt-tune exited $?: $(cat "$work/e2")"
grep -q 'resuming from .*: [0-9]* runs done' "$work/e2" || fail "no resume message: $(cat "$work/e2")"
cmp "$work/s1" "$work/s2" || fail "the summary from the journal differs: $(diff "$work/s1" "$work/s2")"
"$TUNE" compare --lib "$LIB" -m 'Time in seconds' "$out/plan-slow.json" "$out/plan-90.json" \
	-- "$P/crashy" >"$work/c" 2>&1 || fail "compare exited $?: $(cat "$work/c")"
grep -q 'plan-90.json: [0-9.]*x over' "$work/c" || fail "compare said: $(cat "$work/c")"
note "$(tail -n 1 "$work/c")"
