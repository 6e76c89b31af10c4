. "$(dirname "$0")/lib.sh"
# Every malformed plan of tests/plans/bad.tsv, and every valid plan this
# machine cannot honour (unfit.tsv), three ways:
#  - hmpt-tune plan check exits 1 with the expected message;
#  - under the shim the program runs with default placement, keeps its exit
#    status and output, and hmpt says exactly one line, the expected one;
#  - with HMPT_STRICT=1 the program does not start: exit status 125.
cd "$top/tests/plans" || fail "no tests/plans"

check_case() { # NAME FILE ENV EXPECTED
	local name=$1 file=$2 envs=$3 want=$4 rc
	[ "$envs" = - ] && envs=
	# shellcheck disable=SC2086
	env $envs "$TUNE" plan check "$file" >"$work/out" 2>"$work/err"
	rc=$?
	[ $rc = 1 ] || fail "$name: plan check exited $rc (want 1): $(cat "$work/err")"
	grep -qF -- "$want" "$work/err" || fail "$name: plan check says: $(cat "$work/err") -- want: $want"

	# shellcheck disable=SC2086
	env $envs HMPT_PLAN="$file" LD_PRELOAD="$LIB" "$P/exits" return 7 >"$work/out" 2>"$work/err"
	rc=$?
	[ $rc = 7 ] || fail "$name: the program's exit status 7 became $rc"
	grep -q '^exits: return 7$' "$work/out" || fail "$name: the program's output was lost"
	[ "$(wc -l <"$work/err")" = 1 ] || fail "$name: want one line from hmpt, got: $(cat "$work/err")"
	grep -qF -- "$want" "$work/err" || fail "$name: the shim says: $(cat "$work/err") -- want: $want"
	grep -q 'the program runs with default placement$' "$work/err" ||
		fail "$name: the shim does not say what it does instead: $(cat "$work/err")"

	# shellcheck disable=SC2086
	env $envs HMPT_STRICT=1 HMPT_PLAN="$file" LD_PRELOAD="$LIB" "$P/exits" return 7 \
		>"$work/out" 2>"$work/err"
	rc=$?
	[ $rc = 125 ] || fail "$name: HMPT_STRICT=1 exited $rc (want 125)"
	[ ! -s "$work/out" ] || fail "$name: HMPT_STRICT=1 still ran the program"
	grep -q 'HMPT_STRICT=1: stopping with exit status 125' "$work/err" ||
		fail "$name: HMPT_STRICT=1 says: $(cat "$work/err")"
	n=$((n + 1))
}

n=0
while IFS=$'\t' read -r name want; do
	case $name in '#'* | '') continue ;; esac
	check_case "$name" "bad/$name.json" - "$want"
done <bad.tsv
note "$n malformed plans: each one clear line, program unharmed, strict mode stops"
bad_n=$n

n=0
while IFS=$'\t' read -r name envs want; do
	case $name in '#'* | '') continue ;; esac
	# this machine has one node and no HBM: these plans cannot fit
	check_case "$name" "unfit/$name.json" "$envs" "$want"
done <unfit.tsv
note "$n plans that do not fit this machine: likewise"
[ $bad_n -ge 45 ] || fail "only $bad_n malformed plans in the table"

# a plan file that is missing, or a directory
env HMPT_PLAN=/nonexistent/plan.json LD_PRELOAD="$LIB" "$P/exits" return 3 >/dev/null 2>"$work/err"
[ $? = 3 ] || fail "a missing plan changed the exit status"
grep -q '^hmpt: /nonexistent/plan.json: No such file or directory; the program runs with default placement$' "$work/err" ||
	fail "missing plan: $(cat "$work/err")"
"$TUNE" plan check /nonexistent/plan.json 2>"$work/err"
[ $? = 1 ] || fail "plan check of a missing file"
# a bad HMPT_STRICT value is one line and the default (0)
env HMPT_STRICT=2 HMPT_PLAN=bad/empty.json LD_PRELOAD="$LIB" "$P/exits" return 0 >/dev/null 2>"$work/err"
[ $? = 0 ] || fail "HMPT_STRICT=2 stopped the program"
grep -q "HMPT_STRICT='2'" "$work/err" || fail "HMPT_STRICT=2 not reported: $(cat "$work/err")"
# every example plan is valid (format), and plan check --no-machine says so
for f in "$top"/plans/examples/*.json; do
	"$TUNE" plan check --no-machine -q "$f" >"$work/out" 2>&1 || fail "$f: $(cat "$work/out")"
done
note "examples valid: $(ls "$top"/plans/examples/*.json | wc -l)"
# usage errors
"$TUNE" plan 2>/dev/null; [ $? = 2 ] || fail "plan without a subcommand"
"$TUNE" plan check 2>/dev/null; [ $? = 2 ] || fail "plan check without a file"
"$TUNE" plan make -p nonsense x 2>"$work/err"; [ $? = 2 ] || fail "plan make -p nonsense"
grep -q -- '--pool: expected NAME=JSON' "$work/err" || fail "plan make -p nonsense: $(cat "$work/err")"
exit 0
