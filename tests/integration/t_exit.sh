. "$(dirname "$0")/lib.sh"
# every way out keeps its exit status, through hmpt-tune and under the shim
# directly; a profile is written for exit, _exit, _Exit and return
for how in exit _exit _Exit return; do
	for st in 0 3; do
		run_profile "$work/$how$st" "$P/exits" "$how" "$st" >/dev/null
		rc=$?
		[ $rc = "$st" ] || fail "$how $st through hmpt-tune exited with $rc"
		ls "$work/$how$st"/profile.*.json >/dev/null 2>&1 || fail "$how $st: no profile written"
		end=$(sed -n 's/.*"end": "\([^"]*\)".*/\1/p' "$work/$how$st/profile.json")
		want=exit; case $how in _exit | _Exit) want=_exit ;; esac
		[ "$end" = "$want" ] || fail "$how: profile says end=$end, expected $want"
		HMPT_PROFILE=$work/direct.%p.json LD_PRELOAD=$LIB $PREFIX "$P/exits" "$how" "$st" >/dev/null
		rc=$?
		[ $rc = "$st" ] || fail "$how $st under LD_PRELOAD exited with $rc"
	done
done
# a signal: 128+N through hmpt-tune, the same death under the shim
run_profile "$work/sig" "$P/exits" signal 2>"$work/sig.err" >/dev/null
rc=$?
[ $rc = 143 ] || fail "SIGTERM through hmpt-tune gave $rc, expected 143"
grep -q 'killed by signal 15 (SIGTERM)' "$work/sig.err" || fail "no message for the signal"
run_profile "$work/abrt" "$P/exits" abort >/dev/null 2>&1
[ $? = 134 ] || fail "abort through hmpt-tune did not give 134"
LD_PRELOAD=$LIB "$P/exits" signal >/dev/null
[ $? = 143 ] || fail "SIGTERM under LD_PRELOAD did not give 143"
# the buffered line of exit() is flushed; _exit's is not (unchanged by hmpt)
out=$(LD_PRELOAD=$LIB "$P/exits" exit 0)
[ "$out" = "exits: exit 0" ] || fail "exit() did not flush stdout: '$out'"
out=$(LD_PRELOAD=$LIB "$P/exits" _exit 0)
[ -z "$out" ] || fail "_exit() flushed stdout: '$out'"
# a command that does not exist, one that cannot run
run_profile "$work/nf" /nonexistent/program 2>/dev/null
[ $? = 127 ] || fail "a missing command did not give 127"
printf 'not a program\n' >"$work/noexec" && chmod 644 "$work/noexec"
run_profile "$work/nx" "$work/noexec" 2>/dev/null
[ $? = 126 ] || fail "a non-executable command did not give 126"
note "exit statuses preserved"
