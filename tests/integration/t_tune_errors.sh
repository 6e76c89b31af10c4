. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tune_common.sh"
# A configuration that crashes is recorded and reported, never chosen; a
# program that never prints the metric, one that fails before any placement
# change, a journal of another tuning and bad options each give one clear
# message and the documented exit status.
need_thp
crashy=$work/crashy # a copy: rebuilt below
cp "$P/crashy" "$crashy" || fail "cannot copy $P/crashy"
out=$work/crash
$TUNE -o "$out" --lib "$LIB" --pools thp,4k -m 'Time in seconds' --reps 2 -- "$crashy" \
	>"$work/summary" 2>"$work/err" || fail "hmpt-tune exited $?: $(cat "$work/err")"
cat "$work/summary"
grep -q 'failed: killed by signal 6 (SIGABRT) (run 1: .*\.log)' "$work/summary" ||
	fail "the crashing configuration is not reported"
verdicts "$out/results.json" | grep -q ' failed$' || fail "results.json has no failed configuration"
grep -q ',134,"killed by signal 6 (SIGABRT)",' "$out/results.csv" || fail "results.csv lacks the crashed runs"
plan_fast_symbols "$out/plan-best.json" | grep -q alloc_fragile &&
	fail "plan-best.json puts the crashing site in the fast pool"
note "crashing configurations reported, never chosen"

expect() { # STATUS MESSAGE ARGS...: hmpt-tune ARGS exits STATUS saying MESSAGE
	local want=$1 msg=$2 rc
	shift 2
	"$TUNE" "$@" >"$work/out" 2>"$work/err"
	rc=$?
	[ $rc = "$want" ] || fail "hmpt-tune $*: exit $rc, want $want: $(cat "$work/err")"
	grep -qF -- "$msg" "$work/err" || fail "hmpt-tune $*: says $(cat "$work/err") -- want: $msg"
	echo "ok exit $rc: $(grep -F -- "$msg" "$work/err" | head -n 1)"
}
o=(-o "$work/t" --lib "$LIB")
expect 1 "--metric 'Time in seconds': no figure in the output of" \
	"${o[@]}" --pools thp,4k -m 'Time in seconds' -- "$crashy" -n
expect 1 "exited with status 3 in the profile run, before any placement change" \
	-o "$work/t2" --lib "$LIB" --pools thp,4k -- "$P/exits" return 3
expect 1 "is the journal of another tuning" \
	-o "$out" --lib "$LIB" --pools thp,4k -m 'Time in seconds' --reps 2 -- "$crashy" x
touch "$crashy" # as a rebuild would: the journal's runs measured another program
expect 1 "(the program's file changed since: rebuilt?)" \
	-o "$out" --lib "$LIB" --pools thp,4k -m 'Time in seconds' --reps 2 -- "$crashy"
expect 2 "--reps: expected a whole number from 2 to 100: 1" "${o[@]}" --pools thp,4k --reps 1 -- true
expect 2 "--groups: expected a whole number from 1 to 10: 11" "${o[@]}" --pools thp,4k --groups 11 -- true
expect 2 "--pools: expected FAST,SLOW" "${o[@]}" --pools fast -- true
expect 2 "--pools {\"pages\":\"huge\"},4k:" "${o[@]}" --pools '{"pages":"huge"},4k' -- true
expect 2 "--metric: expected a POSIX extended regular expression" "${o[@]}" --pools thp,4k -m '(' -- true
expect 2 "--capacity: expected a size such as 512M or 16G: lots" "${o[@]}" --pools thp,4k -c lots -- true
expect 2 "--timeout: expected seconds" "${o[@]}" --pools thp,4k -t -1 -- true
expect 2 "no command given" "${o[@]}" --pools thp,4k
expect 2 "unknown option" "${o[@]}" --pools thp,4k --bogus -- true
expect 2 "this option is for tuning, not for compare: pools" compare --pools thp,4k a b -- true
expect 2 "expected BASE.json PLAN.json -- COMMAND" compare a b true
if [ -z "$(ls /sys/devices/system/node/node*/ -d 2>/dev/null | sed -n 2p)" ]; then
	expect 2 "this machine has no HBM nodes that hmpt can find" "${o[@]}" -- true
	expect 1 "--pools hbm,ddr: this machine cannot give these pools" "${o[@]}" --pools hbm,ddr -- true
fi
