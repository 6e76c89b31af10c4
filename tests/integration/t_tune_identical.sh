. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tune_common.sh"
# No false positives: with two identical pools no configuration may be
# reported faster, and the plans place nothing in the fast pool.
# At the default 95 % the tuner is wrong by design in up to 1 tuning of 20
# (its family-wise error rate; 1 failure in 25 runs of this test at 95 %,
# and one in CI): at 99.9 % this test fails by chance 1 time in 1000.
out=$work/tune
$TUNE -o "$out" --lib "$LIB" --pools 4k,4k -m 'Time in seconds' --reps 3 --groups 2 \
	--confidence 99.9 -- \
	"$DEMO" -s 128 -i 1 >"$work/summary" 2>"$work/err" ||
	fail "hmpt-tune exited $?: $(cat "$work/err")"
cat "$work/summary"
grep -q '^No configuration was measurably faster than all-slow' "$work/summary" ||
	fail "the tuner does not say that the fast pool does not help"
verdicts "$out/results.json" >"$work/verdicts"
grep ' faster$' "$work/verdicts" && fail "a configuration is reported faster with identical pools"
n=$(grep -c ' same$' "$work/verdicts")
[ "$n" -ge 4 ] || fail "want at least 4 configurations judged the same, got $n"
for p in plan-best plan-90; do
	[ -z "$(plan_fast_symbols "$out/$p.json")" ] || fail "$p.json places something in the fast pool"
done
note "$n configurations, none faster"
