. "$(dirname "$0")/lib.sh"
# each bad value: the program runs normally, one hmpt: line names the variable
bad() { # bad VAR=VALUE PATTERN
	local err=$work/err
	local prof="HMPT_PROFILE=$work/p.%p.json"
	case $1 in HMPT_PROFILE=*) prof=$1 ;; esac
	env "$1" "$prof" LD_PRELOAD=$LIB "$P/alloc_c" >/dev/null 2>"$err"
	local rc=$?
	[ $rc = 0 ] || fail "$1: program exited with $rc"
	[ "$(grep -c '^hmpt:' "$err")" = 1 ] || fail "$1: expected one hmpt: line, got: $(cat "$err")"
	grep -q "$2" "$err" || fail "$1: message does not say '$2': $(cat "$err")"
	echo "ok $1: $(cat "$err")"
}
bad HMPT_MIN_SIZE=abc "HMPT_MIN_SIZE='abc': expected a size"
bad HMPT_MIN_SIZE=-5 "HMPT_MIN_SIZE='-5'"
bad HMPT_MIN_SIZE=1Q "HMPT_MIN_SIZE='1Q'"
bad HMPT_MIN_SIZE=0 "HMPT_MIN_SIZE='0'.*1 B to"
bad HMPT_STACK_DEPTH=0 "HMPT_STACK_DEPTH='0'.*1 to 64"
bad HMPT_STACK_DEPTH=1000 "HMPT_STACK_DEPTH='1000'"
bad HMPT_VERBOSE=x "HMPT_VERBOSE='x'"
bad HMPT_ARENA_SIZE=1K "HMPT_ARENA_SIZE='1K'"
bad HMPT_PROFILE= "HMPT_PROFILE='': expected a non-empty value"
bad HMPT_SAMPEL=1 "unknown variable HMPT_SAMPEL ignored: did you mean HMPT_SAMPLE?"
# a variable of someone else's (a job script's HMPT_SRC) is passed over in
# silence: programs check their stderr (CPython's tests run json.tool)
echo '{"a": [1, 2]}' >"$work/in.json"
env HMPT_SRC=/src HMPT_FOO=1 LD_PRELOAD=$LIB python3 -m json.tool "$work/in.json" \
	>"$work/out" 2>"$work/err" || fail "json.tool under the shim exited with $?"
[ ! -s "$work/err" ] || fail "HMPT_SRC, HMPT_FOO: stderr is not empty: $(cat "$work/err")"
grep -q '"a"' "$work/out" || fail "json.tool wrote no JSON: $(cat "$work/out")"
# hmpt-tune env lists them all, with what the shim makes of each
env HMPT_SRC=/src HMPT_SAMPEL=1 HMPT_PLAN=p.json $TUNE env >"$work/env" ||
	fail "hmpt-tune env failed"
grep -q '^  HMPT_SRC .*not hmpt.s' "$work/env" || fail "env: HMPT_SRC: $(tail -5 "$work/env")"
grep -q '^  HMPT_SAMPEL .*did you mean HMPT_SAMPLE' "$work/env" || fail "env: HMPT_SAMPEL"
grep -q '^  HMPT_PLAN .*read by the shim' "$work/env" || fail "env: HMPT_PLAN"
# defaults really used: 1 MiB threshold after a bad HMPT_MIN_SIZE
env HMPT_MIN_SIZE=abc HMPT_PROFILE="$work/q.json" LD_PRELOAD=$LIB "$P/alloc_c" >/dev/null 2>&1
grep -q '"min_size": 1048576' "$work/q.json" || fail "default min_size not used"
# a good value is used
env HMPT_MIN_SIZE=5M HMPT_PROFILE="$work/r.json" LD_PRELOAD=$LIB "$P/alloc_c" >/dev/null 2>"$work/err"
[ ! -s "$work/err" ] || fail "a good value gave messages: $(cat "$work/err")"
grep -q '"min_size": 5242880' "$work/r.json" || fail "HMPT_MIN_SIZE=5M not used"
# hmpt-tune refuses bad options, naming them
$TUNE profile --min-size abc -- true 2>"$work/err"; [ $? = 2 ] || fail "--min-size abc not refused"
grep -q -- '--min-size' "$work/err" || fail "the message does not name --min-size"
$TUNE profile --depth 99 -- true 2>/dev/null; [ $? = 2 ] || fail "--depth 99 not refused"
$TUNE nosuchcommand 2>/dev/null; [ $? = 2 ] || fail "an unknown command not refused"
$TUNE show /nonexistent.json 2>"$work/err"; [ $? = 1 ] || fail "show of a missing file"
grep -q '/nonexistent.json' "$work/err" || fail "show does not name the file"
