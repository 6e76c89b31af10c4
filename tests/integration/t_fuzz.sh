. "$(dirname "$0")/lib.sh"
# Each libFuzzer target runs for a bounded time from its corpus in the
# repository (new inputs it finds are kept in the work directory, not added).
secs=${HMPT_TEST_FUZZ_SECONDS:-10}
ran=0
for f in "$B"/fuzz/fuzz_*; do
	[ -x "$f" ] || continue
	name=$(basename "$f"); name=${name#fuzz_}
	mkdir -p "$work/$name"
	"$f" -max_total_time="$secs" -max_len=2048 -timeout=5 "$work/$name" "$top/tests/fuzz/corpus/$name" \
		>"$work/$name.log" 2>&1 || { tail -n 30 "$work/$name.log"; fail "fuzz target $name failed"; }
	note "$name: $(grep -o 'stat::number_executed_units: [0-9]*' "$work/$name.log" | tail -1 || true)$(tail -n 1 "$work/$name.log")"
	ran=1
done
[ $ran = 1 ] || prereq_missing clang libclang-rt-14-dev -- "no fuzz targets in $B/fuzz (clang with libFuzzer builds them: make check)"
